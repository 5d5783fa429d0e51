#!/usr/bin/env python3
"""weave.ops.all_gather_matmul against torch.ops.symm_mem.fused_all_gather_matmul.

On D GPUs of one host, one process per GPU (torchrun), for every m_shard and
dtype: each rank holds its row shard of A [m_shard, K] and its column shard
of B [K, n_shard] and computes AllGather(A) @ B [D * m_shard, n_shard] with
  weave   weave.ops.all_gather_matmul(a, b, "tp"): the custom op over
          weave::ops::AllGatherMatmul (Weave's fused ring kernel), on a team
          from the process group and symmetric memory PyTorch allocated
          (weave.SymmetricMemory.from_torch); `a` an ordinary tensor, which
          the op copies into its symmetric staging first;
  weave in place  the same op on this rank's rows of a weave.SymmetricTensor
          of all the rows (no copy);
  torch   torch.ops.symm_mem.fused_all_gather_matmul (PyTorch's async-TP op);
  local mm  torch.matmul of the whole gathered A (already gathered) by b:
          local cuBLAS of the whole product, the floor (no communication).
Each weave op runs once per --algorithms entry (default "auto": the op's
rule; "gather": the collectives' all-gather beside a plain matmul of the
own shard, then one per peer's shard, issue #32; "ring": the fused kernel).
All are checked against NCCL all_gather_into_tensor + matmul (relative
Frobenius error, worst rank) and timed, eager and from a CUDA graph: CUDA
events around each of N back-to-back iterations after warm-up, the longest
rank's time, the median.

  torchrun --nproc-per-node=2 bench/collective_matmul/torch_weave_vs_fused.py \\
      [--kernels jit|BUNDLE_DIR] [--m-shards 1024,4096] [--k 4096] [--n-shard 4096] \\
      [--algorithms auto,gather]

Needs 2 GPUs: with fewer it prints the reason and exits 0. Kernels come from
the JIT (a weave build with the compiler) or from a folder of bundles made
ahead of time (weave.compile_op(..., shape=(m_shard, k, n)) or weave-ops +
weavec; one all-gather matmul bundle serves every m_shard). NVLink multicast
stays off (TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NCCL_NVLS_ENABLE=0,
NVSHMEM_DISABLE_NVLS=1).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--m-shards", default="1024,4096",
                   help="rows of A per rank (multiples of 128), comma-separated")
    p.add_argument("--k", type=int, default=4096)
    p.add_argument("--n-shard", type=int, default=4096, help="columns of B per rank")
    p.add_argument("--dtype", default="bf16", choices=["f16", "bf16", "all"])
    p.add_argument("--kernels", default="jit",
                   help="'jit', or the folder of weave's op bundles")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--nproc", type=int, default=2,
                   help="GPUs when not started by torchrun (mp.spawn)")
    p.add_argument("--no-graph", action="store_true", help="skip the CUDA graph timings")
    p.add_argument("--algorithms", default="auto",
                   help="weave's all-gather matmul algorithms to time, comma-separated "
                        "(auto, ring, gather)")
    args = p.parse_args(argv)
    args.algorithms = [x for x in args.algorithms.split(",") if x]
    args.m_shards = [int(x) for x in args.m_shards.split(",") if x]
    args.dtypes = ["f16", "bf16"] if args.dtype == "all" else [args.dtype]
    return args


if __name__ == "__main__":
    # --help and wrong arguments answer before torch is imported (a
    # machine without torch, CI's, can still read them).
    parse_args()

from torch_common import (capture, fmt, launch, log, markdown,  # noqa: E402
                          time_iterations, uniform)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def run_case(args, rank, world, device, group_name, symm_mem, memory, dtype_name, m):
    import weave.ops
    dtype = DTYPES[dtype_name]
    k, n = args.k, args.n_shard
    row = {"m_shard": m, "D": world, "dtype": dtype_name, "notes": []}
    a = symm_mem.empty(m, k, dtype=dtype, device=device)
    a.copy_(uniform((m, k), 1000 + rank, dtype, device))
    symm_mem.rendezvous(a, group_name)
    b = uniform((k, n), 2000 + rank, dtype, device)
    gathered = torch.empty(world * m, k, dtype=dtype, device=device)
    a_plain = a.clone()
    a_sym = memory.empty((world * m, k), dtype)
    a_rows = a_sym[0][rank * m:(rank + 1) * m]
    a_rows.copy_(a)

    def nccl_mm():
        dist.all_gather_into_tensor(gathered, a)
        return gathered @ b

    def ours(algorithm):
        return lambda: weave.ops.all_gather_matmul(a_plain, b, "tp", algorithm)

    def ours_in_place(algorithm):
        return lambda: weave.ops.all_gather_matmul(a_rows, b, "tp", algorithm)

    def local_mm():
        return gathered @ b

    def theirs():
        # return_A=True keeps PyTorch off its multimem (multicast) path.
        _, outs = torch.ops.symm_mem.fused_all_gather_matmul(
            a, [b], gather_dim=0, group_name=group_name, return_A=True)
        return outs[0]

    reference = nccl_mm().double()
    cases = []
    for algorithm in args.algorithms:
        cases += [(f"weave {algorithm}", ours(algorithm)),
                  (f"weave {algorithm} in place", ours_in_place(algorithm))]
    cases += [("torch", theirs), ("local mm", local_mm)]
    errors = []
    for _, fn in cases:
        got = fn().double()
        errors.append(((got - reference).norm() / reference.norm()).item())
    torch.cuda.synchronize()
    worst = torch.tensor(errors, dtype=torch.float64, device=device)
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)
    row["rel"] = dict(zip((key for key, _ in cases), worst.tolist()))
    del reference
    for key, fn in cases:
        row[key] = time_iterations(fn, args.iters, args.warmup, device)
        row[key + "_graph"] = None
        if args.no_graph:
            continue
        graph, error = capture(fn, device)
        if graph is None:
            row["notes"].append(f"{key} graph: {error}")
            continue
        row[key + "_graph"] = time_iterations(graph.replay, args.iters, args.warmup, device)
        del graph
    torch.cuda.synchronize()
    dist.barrier()
    return row


def body(args, rank, world, device, group_name, symm_mem):
    import weave
    import weave.ops
    team = weave.team_from_process_group()
    # The gathered A (world x m_shard x K) of each op (the ring's staging,
    # gather's gathered rows; one op per shape and algorithm) and
    # of the in-place symmetric tensor.
    staging = ((len(args.algorithms) + 1) * len(args.dtypes)
               * sum(world * m * args.k * 2 for m in args.m_shards))
    memory = weave.SymmetricMemory.from_torch(team, dist.group.WORLD, staging + (64 << 20))
    weave.ops.register_group("tp", weave.ops.Collectives(team, memory, args.kernels))
    rows = []
    for dtype_name in args.dtypes:
        for m in args.m_shards:
            log(rank, f"torch_weave_vs_fused: m_shard {m} {dtype_name} on {world} GPUs ...")
            rows.append(run_case(args, rank, world, device, group_name, symm_mem,
                                 memory, dtype_name, m))
    if rank != 0:
        return 0
    print(f"\nweave.ops.all_gather_matmul vs torch.ops.symm_mem.fused_all_gather_matmul, "
          f"PyTorch {torch.__version__}, {world} x {torch.cuda.get_device_name(device)}; "
          f"K={args.k}, n_shard={args.n_shard}")
    # Per weave algorithm: its graph times (eager where no graph was
    # captured), PyTorch's over it (> 1: weave faster) and it over local
    # cuBLAS of the whole product.
    header = ["m_shard", "D", "dtype", "torch graph ms", "local mm graph ms"]
    for algorithm in args.algorithms:
        header += [f"weave {algorithm} graph ms", f"{algorithm} in place graph ms",
                   f"torch / {algorithm}", f"torch / {algorithm} in place",
                   f"{algorithm} / local mm"]
    header += ["worst rel err"]
    table = []
    best = lambda r, key: r[key + "_graph"] or r[key]  # noqa: E731
    for r in rows:
        line = [str(r["m_shard"]), str(r["D"]), r["dtype"],
                fmt(best(r, "torch")), fmt(best(r, "local mm"))]
        for algorithm in args.algorithms:
            plain, placed = best(r, f"weave {algorithm}"), best(r, f"weave {algorithm} in place")
            line += [fmt(plain), fmt(placed), f"{best(r, 'torch') / plain:.2f}",
                     f"{best(r, 'torch') / placed:.2f}",
                     f"{plain / best(r, 'local mm'):.2f}"]
        line.append(f"{max(r['rel'].values()):.2e}")
        table.append(line)
    print(markdown(header, table))
    for r in rows:
        for note in r["notes"]:
            print(f"note: m_shard {r['m_shard']} {r['dtype']}: {note}")
    bad = [r for r in rows if not all(e < 1e-2 for e in r["rel"].values())]
    if bad:
        print(f"torch_weave_vs_fused: {len(bad)} case(s) differ from NCCL + mm by 1e-2 or more")
        return 1
    return 0


def main():
    return launch(parse_args(), body, "torch_weave_vs_fused")


if __name__ == "__main__":
    sys.exit(main())
