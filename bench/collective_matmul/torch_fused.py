#!/usr/bin/env python3
"""PyTorch references for C = AllGather(A) @ B (bench/collective_matmul).

Times, on D GPUs of one host, for every m_shard and dtype:
  fused       torch.ops.symm_mem.fused_all_gather_matmul (PyTorch's
              async-TP all-gather matmul over symmetric memory; A's shard
              is a symmetric-memory tensor), eager and replayed from a CUDA
              graph;
  NCCL + mm   dist.all_gather_into_tensor, then torch.matmul on the
              gathered A, eager and from a CUDA graph.
Each rank's shard of A is [m_shard, K], its column shard of B [K, n_shard];
every rank computes [D * m_shard, n_shard]. CUDA events around each of N
back-to-back iterations after warm-up; an iteration's time is the longest
rank's (all_reduce MAX); the median is reported. The fused result is checked
against the NCCL + mm one.

Run one process per GPU, either way:
  torchrun --nproc-per-node=2 bench/collective_matmul/torch_fused.py
  python3 bench/collective_matmul/torch_fused.py --nproc 2      (mp.spawn)
NVLink multicast stays off (TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1); the script refuses to run the
fused op if PyTorch still reports multicast support.
"""

import argparse
import os
import sys

# The shared helpers (bench/torch_common.py) set the multicast-off
# environment before torch loads.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--m-shards", default="1024,2048,4096,8192",
                   help="rows of A per rank, comma-separated")
    p.add_argument("--k", type=int, default=4096)
    p.add_argument("--n-shard", type=int, default=4096,
                   help="columns of B per rank")
    p.add_argument("--dtype", default="all", choices=["f16", "bf16", "all"])
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--nproc", type=int, default=2,
                   help="GPUs when not started by torchrun (mp.spawn)")
    p.add_argument("--no-graph", action="store_true",
                   help="skip the CUDA graph timings")
    args = p.parse_args(argv)
    args.m_shards = [int(x) for x in args.m_shards.split(",") if x]
    args.dtypes = ["f16", "bf16"] if args.dtype == "all" else [args.dtype]
    return args


if __name__ == "__main__":
    # --help and wrong arguments answer before torch is imported (a
    # machine without torch, CI's, can still read them).
    parse_args()

from torch_common import (compare_and_time, fmt, launch, log,  # noqa: E402
                          markdown, uniform)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def run_case(args, rank, world, device, group_name, symm_mem, dtype_name, m):
    dtype = DTYPES[dtype_name]
    k, n = args.k, args.n_shard
    row = {"m_shard": m, "D": world, "dtype": dtype_name}

    a_shard = symm_mem.empty(m, k, dtype=dtype, device=device)
    a_shard.copy_(uniform((m, k), 1000 + rank, dtype, device))
    symm_mem.rendezvous(a_shard, group_name)
    b = uniform((k, n), 2000 + rank, dtype, device)
    gathered = torch.empty(world * m, k, dtype=dtype, device=device)
    out = torch.empty(world * m, n, dtype=dtype, device=device)

    def nccl_mm():
        dist.all_gather_into_tensor(gathered, a_shard)
        torch.matmul(gathered, b, out=out)
        return out

    def fused():
        # return_A=True keeps PyTorch off its multimem (multicast) path,
        # which it only takes when the gathered A is not returned.
        _, outs = torch.ops.symm_mem.fused_all_gather_matmul(
            a_shard, [b], gather_dim=0, group_name=group_name, return_A=True)
        return outs[0]

    return compare_and_time(row, fused, nccl_mm, args, device)


def print_table(args, rows, world, device_name):
    print(f"\nPyTorch {torch.__version__}: fused_all_gather_matmul vs NCCL "
          f"all_gather_into_tensor + matmul, {world} x {device_name}; "
          f"K={args.k}, n_shard={args.n_shard}")
    print(f"timing: CUDA events around each of {args.iters} back-to-back "
          f"iterations after {args.warmup} warm-up ones, longest rank, median")
    header = ["m_shard", "D", "dtype", "fused ms", "fused graph ms",
              "NCCL+mm ms", "NCCL+mm graph ms",
              "speed-up (NCCL+mm / fused, graphs where captured)", "fused graph TFLOP/s/GPU",
              "rel err fused vs NCCL+mm"]
    table = [header]
    for r in rows:
        best_fused = r["fused_graph"] or r["fused"]
        best_nccl = r["nccl_graph"] or r["nccl"]
        flops = 2.0 * r["D"] * r["m_shard"] * args.k * args.n_shard
        table.append([
            str(r["m_shard"]), str(r["D"]), r["dtype"], fmt(r["fused"]),
            fmt(r["fused_graph"]), fmt(r["nccl"]), fmt(r["nccl_graph"]),
            f"{best_nccl / best_fused:.2f}",
            f"{flops / (best_fused * 1e-3) / 1e12:.1f}",
            f"{r['rel']:.2e}"])
    print(markdown(header, table[1:]))
    for r in rows:
        for note in r["notes"]:
            print(f"note: m_shard {r['m_shard']} {r['dtype']}: {note}")


def body(args, rank, world, device, group_name, symm_mem):
    rows = []
    for dtype_name in args.dtypes:
        for m in args.m_shards:
            log(rank, f"torch_fused: m_shard {m} {dtype_name} on {world} "
                      "GPUs ...")
            rows.append(run_case(args, rank, world, device, group_name,
                                 symm_mem, dtype_name, m))
    if rank == 0:
        print_table(args, rows, world, torch.cuda.get_device_name(device))
        bad = [r for r in rows if not r["rel"] < 1e-2]
        if bad:
            print(f"torch_fused: {len(bad)} case(s) where the fused result "
                  "differs from NCCL + mm by 1e-2 or more")
            return 1
    return 0


def main():
    return launch(parse_args(), body, "torch_fused")


if __name__ == "__main__":
    sys.exit(main())
