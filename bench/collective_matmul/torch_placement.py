#!/usr/bin/env python3
"""Does the GEMM + reduce-scatter's time depend on where its input lives?

One shape, weave.ops.matmul_reduce_scatter (its "auto" algorithm) beside
PyTorch's fused_matmul_reduce_scatter and torch.mm of the partial product,
on inputs that differ only in their values or only in their allocation:
the MLP block's activations as computed (silu(x W_g) * (x W_u)), a clone
and a shuffle of them, scaled copies, uniform and normal inputs, and (with
--placed) copies of the activations at offsets 0, 512 B, 4 KiB, 64 KiB and
1 MiB past a 2 MiB boundary of one large allocation. Every version in CUDA
graphs, 3 rounds in rotated order, the best round of medians of 20 replays,
the slowest rank (docs/PERF.md, "The GEMM + RS's speed depends on which
allocation holds a": a clone of the same values ran 10-15% slower than the
original tensor, for Weave's op and at times PyTorch's).

  torchrun --nproc-per-node=2 bench/collective_matmul/torch_placement.py \\
      --m 1024 --kernels DIR          # 70B down projection, 2048 tokens, TP 2
  (or --nproc 2 without torchrun; DIR: the op bundles, e.g. those that
  `MLP_ARGS="--tokens 2048" bench/collective_matmul/mlp_block_on_gpu.sh
  --stage build CARRY 2` stages into CARRY/mlp, or "jit")
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_args import add_seconds_argument, check_seconds  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--m", type=int, default=1024, help="m_shard: rows of c per member")
    p.add_argument("--hidden", type=int, default=8192, help="n: the model's hidden size")
    p.add_argument("--inter", type=int, default=28672,
                   help="the model's intermediate size (k is inter / D)")
    p.add_argument("--kernels", default="jit", help="'jit', or the folder of op bundles")
    p.add_argument("--nproc", type=int, default=2,
                   help="GPUs when not started by torchrun (mp.spawn)")
    p.add_argument("--placed", action="store_true",
                   help="only the activations, a clone and the placed copies")
    p.add_argument("--rounds", type=int, default=3)
    add_seconds_argument(p, "--rounds bursts of 20 replays after 5")
    p.add_argument("--clocks", action="store_true",
                   help="beside each time, the SM clock and power draw over it "
                        "(nvidia-smi every 50 ms: the lowest GPU's median MHz, the "
                        "highest's median W) and Mcycles = ms x MHz / 1000; best "
                        "with --seconds")
    args = p.parse_args(argv)
    check_seconds(p, args)
    if args.m <= 0 or args.m % 128:
        p.error(f"--m must be a positive multiple of 128, got {args.m}")
    return args


def body(args, rank, world, device, group_name, symm_mem):
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    import weave
    import weave.ops
    from torch_common import ClockSampler, capture, log, time_versions, uniform, visible_gpu_indices
    if args.inter % world:
        raise SystemExit(f"torch_placement: --inter {args.inter} does not split over {world}")
    team = weave.team_from_process_group()
    m, hidden, down_k = args.m, args.hidden, args.inter // world
    rows = world * m
    dt = torch.bfloat16
    memory = weave.SymmetricMemory.from_torch(team, dist.group.WORLD,
                                              6 * rows * hidden * 2 + (512 << 20))
    weave.ops.register_group("placement", weave.ops.Collectives(team, memory, args.kernels))
    x = uniform((rows, hidden), 100, dt, device)
    w_gu = (uniform((hidden, 2 * down_k), 200 + rank, torch.float32, device)
            * hidden ** -0.5).to(dt)

    def act(y):
        return F.silu(y[:, :down_k]) * y[:, down_k:]
    acts = act(x @ w_gu)
    w = (uniform((down_k, hidden), 300 + rank, torch.float32, device) * down_k ** -0.5).to(dt)
    gen = torch.Generator(device=device)
    gen.manual_seed(5)
    perm = torch.randperm(acts.numel(), device=device, generator=gen)
    uni = uniform(tuple(acts.shape), 400 + rank, dt, device)
    gen.manual_seed(7 + rank)
    inputs = {"activations": acts, "activations, clone": acts.clone()}
    if not args.placed:
        # silu(g) u of independent g, u with the gate's variance (1/9):
        # uniform as weave_bench_matmul --data mlp draws them, and normal as
        # x W_g is; each rounded to bf16 first, as the block's y is.
        g_u = (uniform((rows, 2 * down_k), 500 + rank, dt, device).float() * 3 ** -0.5).to(dt)
        g_n = (torch.randn((rows, 2 * down_k), device=device, generator=gen) / 3).to(dt)
        inputs.update({
            "activations, recomputed": act(x @ w_gu),
            "silu of uniform": act(g_u),
            "silu of normal": act(g_n),
            "activations, shuffled": acts.flatten()[perm].view_as(acts).contiguous(),
            "activations x 64": (acts.float() * 64).to(dt),
            "uniform": uni,
            "uniform / 64": (uni.float() / 64).to(dt),
            "normal": (torch.randn(acts.shape, device=device, generator=gen)
                       * acts.float().std()).to(dt),
        })
        del g_u, g_n
    else:
        big = torch.empty(acts.numel() + (8 << 20), dtype=dt, device=device)
        lift = ((2 << 20) - big.data_ptr() % (2 << 20)) % (2 << 20)
        for off in (0, 512, 4096, 65536, 1 << 20):
            start = (lift + off) // 2
            view = big[start:start + acts.numel()].view_as(acts)
            view.copy_(acts)
            inputs[f"activations at 2 MiB + {off}"] = view
    runs = []
    for name, h in inputs.items():
        runs.append((name, "weave",
                     lambda h=h: weave.ops.matmul_reduce_scatter(h, w, "placement")))
        runs.append((name, "torch", lambda h=h: torch.ops.symm_mem.fused_matmul_reduce_scatter(
            h, w, "sum", scatter_dim=0, group_name=group_name)))
        runs.append((name, "mm", lambda h=h: h @ w))
    graphs = []
    for name, who, fn in runs:
        graph, error = capture(fn, device)
        if graph is None:
            log(rank, f"{name} {who}: no graph ({error}); eager")
        graphs.append((name, who, graph.replay if graph is not None else fn, graph))
    sampler = ClockSampler(visible_gpu_indices(world)) if args.clocks and rank == 0 else None
    timed = time_versions([((name, who), fn) for name, who, fn, _ in graphs], device,
                          args.seconds, args.rounds, iters=20, warmup=5)
    if sampler:
        sampler.stop()
    if rank == 0:
        how = (f"median over about {args.seconds:g} s each" if args.seconds > 0 else
               f"best of {max(args.rounds, 1)} rotated rounds")
        print(f"\nGEMM + reduce-scatter, m_shard {m} x k {down_k} x n {hidden}, D = {world}, "
              f"bf16, ms ({how}); flips: bits that differ between neighbours along k, "
              f"per element (rank 0's input)")
        whos = ("weave", "torch", "mm")
        head = ["input", "flips"]
        for who in whos:
            head += [who] + ([f"{who} MHz", f"{who} W", f"{who} Mcycles"] if args.clocks else [])
        print("| " + " | ".join(head + ["torch / weave"]) + " |")
        print("|" + "---|" * (len(head) + 1))
        for name, h in inputs.items():
            t = {who: timed[(name, who)][0] for who in whos}
            cells = [name, f"{bit_flips(h):.2f}"]
            for who in whos:
                cells.append(f"{t[who]:.4f}")
                if args.clocks:
                    window = timed[(name, who)][1]
                    c = sampler.window(*window) if sampler and window else None
                    cells += ([f"{c[0]:.0f}", f"{c[1]:.0f}", f"{t[who] * c[0] / 1000:.3f}"]
                              if c else ["-", "-", "-"])
            print("| " + " | ".join(cells + [f"{t['torch'] / t['weave']:.2f}"]) + " |")
    return 0


def bit_flips(h, rows=1024):
    """Mean count of bits that differ between neighbouring elements along a
    row (k) of a 16-bit tensor, over its first `rows` rows: a proxy of the
    switching the values cause in a matmul's datapath, which is what moves
    a power-limited clock."""
    import torch
    bits = h[:rows].contiguous().view(torch.int16).to(torch.int32) & 0xFFFF
    diff = bits[:, 1:] ^ bits[:, :-1]
    count = torch.zeros_like(diff)
    for b in range(16):
        count += (diff >> b) & 1
    return count.float().mean().item()


def main():
    args = parse_args()
    # (torch only past the arguments: --help needs none.)
    from torch_common import launch
    return launch(args, body, "torch_placement")


if __name__ == "__main__":
    sys.exit(main())
