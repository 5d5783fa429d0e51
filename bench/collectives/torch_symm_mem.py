#!/usr/bin/env python3
"""PyTorch references for bench/collectives (weave_bench_collectives).

Times, on D GPUs of one host, for every message size and dtype:
  one_shot_all_reduce   torch.ops.symm_mem.one_shot_all_reduce_out
  two_shot_all_reduce   torch.ops.symm_mem.two_shot_all_reduce_ (in place:
                        each operation first copies the input into the
                        symmetric buffer, a local copy that is timed too)
  nccl_all_reduce       dist.all_reduce (NCCL), with the same local copy
  two_shot_all_reduce_out  torch.ops.symm_mem.two_shot_all_reduce_out where
                        this PyTorch has it (the sums go to a plain output;
                        the op also overwrites its symmetric input, so the
                        input is copied in on every call, as for _)
  all_to_all_vdev       torch.ops.symm_mem.all_to_all_vdev with random
                        per-destination counts on the device (a quarter of
                        them 0); needs the NVSHMEM backend, so it runs on its
                        own: --ops all_to_all_vdev. Its data kernel
                        (allToAllV, nvshmem_extension.cu) splits what it
                        receives from each peer evenly over gridDim.x / D
                        blocks and CUDA_KERNEL_ASSERTs that the split is
                        exact: with any count that is not a multiple of that
                        (min(round_up(ceil(bytes / 64 KiB), D), 64) / D for
                        an input of `bytes`) it stops with a device-side
                        assert, which is what a random count hit before.
                        The counts here are rounded down to that multiple.
Message size S as in weave_bench_collectives: all-reduce, one rank's input;
all-to-all-v, the capacity D x n of a rank's input (it sends on average
half of it). Each operation runs eagerly and replayed from a CUDA graph that
holds --graph-ops of them; CUDA events around each of N back-to-back
iterations after warm-up, the longest rank (all_reduce MAX), the median, per
operation. Bus bandwidth: S / t x 2(D-1)/D (all-reduce), bytes sent / t x
(D-1)/D (all-to-all-v). Every result is checked against float64: all-reduce
within the rounding bound of its order (D roundings of the dtype), the
all-to-all-v exactly, with the received counts.

Run one process per GPU, either way:
  torchrun --nproc-per-node=2 bench/collectives/torch_symm_mem.py
  python3 bench/collectives/torch_symm_mem.py --nproc 2      (mp.spawn)
  python3 bench/collectives/torch_symm_mem.py --nproc 2 --ops all_to_all_vdev
NVLink multicast stays off (bench/torch_common.py); the script refuses to
run if PyTorch still reports multicast support.
"""

import argparse
import os
import sys

# The shared helpers (bench/torch_common.py) set the multicast-off
# environment before torch loads.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_common import (capture, launch, log, markdown,  # noqa: E402
                          time_iterations, uniform)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
ALL_REDUCES = ("one_shot_all_reduce", "two_shot_all_reduce",
               "two_shot_all_reduce_out", "nccl_all_reduce")
OPS = ALL_REDUCES + ("all_to_all_vdev",)
# The torch.ops.symm_mem operator each case calls.
SYMM_MEM_OPS = {"one_shot_all_reduce": "one_shot_all_reduce_out",
                "two_shot_all_reduce": "two_shot_all_reduce_",
                "two_shot_all_reduce_out": "two_shot_all_reduce_out",
                "all_to_all_vdev": "all_to_all_vdev"}
# Unit roundoff of each dtype: a sum of D terms in any order is within
# D * u * sum|x| of the exact one.
UNIT_ROUNDOFF = {"f32": 2.0 ** -24, "bf16": 2.0 ** -8}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bytes", default="4096,16384,65536,262144,1048576,"
                   "4194304,16777216,67108864,268435456",
                   help="message sizes in bytes, comma-separated")
    p.add_argument("--dtype", default="all", choices=["f32", "bf16", "all"])
    p.add_argument("--ops", default=",".join(ALL_REDUCES),
                   help=f"comma-separated, from {', '.join(OPS)}")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--graph-ops", type=int, default=10,
                   help="operations per captured CUDA graph")
    p.add_argument("--nproc", type=int, default=2,
                   help="GPUs when not started by torchrun (mp.spawn)")
    args = p.parse_args(argv)
    args.sizes = [int(x) for x in args.bytes.split(",") if x]
    args.dtypes = ["f32", "bf16"] if args.dtype == "all" else [args.dtype]
    args.ops = [x for x in args.ops.split(",") if x]
    for op in args.ops:
        if op not in OPS:
            p.error(f"unknown op {op!r} (expected {', '.join(OPS)})")
    if "all_to_all_vdev" in args.ops and len(args.ops) > 1:
        p.error("all_to_all_vdev needs the NVSHMEM backend: run it alone")
    args.symm_mem_backend = ("NVSHMEM" if args.ops == ["all_to_all_vdev"]
                             else "CUDA")
    return args


def gather(tensor, world):
    """Every rank's copy of `tensor`, in rank order."""
    parts = [torch.empty_like(tensor) for _ in range(world)]
    dist.all_gather(parts, tensor)
    return parts


def run_poisoned(out, fn):
    """Fills `out` with NaNs, then runs fn() once on every rank and waits."""
    out.fill_(float("nan"))
    torch.cuda.synchronize()
    dist.barrier()
    fn()
    torch.cuda.synchronize()


def all_reduce_case(op, rank, world, device, group_name, symm_mem, dtype_name,
                    nbytes):
    """The operation, its check and its bus-bandwidth numbers."""
    dtype = DTYPES[dtype_name]
    n = nbytes // DTYPES[dtype_name].itemsize
    x = uniform((n,), 1000 + rank, dtype, device)
    inputs = gather(x, world)
    exact = sum(t.double() for t in inputs)
    bound = world * UNIT_ROUNDOFF[dtype_name] * sum(t.double().abs()
                                                    for t in inputs)
    if op == "nccl_all_reduce":
        buf = torch.empty_like(x)
        out = buf

        def fn():
            buf.copy_(x)
            dist.all_reduce(buf)
    else:
        buf = symm_mem.empty(n, dtype=dtype, device=device)
        symm_mem.rendezvous(buf, group_name)
        if op == "one_shot_all_reduce":
            buf.copy_(x)
            out = torch.empty_like(x)

            def fn():
                torch.ops.symm_mem.one_shot_all_reduce_out(buf, "sum",
                                                           group_name, out)
        elif op == "two_shot_all_reduce_out":
            out = torch.empty_like(x)

            # The op also writes its input (PyTorch's schema says so:
            # "also modified the input tensor"), so each call copies the
            # input in first: without the copy, the replays summed sums
            # (every case WRONG on 2 x H100, 2026-11-26).
            def fn():
                buf.copy_(x)
                torch.ops.symm_mem.two_shot_all_reduce_out(buf, "sum",
                                                           group_name, out)
        else:
            out = buf

            def fn():
                buf.copy_(x)
                torch.ops.symm_mem.two_shot_all_reduce_(buf, "sum", group_name)

    def check():
        run_poisoned(out, fn)
        return bool(((out.double() - exact).abs() <= bound).all().item())

    return fn, check, nbytes, 2.0 * (world - 1) / world


def all_to_all_vdev_case(rank, world, device, group_name, symm_mem,
                         dtype_name, nbytes):
    dtype = DTYPES[dtype_name]
    cap = max(1, nbytes // (dtype.itemsize * world))  # per destination
    g = torch.Generator()
    g.manual_seed(3000 + rank)
    counts = torch.randint(0, cap + 1, (world,), generator=g)
    counts[torch.randint(0, 4, (world,), generator=g) == 0] = 0
    # allToAllV's exact-split assert (see the module docstring): every count
    # a multiple of the blocks per peer PyTorch will launch.
    in_bytes = world * cap * dtype.itemsize
    blocks = -(-in_bytes // (16 * 512 * 8))
    blocks = min(-(-blocks // world) * world, 64)
    per_peer = max(blocks // world, 1)
    counts = counts // per_peer * per_peer
    inp = symm_mem.empty(world * cap, dtype=dtype, device=device)
    out = symm_mem.empty(world * cap, dtype=dtype, device=device)
    in_splits = symm_mem.empty(world, dtype=torch.int64, device=device)
    out_splits_offsets = symm_mem.empty((2, world), dtype=torch.int64,
                                        device=device)
    for t in (inp, out, in_splits, out_splits_offsets):
        symm_mem.rendezvous(t, group_name)
    inp.copy_(uniform((world * cap,), 1000 + rank, dtype, device))
    in_splits.copy_(counts)
    all_counts = [c.cpu() for c in gather(counts.to(device), world)]
    all_inputs = gather(inp, world)
    # What this rank receives: from each source s, its part for `rank`.
    expected = []
    for s in range(world):
        start = int(all_counts[s][:rank].sum())
        expected.append(all_inputs[s][start:start + int(all_counts[s][rank])])
    expected = torch.cat(expected)
    received = torch.tensor([int(all_counts[s][rank]) for s in range(world)])

    def fn():
        torch.ops.symm_mem.all_to_all_vdev(inp, out, in_splits,
                                           out_splits_offsets, group_name)

    def check():
        run_poisoned(out, fn)
        got = out[:expected.numel()]
        return (torch.equal(got.view(torch.int16 if dtype.itemsize == 2
                                     else torch.int32),
                            expected.view(torch.int16 if dtype.itemsize == 2
                                          else torch.int32))
                and torch.equal(out_splits_offsets[0].cpu(), received))

    sent = float(sum(int(c.sum()) for c in all_counts)) / world * dtype.itemsize
    return fn, check, sent, (world - 1) / world


def run_case(args, rank, world, device, group_name, symm_mem, op, dtype_name,
             nbytes):
    if op == "all_to_all_vdev":
        fn, check, moved, factor = all_to_all_vdev_case(
            rank, world, device, group_name, symm_mem, dtype_name, nbytes)
    else:
        fn, check, moved, factor = all_reduce_case(
            op, rank, world, device, group_name, symm_mem, dtype_name, nbytes)
    row = {"op": op, "dtype": dtype_name, "D": world, "bytes": nbytes,
           "moved": moved, "factor": factor, "note": ""}
    ok = torch.tensor([1 if check() else 0], device=device)
    row["eager"] = time_iterations(fn, args.iters, args.warmup, device)

    def many():
        for _ in range(args.graph_ops):
            fn()

    graph, error = capture(many, device)
    row["graph"] = None
    if graph is None:
        row["note"] = error
    else:
        row["graph"] = time_iterations(graph.replay, args.iters, args.warmup,
                                       device) / args.graph_ops
        del graph
    ok &= torch.tensor([1 if check() else 0], device=device)
    dist.all_reduce(ok, op=dist.ReduceOp.MIN)
    row["ok"] = bool(ok.item())
    torch.cuda.synchronize()
    dist.barrier()
    return row


def print_table(rows, world, device_name):
    print(f"\nPyTorch {torch.__version__} symmetric memory and NCCL, "
          f"{world} x {device_name}; multicast off")
    header = ["op", "dtype", "D", "size (B)", "eager us", "graph us",
              "busbw GB/s (graph)", "check"]
    table = []
    for r in rows:
        best = r["graph"] if r["graph"] is not None else r["eager"]
        busbw = r["moved"] / (best * 1e-3) * r["factor"] / 1e9
        table.append([r["op"], r["dtype"], str(r["D"]), str(r["bytes"]),
                      f"{r['eager'] * 1e3:.1f}",
                      "-" if r["graph"] is None else f"{r['graph'] * 1e3:.1f}",
                      f"{busbw:.1f}", "ok" if r["ok"] else "WRONG"])
    print(markdown(header, table))
    for r in rows:
        if r["note"]:
            print(f"note: {r['op']} {r['dtype']} {r['bytes']} B: {r['note']}")


def body(args, rank, world, device, group_name, symm_mem):
    rows = []
    for op in list(args.ops):
        torch_op = SYMM_MEM_OPS.get(op)
        if torch_op and not hasattr(torch.ops.symm_mem, torch_op):
            if rank == 0:
                print(f"torch_symm_mem: this PyTorch has no {torch_op}: "
                      f"{op} skipped")
            continue
        for dtype_name in args.dtypes:
            for nbytes in args.sizes:
                log(rank, f"torch_symm_mem: {op} {dtype_name} {nbytes} B on "
                          f"{world} GPUs ...")
                rows.append(run_case(args, rank, world, device, group_name,
                                     symm_mem, op, dtype_name, nbytes))
    if rank == 0:
        print_table(rows, world, torch.cuda.get_device_name(device))
        bad = [r for r in rows if not r["ok"]]
        if bad:
            print(f"torch_symm_mem: {len(bad)} case(s) with a wrong result")
            return 1
    return 0


def main():
    return launch(parse_args(), body, "torch_symm_mem")


if __name__ == "__main__":
    sys.exit(main())
