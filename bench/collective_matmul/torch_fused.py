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

import os

# Never NVLink multicast: set before torch (and NCCL, NVSHMEM) load.
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import argparse
import datetime
import socket
import statistics
import sys
import traceback
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


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


def log(rank, *what):
    if rank == 0:
        print(*what, flush=True)


def multicast_supported(device_index):
    """Whether PyTorch would use NVLink multicast on this device."""
    try:
        from torch._C._autograd import DeviceType
        from torch._C._distributed_c10d import _SymmetricMemory
        return bool(_SymmetricMemory.has_multicast_support(DeviceType.CUDA,
                                                           device_index))
    except (ImportError, AttributeError, RuntimeError):
        return False


def setup_symmetric_memory(group_name):
    """Imports torch's symmetric memory, CUDA backend, enabled for the group."""
    import torch.distributed._symmetric_memory as symm_mem
    try:
        symm_mem.set_backend("CUDA")  # not NVSHMEM / NCCL windows
    except (AttributeError, RuntimeError, ValueError):
        pass  # older PyTorch: CUDA is the only backend
    enable = getattr(symm_mem, "enable_symm_mem_for_group", None)
    if enable is not None:  # deprecated (not needed) in newer PyTorch
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            enable(group_name)
    return symm_mem


def time_iterations(fn, iters, warmup, device):
    """Median over iterations of the longest rank's CUDA-event time, in ms."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    dist.barrier()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = torch.tensor([s.elapsed_time(e) for s, e in zip(starts, ends)],
                         dtype=torch.float64, device=device)
    dist.all_reduce(times, op=dist.ReduceOp.MAX)
    return statistics.median(times.tolist())


def capture(fn, device):
    """A CUDA graph of fn() (warmed up on a side stream first), or the error.

    Every rank learns whether every rank captured, so that none replays a
    graph whose peers would never answer.
    """
    graph, error = None, None
    try:
        side = torch.cuda.Stream(device)
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        try:  # NCCL's watchdog thread must not invalidate the capture
            context = torch.cuda.graph(graph, capture_error_mode="thread_local")
        except TypeError:  # older PyTorch
            context = torch.cuda.graph(graph)
        with context:
            fn()
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - reported in the table
        graph, error = None, f"{type(e).__name__}: {e}".splitlines()[0][:120]
    ok = torch.tensor([0 if graph is None else 1], device=device)
    dist.all_reduce(ok, op=dist.ReduceOp.MIN)
    if ok.item() == 0:
        return None, error or "another rank failed to capture"
    return graph, None


def uniform(shape, seed, dtype, device):
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return (torch.rand(shape, generator=g, device=device, dtype=torch.float32)
            * 2 - 1).to(dtype)


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

    reference = nccl_mm().double()
    got = fused().double()
    torch.cuda.synchronize()
    rel = ((got - reference).norm() / reference.norm()).item()
    max_abs = (got - reference).abs().max().item()
    stats = torch.tensor([rel, max_abs], dtype=torch.float64, device=device)
    dist.all_reduce(stats, op=dist.ReduceOp.MAX)
    row["rel"], row["max_abs"] = stats.tolist()
    del reference, got

    row["fused"] = time_iterations(fused, args.iters, args.warmup, device)
    row["nccl"] = time_iterations(nccl_mm, args.iters, args.warmup, device)
    row["fused_graph"] = row["nccl_graph"] = None
    row["notes"] = []
    if not args.no_graph:
        for key, fn in (("fused_graph", fused), ("nccl_graph", nccl_mm)):
            graph, error = capture(fn, device)
            if graph is None:
                row["notes"].append(f"{key}: {error}")
                continue
            row[key] = time_iterations(graph.replay, args.iters, args.warmup,
                                       device)
            del graph
    torch.cuda.synchronize()
    dist.barrier()
    return row


def fmt(ms):
    return "-" if ms is None else f"{ms:.3f}"


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
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(
        c.ljust(w) for c, w in zip(cells, widths)) + " |"
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for cells in table[1:]:
        print(line(cells))
    for r in rows:
        for note in r["notes"]:
            print(f"note: m_shard {r['m_shard']} {r['dtype']}: {note}")


def worker(rank, world, args, port=None):
    if port is not None:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ["MASTER_PORT"] = str(port)
        os.environ["RANK"] = str(rank)
        os.environ["WORLD_SIZE"] = str(world)
        os.environ["LOCAL_RANK"] = str(rank)
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    try:
        dist.init_process_group("nccl", rank=rank, world_size=world,
                                device_id=device,
                                timeout=datetime.timedelta(seconds=300))
    except TypeError:  # PyTorch without device_id
        dist.init_process_group("nccl", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=300))
    status = 0
    try:
        group_name = dist.group.WORLD.group_name
        symm_mem = setup_symmetric_memory(group_name)
        multicast = torch.tensor([1 if multicast_supported(local_rank) else 0],
                                 device=device)
        dist.all_reduce(multicast, op=dist.ReduceOp.MAX)
        if multicast.item():
            log(rank, "torch_fused: refusing to run: PyTorch reports NVLink "
                      "multicast support although "
                      "TORCH_SYMM_MEM_DISABLE_MULTICAST="
                      f"{os.environ.get('TORCH_SYMM_MEM_DISABLE_MULTICAST')}")
            return 1
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
                status = 1
    except Exception:  # noqa: BLE001 - print, then let the group go down
        traceback.print_exc()
        status = 1
    finally:
        dist.destroy_process_group()
    return status


def spawned(rank, world, args, port):
    sys.exit(worker(rank, world, args, port))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    args = parse_args()
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # torchrun
        return worker(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]),
                      args)
    if count < 2 or args.nproc < 2:
        print(f"SKIP: torch_fused needs 2 GPUs, this machine has {count}")
        return 0
    world = min(args.nproc, count)
    try:
        mp.spawn(spawned, args=(world, args, free_port()), nprocs=world,
                 join=True)
    except mp.ProcessExitedException as e:
        print(f"torch_fused: a rank failed: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
