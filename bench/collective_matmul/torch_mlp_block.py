#!/usr/bin/env python3
"""A tensor-parallel MLP block's forward pass: Weave's ops against PyTorch's.

On D GPUs of one host, one process per GPU (torchrun), a sequence-parallel
SwiGLU MLP block of an 8B (hidden 4096, intermediate 14336) and a 70B
(hidden 8192, intermediate 28672) Llama-style model: each rank holds its
rows of the activations x [tokens / D, hidden], the column shard of the
fused gate/up weight [hidden, 2 * intermediate / D] and the row shard of the
down weight [intermediate / D, hidden], and computes its rows of the
block's output [tokens / D, hidden]:

  y = AllGather(x) @ w_gate_up        the gate/up projection
  h = silu(y[:, :I/D]) * y[:, I/D:]   the activation
  out = ReduceScatter(h @ w_down)     the down projection

three ways, each replayed from a CUDA graph:
  weave   weave.ops.all_gather_matmul (x lives in symmetric memory: its rows
          of a weave.SymmetricTensor, so the op copies nothing) and
          weave.ops.matmul_reduce_scatter;
  torch   torch.ops.symm_mem.fused_all_gather_matmul and
          fused_matmul_reduce_scatter (PyTorch's async-TP ops, on its own
          symmetric memory, multicast off);
  nccl    all_gather_into_tensor + mm, mm + reduce_scatter_tensor (NCCL and
          cuBLAS).
The outputs are checked against nccl's (relative Frobenius error in float64,
worst rank). Times: CUDA events around each of N graph replays after
warm-up, the longest rank, the median.

  torchrun --nproc-per-node=D bench/collective_matmul/torch_mlp_block.py \\
      --kernels BUNDLE_DIR [--models 8b,70b] [--tokens 8192] [--dtype bf16]

Kernels: 'jit' (a weave build with the compiler) or a folder of the ops'
bundles made ahead of time (weave-ops source + weavec; `--print-ops` lists
the ops and shapes it needs, one `weave-ops` argument list per line).
NVLink multicast stays off (TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_args import add_seconds_argument, check_seconds  # noqa: E402

MODELS = {"8b": (4096, 14336), "70b": (8192, 28672)}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="8b,70b")
    p.add_argument("--tokens", default="8192",
                   help="tokens of the batch (all ranks), comma-separated; "
                        "tokens / D must be a multiple of 128")
    p.add_argument("--dtype", default="bf16", choices=["f16", "bf16"])
    p.add_argument("--kernels", default="jit",
                   help="'jit', or the folder of weave's op bundles")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds of every version, each in a rotated order; the "
                        "best round counts (the GPU's clocks drift with what ran "
                        "before, so one fixed order favours some versions)")
    add_seconds_argument(p, "--iters/--warmup/--rounds")
    p.add_argument("--nproc", type=int, default=2,
                   help="GPUs when not started by torchrun (mp.spawn)")
    p.add_argument("--parts", action="store_true",
                   help="also time the two collective matmuls of each version alone")
    p.add_argument("--agm-algorithm", default="auto",
                   help="weave's all-gather matmul algorithm (auto, ring, gather, "
                        "copy_engine): an A/B of the block under one choice")
    p.add_argument("--mrs-algorithm", default="auto",
                   help="weave's GEMM + reduce-scatter algorithm (auto, "
                        "copy_engine, scatter, owner_slots)")
    p.add_argument("--print-ops", type=int, metavar="D", default=0,
                   help="print the weave-ops argument lists the block needs on "
                        "D GPUs and exit")
    args = p.parse_args(argv)
    args.models = [m for m in args.models.split(",") if m]
    for m in args.models:
        if m not in MODELS:
            p.error(f"unknown model {m} ({', '.join(MODELS)})")
    args.tokens = [int(t) for t in args.tokens.split(",") if t]
    check_seconds(p, args)
    return args


def shapes(model, tokens, world):
    hidden, inter = MODELS[model]
    return dict(hidden=hidden, inter=inter, m=tokens // world,
                up_n=2 * inter // world, down_k=inter // world)


def print_ops(args):
    for model in args.models:
        for tokens in args.tokens:
            s = shapes(model, tokens, args.print_ops)
            d = args.print_ops
            print(f"all_gather_matmul --team-size {d} --dtype {args.dtype} "
                  f"--m-shard {s['m']} --k {s['hidden']} --n {s['up_n']} "
                  f"--algorithm {args.agm_algorithm}")
            print(f"matmul_reduce_scatter --team-size {d} --dtype {args.dtype} "
                  f"--m-shard {s['m']} --k {s['down_k']} --n {s['hidden']} "
                  f"--algorithm {args.mrs_algorithm}")
    return 0


def run_case(args, rank, world, device, group_name, symm_mem, memory, model, tokens):
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    import weave.ops
    from torch_common import capture, time_versions, uniform

    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    s = shapes(model, tokens, world)
    m, hidden, up_n, down_k = s["m"], s["hidden"], s["up_n"], s["down_k"]
    row = {"model": model, "tokens": tokens, "D": world, "notes": []}
    scale = hidden ** -0.5
    x_rows = uniform((m, hidden), 100 + rank, dtype, device)
    w_gu = (uniform((hidden, up_n), 200 + rank, torch.float32, device) * scale).to(dtype)
    w_down = (uniform((down_k, hidden), 300 + rank, torch.float32, device)
              * down_k ** -0.5).to(dtype)

    # Weave: x is this rank's rows of a symmetric tensor of all the rows.
    x_sym = memory.empty((world * m, hidden), dtype)
    x_weave = x_sym[0][rank * m:(rank + 1) * m]
    x_weave.copy_(x_rows)
    # PyTorch: x in its own symmetric memory.
    x_torch = symm_mem.empty(m, hidden, dtype=dtype, device=device)
    x_torch.copy_(x_rows)
    symm_mem.rendezvous(x_torch, group_name)
    gathered = torch.empty(world * m, hidden, dtype=dtype, device=device)
    nccl_out = torch.empty(m, hidden, dtype=dtype, device=device)

    def act(y):
        return F.silu(y[:, :down_k]) * y[:, down_k:]

    def nccl():
        dist.all_gather_into_tensor(gathered, x_rows)
        h = act(gathered @ w_gu)
        dist.reduce_scatter_tensor(nccl_out, h @ w_down)
        return nccl_out

    def ours():
        return rs_weave_of(act(weave.ops.all_gather_matmul(
            x_weave, w_gu, "tp", args.agm_algorithm)))()

    def theirs():
        # return_A=True keeps PyTorch off its multimem (multicast) path.
        _, outs = torch.ops.symm_mem.fused_all_gather_matmul(
            x_torch, [w_gu], gather_dim=0, group_name=group_name, return_A=True)
        return rs_torch_of(act(outs[0]))()

    def ag_weave():
        return weave.ops.all_gather_matmul(x_weave, w_gu, "tp", args.agm_algorithm)

    def ag_torch():
        return torch.ops.symm_mem.fused_all_gather_matmul(
            x_torch, [w_gu], gather_dim=0, group_name=group_name, return_A=True)[1][0]

    def rs_weave_of(h):
        return lambda: weave.ops.matmul_reduce_scatter(h, w_down, "tp",
                                                       args.mrs_algorithm)

    def rs_torch_of(h):
        return lambda: torch.ops.symm_mem.fused_matmul_reduce_scatter(
            h, w_down, "sum", scatter_dim=0, group_name=group_name)

    def cublas_of(lhs, rhs):
        return lambda: lhs @ rhs

    reference = nccl().double()
    errors = []
    for fn in (ours, theirs):
        got = fn().double()
        errors.append(((got - reference).norm() / reference.norm()).item())
    torch.cuda.synchronize()
    worst = torch.tensor(errors, dtype=torch.float64, device=device)
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)
    row["rel_weave"], row["rel_torch"] = worst.tolist()
    del reference
    timed = [("weave", ours), ("torch", theirs), ("nccl", nccl)]
    if args.parts:
        # The block's two collective matmuls alone: where the block's time
        # goes, each beside local cuBLAS of its whole product (the reference
        # of issues #31 and #32), the down projection also on uniform inputs
        # (what weave_bench_matmul_reduce_scatter and torch_fused.py feed
        # it). h_in only now that nccl() has gathered x: made before, it was
        # the activations of torch.empty's bytes (zeros or stale), and the
        # "block" rows of every table before 2026-11-28's twenty-fourth
        # session timed those (docs/PERF.md, "The block's activations").
        h_in = act(gathered @ w_gu)
        h_uni = uniform(tuple(h_in.shape), 400 + rank, dtype, device)
        timed += [("ag_weave", ag_weave), ("ag_torch", ag_torch),
                  ("ag_cublas", cublas_of(gathered, w_gu))]
        for suffix, h in (("", h_in), ("_u", h_uni)):
            timed += [("rs_weave" + suffix, rs_weave_of(h)), ("rs_torch" + suffix, rs_torch_of(h)),
                      ("rs_cublas" + suffix, cublas_of(h, w_down))]
    runs = []
    for key, fn in timed:
        graph, error = capture(fn, device)
        if graph is None:
            row["notes"].append(f"{key} graph: {error}; eager time")
            runs.append((key, fn, None))
        else:
            runs.append((key, graph.replay, graph))
    timed = time_versions([(key, fn) for key, fn, _ in runs], device,
                          args.seconds, args.rounds, args.iters, args.warmup)
    for key, (ms, _) in timed.items():
        row[key] = ms
    del runs
    torch.cuda.synchronize()
    dist.barrier()
    return row


def body(args, rank, world, device, group_name, symm_mem):
    import torch
    import torch.distributed as dist
    import weave
    import weave.ops
    from torch_common import log, markdown

    team = weave.team_from_process_group()
    # Weave's ops hold their workspace (the all-gather matmul's staging of the
    # gathered rows, the reduce-scatter's accumulator) per shape, and each
    # case's x: a generous heap.
    need = 0
    for model in args.models:
        for tokens in args.tokens:
            s = shapes(model, tokens, world)
            need += 2 * world * s["m"] * s["hidden"] * 2          # x + staging
            need += (s["m"] + 64) * s["hidden"] * 4 * 2            # accumulator
    memory = weave.SymmetricMemory.from_torch(team, dist.group.WORLD, need + (256 << 20))
    weave.ops.register_group("tp", weave.ops.Collectives(team, memory, args.kernels))
    rows = []
    for model in args.models:
        for tokens in args.tokens:
            log(rank, f"torch_mlp_block: {model}, {tokens} tokens on {world} GPUs ...")
            rows.append(run_case(args, rank, world, device, group_name, symm_mem,
                                 memory, model, tokens))
    if rank != 0:
        return 0
    print(f"\nTP MLP block forward (CUDA graphs), PyTorch {torch.__version__}, "
          f"{world} x {torch.cuda.get_device_name(device)}, {args.dtype}")
    header = ["model", "tokens", "TP", "weave ms", "torch symm_mem ms", "NCCL + cuBLAS ms",
              "torch / weave", "NCCL / weave", "rel err weave", "rel err torch"]
    table = []
    for r in rows:
        table.append([r["model"], str(r["tokens"]), str(r["D"]), f"{r['weave']:.3f}",
                      f"{r['torch']:.3f}", f"{r['nccl']:.3f}",
                      f"{r['torch'] / r['weave']:.2f}", f"{r['nccl'] / r['weave']:.2f}",
                      f"{r['rel_weave']:.2e}", f"{r['rel_torch']:.2e}"])
    print(markdown(header, table))
    if args.parts:
        # "local cuBLAS": the whole product of the part on one GPU, no
        # communication (gathered rows @ w_gate_up; h @ w_down).
        header = ["model", "tokens", "TP", "part", "inputs", "weave ms", "torch ms",
                  "local cuBLAS ms", "weave / cuBLAS", "torch / weave"]
        table = []
        for r in rows:
            for part, inputs, ours, theirs, local in (
                    ("all-gather matmul", "block", "ag_weave", "ag_torch", "ag_cublas"),
                    ("matmul reduce-scatter", "block", "rs_weave", "rs_torch", "rs_cublas"),
                    ("matmul reduce-scatter", "uniform", "rs_weave_u", "rs_torch_u",
                     "rs_cublas_u")):
                ours, theirs, local = r[ours], r[theirs], r[local]
                table.append([r["model"], str(r["tokens"]), str(r["D"]), part, inputs,
                              f"{ours:.3f}", f"{theirs:.3f}", f"{local:.3f}",
                              f"{ours / local:.3f}", f"{theirs / ours:.2f}"])
        print(markdown(header, table))
    for r in rows:
        for note in r["notes"]:
            print(f"note: {r['model']} {r['tokens']}: {note}")
    bad = [r for r in rows if not (r["rel_weave"] < 2e-2 and r["rel_torch"] < 2e-2)]
    if bad:
        print(f"torch_mlp_block: {len(bad)} case(s) differ from NCCL + cuBLAS by 2e-2 or more")
        return 1
    return 0


def main():
    args = parse_args()
    if args.print_ops:
        return print_ops(args)
    from torch_common import launch
    return launch(args, body, "torch_mlp_block")


if __name__ == "__main__":
    sys.exit(main())
