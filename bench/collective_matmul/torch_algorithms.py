#!/usr/bin/env python3
"""Each algorithm of weave's fused matmul ops, by name, at given shapes.

On D GPUs of one host, one process per GPU (torchrun, or mp.spawn with
--nproc): for every all-gather matmul shape m_shard:k:n, weave's "ring",
"gather", "copy_engine" and "auto" beside PyTorch's fused_all_gather_matmul and local
cuBLAS of the whole gathered product; for every GEMM + reduce-scatter
shape, weave's "copy_engine", "scatter", "owner_slots", "input_gather" and "auto"
beside PyTorch's
fused_matmul_reduce_scatter, NCCL (mm + reduce_scatter_tensor) and local
cuBLAS of the member's partial product. What the rules of
AllGatherMatmul::choose and MatmulReduceScatter::choose were fitted on
(docs/PERF.md, "Where b does not stay in the L2" and "The GEMM +
reduce-scatter's small shards"). Every output is checked against NCCL +
matmul first (relative Frobenius error, worst rank); then each case is
captured in a CUDA graph and timed: CUDA events around each of --iters
replays after warm-up, the slowest rank's median, best of --rounds
rounds in rotated order. bf16 (the GEMM + RS's "scatter" takes bf16 only).

  torchrun --nproc-per-node=4 bench/collective_matmul/torch_algorithms.py \\
      --kernels BUNDLE_DIR --agm 256:8192:14336,512:4096:7168 \\
      --mrs 128:7168:8192,512:4096:4096

Kernels come from the JIT (--kernels jit, a build with the compiler) or a
folder of bundles (bench/gpu_libs.sh op_bundle with each algorithm: it
stages the all-gather and reduce-scatter companions too). Each op group
holds its ops' semaphores in one signal pad: many shapes in one run may
need a larger --signal-pad. Needs 2 GPUs: with fewer it prints the reason
and exits 0. NVLink multicast stays off.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_args import add_seconds_argument, check_seconds  # noqa: E402


AGM_ALGORITHMS = ("ring", "gather", "copy_engine", "auto")
MRS_ALGORITHMS = ("copy_engine", "scatter", "owner_slots", "input_gather", "auto")


def shapes(text):
    out = []
    for item in (x for x in text.split(",") if x):
        parts = item.split(":")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise SystemExit(f"torch_algorithms: a shape is m_shard:k:n, got '{item}'")
        out.append(tuple(int(p) for p in parts))
    return out


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", default="jit", help="'jit', or the folder of op bundles")
    p.add_argument("--agm", default="", help="all-gather matmul shapes m_shard:k:n,...")
    p.add_argument("--mrs", default="", help="GEMM + reduce-scatter shapes m_shard:k:n,...")
    p.add_argument("--algorithms", default="",
                   help="only these algorithms (comma-separated; default: every one of each op)")
    p.add_argument("--dtype", choices=("bf16", "f16"), default="bf16",
                   help="the inputs' and outputs' dtype (f16: no \"scatter\", "
                        "whose reduce-scatter sums bf16 or f32)")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    add_seconds_argument(p, "--iters/--warmup/--rounds")
    p.add_argument("--signal-pad", type=int, default=1 << 20,
                   help="bytes of weave's signal pad (every op's semaphores)")
    p.add_argument("--nproc", type=int, default=2,
                   help="GPUs when not started by torchrun (mp.spawn)")
    args = p.parse_args(argv)
    args.agm, args.mrs = shapes(args.agm), shapes(args.mrs)
    only = [a for a in args.algorithms.split(",") if a]
    unknown = [a for a in only if a not in AGM_ALGORITHMS + MRS_ALGORITHMS]
    if unknown:
        p.error(f"unknown algorithm(s) {', '.join(unknown)}; "
                f"known: {', '.join(AGM_ALGORITHMS + MRS_ALGORITHMS)}")
    args.agm_algorithms = tuple(a for a in AGM_ALGORITHMS if not only or a in only)
    args.mrs_algorithms = tuple(a for a in MRS_ALGORITHMS if not only or a in only)
    if args.dtype == "f16":
        args.mrs_algorithms = tuple(a for a in args.mrs_algorithms if a != "scatter")
    if (args.agm and not args.agm_algorithms) or (args.mrs and not args.mrs_algorithms):
        p.error("--algorithms leaves an op with shapes but no algorithm")
    if not args.agm and not args.mrs:
        p.error("give --agm or --mrs shapes")
    check_seconds(p, args)
    return args


if __name__ == "__main__":
    # --help and wrong arguments answer before torch is imported (a
    # machine without torch, CI's, can still read them).
    parse_args()

from torch_common import capture, launch, log, markdown, time_versions, uniform  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def check_and_time(cases, reference, args, device):
    """Worst relative error against `reference` over the checked cases
    (every rank), then the best of args.rounds medians of graph replays (or
    one median over about args.seconds each)."""
    worst = 0.0
    for _, fn, checked in cases:
        if checked:
            got = fn().double()
            worst = max(worst, ((got - reference).norm() / reference.norm()).item())
    error = torch.tensor([worst], dtype=torch.float64, device=device)
    dist.all_reduce(error, op=dist.ReduceOp.MAX)
    graphs = {}
    for key, fn, _ in cases:
        graph, why = capture(fn, device)
        if graph is None:
            raise RuntimeError(f"{key}: {why}")
        graphs[key] = graph
    timed = time_versions([(key, graphs[key].replay) for key, _, _ in cases], device,
                          args.seconds, args.rounds, args.iters, args.warmup)
    return {key: ms for key, (ms, _) in timed.items()}, error.item()


def body(args, rank, world, device, group_name, symm_mem):
    import weave
    import weave.ops
    team = weave.team_from_process_group()
    dt = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    # One shape's ops at a time (released after it): per all-gather matmul
    # shape, three ops' gathered rows and the in-place rows; per GEMM + RS
    # shape, each algorithm's slots or partials ("auto" is an op of its own).
    need = max([4 * world * m * k * 2 for m, k, n in args.agm]
               + [5 * world * m * n * 2 for m, k, n in args.mrs])
    memory = weave.SymmetricMemory.from_torch(team, dist.group.WORLD, need + (256 << 20),
                                              signal_pad_bytes=args.signal_pad)
    collectives = weave.ops.Collectives(team, memory, args.kernels)
    weave.ops.register_group("algorithms", collectives)
    rows = []
    for m, k, n in args.agm:
        log(rank, f"torch_algorithms: all-gather matmul {m}x{k}x{n} on {world} GPUs ...")
        a = symm_mem.empty(m, k, dtype=dt, device=device)
        a.copy_(uniform((m, k), 1000 + rank, dt, device))
        symm_mem.rendezvous(a, group_name)
        b = uniform((k, n), 2000 + rank, dt, device)
        plain = a.clone()
        gathered = torch.empty(world * m, k, dtype=dt, device=device)
        dist.all_gather_into_tensor(gathered, a)
        reference = (gathered @ b).double()
        cases = [("torch", lambda: torch.ops.symm_mem.fused_all_gather_matmul(
                     a, [b], gather_dim=0, group_name=group_name, return_A=True)[1][0], True),
                 ("local mm", lambda: gathered @ b, True)]
        for algorithm in args.agm_algorithms:
            cases.append((algorithm, lambda algorithm=algorithm: weave.ops.all_gather_matmul(
                plain, b, "algorithms", algorithm), True))
        best, error = check_and_time(cases, reference, args, device)
        rows.append(("all_gather_matmul", m, k, n, best, error, args.agm_algorithms,
                     weave._core.matmul_op_algorithm("all_gather_matmul", world, args.dtype,
                                                     m, k, n)))
        del reference, cases
        collectives.release()  # the graphs are gone; the next shape's ops get the heap
    for m, k, n in args.mrs:
        log(rank, f"torch_algorithms: GEMM + reduce-scatter {m}x{k}x{n} on {world} GPUs ...")
        h = uniform((world * m, k), 3000 + rank, dt, device)
        w = uniform((k, n), 4000 + rank, dt, device)

        def nccl():
            out = torch.empty(m, n, dtype=dt, device=device)
            dist.reduce_scatter_tensor(out, h @ w)
            return out
        reference = nccl().double()
        cases = [("torch", lambda: torch.ops.symm_mem.fused_matmul_reduce_scatter(
                     h, w, "sum", scatter_dim=0, group_name=group_name), True),
                 ("local mm", lambda: h @ w, False),  # the partial product
                 ("nccl", nccl, True)]
        for algorithm in args.mrs_algorithms:
            cases.append((algorithm, lambda algorithm=algorithm: weave.ops.matmul_reduce_scatter(
                h, w, "algorithms", algorithm), True))
        best, error = check_and_time(cases, reference, args, device)
        rows.append(("matmul_reduce_scatter", m, k, n, best, error, args.mrs_algorithms,
                     weave._core.matmul_op_algorithm("matmul_reduce_scatter", world, args.dtype,
                                                     m, k, n)))
        del reference, cases
        collectives.release()
    if rank != 0:
        return 0
    print(f"\nweave's fused matmul algorithms, PyTorch {torch.__version__}, {world} x "
          f"{torch.cuda.get_device_name(device)}, {args.dtype}, CUDA graphs, ms")
    for op in ("all_gather_matmul", "matmul_reduce_scatter"):
        mine = [r for r in rows if r[0] == op]
        if not mine:
            continue
        keys = list(mine[0][4].keys())
        # What "auto" ran at each shape (the op's rule, weave._core).
        header = ["op", "D", "m_shard", "k", "n"] + keys + \
            [f"torch / {a}" for a in mine[0][6]] + ["auto runs", "worst rel err"]
        table = [[op, str(world), str(m), str(k), str(n)]
                 + [f"{best[key]:.4f}" for key in keys]
                 + [f"{best['torch'] / best[a]:.2f}" for a in algorithms]
                 + [chosen, f"{error:.1e}"]
                 for _, m, k, n, best, error, algorithms, chosen in mine]
        print(markdown(header, table))
    bad = [r for r in rows if r[5] >= 2e-2]
    if bad:
        print(f"torch_algorithms: {len(bad)} shape(s) differ from NCCL + mm by 2e-2 or more")
        return 1
    return 0


def main():
    return launch(parse_args(), body, "torch_algorithms")


if __name__ == "__main__":
    sys.exit(main())
