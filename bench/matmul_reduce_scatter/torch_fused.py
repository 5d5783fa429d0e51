#!/usr/bin/env python3
"""PyTorch references for C = ReduceScatter_rows(A_d @ B_d)
(bench/matmul_reduce_scatter).

Times, on D GPUs of one host, for every m_shard and dtype:
  fused       torch.ops.symm_mem.fused_matmul_reduce_scatter (PyTorch's
              async-TP matmul + reduce-scatter over symmetric memory), eager
              and replayed from a CUDA graph;
  mm + NCCL   torch.matmul of the partial product, then
              dist.reduce_scatter_tensor (sum), eager and from a CUDA graph.
Each rank holds A_d [D * m_shard, K] and B_d [K, N] and ends with rows
[d * m_shard, (d + 1) * m_shard) of the sum over the ranks, [m_shard, N].
CUDA events around each of N back-to-back iterations after warm-up; an
iteration's time is the longest rank's (all_reduce MAX); the median is
reported. The fused result is checked against mm + NCCL.

Run one process per GPU (it needs 2+ GPUs), either way:
  torchrun --nproc-per-node=2 bench/matmul_reduce_scatter/torch_fused.py
  python3 bench/matmul_reduce_scatter/torch_fused.py --nproc 2      (mp.spawn)
NVLink multicast stays off (TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1), set by torch_common before
torch loads.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--m-shards", default="1024,2048,4096,8192",
                   help="rows of the result per rank, comma-separated")
    p.add_argument("--k", type=int, default=4096, help="K per rank")
    p.add_argument("--n", type=int, default=4096, help="columns of B")
    p.add_argument("--shapes", default="",
                   help="K:N pairs, comma-separated (instead of --k and --n), "
                        "each optionally with its own m_shards: "
                        "4096:4096@1024/2048,3584:4096")
    p.add_argument("--dtype", default="all", choices=["f16", "bf16", "all"])
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--nproc", type=int, default=2,
                   help="GPUs when not started by torchrun (mp.spawn)")
    p.add_argument("--no-graph", action="store_true",
                   help="skip the CUDA graph timings")
    args = p.parse_args(argv)
    args.m_shards = [int(x) for x in args.m_shards.split(",") if x]
    # K:N or K:N@m1/m2/...: the shape's own m_shards (default --m-shards).
    args.shape_list = []
    for spec in [s for s in args.shapes.split(",") if s]:
        kn, _, ms = spec.partition("@")
        k, n = (int(v) for v in kn.split(":"))
        args.shape_list.append((k, n, [int(m) for m in ms.split("/")] if ms
                                else args.m_shards))
    if not args.shape_list:
        args.shape_list = [(args.k, args.n, args.m_shards)]
    args.dtypes = ["f16", "bf16"] if args.dtype == "all" else [args.dtype]
    return args


if __name__ == "__main__":
    # --help and wrong arguments answer before torch is imported (a
    # machine without torch, CI's, can still read them).
    parse_args()

from torch_common import (compare_and_time, launch, log,  # noqa: E402
                          markdown, uniform)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def run_case(args, rank, world, device, group_name, symm_mem, dtype_name, m, k, n):
    dtype = DTYPES[dtype_name]
    row = {"m_shard": m, "K": k, "N": n, "D": world, "dtype": dtype_name}

    a = uniform((world * m, k), 1000 + rank, dtype, device)
    b = uniform((k, n), 2000 + rank, dtype, device)
    partial = torch.empty(world * m, n, dtype=dtype, device=device)
    out = torch.empty(m, n, dtype=dtype, device=device)

    def mm_nccl():
        torch.matmul(a, b, out=partial)
        dist.reduce_scatter_tensor(out, partial)
        return out

    def fused():
        return torch.ops.symm_mem.fused_matmul_reduce_scatter(
            a, b, "sum", scatter_dim=0, group_name=group_name)

    return compare_and_time(row, fused, mm_nccl, args, device)


def fmt(ms):
    """Milliseconds with 4 decimals (the weave bench's precision)."""
    return "-" if ms is None else f"{ms:.4f}"


def print_table(args, rows, world, device_name):
    print(f"\nPyTorch {torch.__version__}: fused_matmul_reduce_scatter vs "
          f"matmul + NCCL reduce_scatter_tensor, {world} x {device_name} (K per rank)")
    print(f"timing: CUDA events around each of {args.iters} back-to-back "
          f"iterations after {args.warmup} warm-up ones, longest rank, median")
    header = ["m_shard", "K", "N", "D", "dtype", "fused ms", "fused graph ms",
              "mm+NCCL ms", "mm+NCCL graph ms",
              "speed-up (mm+NCCL / fused, graphs where captured)",
              "rel err fused vs mm+NCCL"]
    table = []
    for r in rows:
        best_fused = r["fused_graph"] or r["fused"]
        best_nccl = r["nccl_graph"] or r["nccl"]
        table.append([
            str(r["m_shard"]), str(r["K"]), str(r["N"]), str(r["D"]), r["dtype"],
            fmt(r["fused"]),
            fmt(r["fused_graph"]), fmt(r["nccl"]), fmt(r["nccl_graph"]),
            f"{best_nccl / best_fused:.2f}", f"{r['rel']:.2e}"])
    print(markdown(header, table))
    for r in rows:
        for note in r["notes"]:
            print(f"note: m_shard {r['m_shard']} {r['dtype']}: {note}")


def body(args, rank, world, device, group_name, symm_mem):
    rows = []
    for k, n, m_shards in args.shape_list:
        for dtype_name in args.dtypes:
            for m in m_shards:
                log(rank, f"torch_fused (matmul_reduce_scatter): m_shard {m} "
                          f"K {k} N {n} {dtype_name} on {world} GPUs ...")
                rows.append(run_case(args, rank, world, device, group_name,
                                     symm_mem, dtype_name, m, k, n))
    if rank == 0:
        print_table(args, rows, world, torch.cuda.get_device_name(device))
        bad = [r for r in rows if not r["rel"] < 1e-2]
        if bad:
            print(f"torch_fused: {len(bad)} case(s) where the fused result "
                  "differs from mm + NCCL by 1e-2 or more")
            return 1
    return 0


def main():
    return launch(parse_args(), body, "torch_fused_mrs")


if __name__ == "__main__":
    sys.exit(main())
