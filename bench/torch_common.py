"""What the PyTorch reference scripts of bench/ share.

Starting one process per GPU (torchrun, or mp.spawn from a plain
`python3 script.py --nproc N`), the NCCL process group, PyTorch's symmetric
memory with NVLink multicast kept off, CUDA-event timing of the longest
rank, CUDA graph capture, and Markdown tables. Importing this module sets
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NCCL_NVLS_ENABLE=0 and
NVSHMEM_DISABLE_NVLS=1 (unless set) before torch loads.
"""

import os

# Never NVLink multicast: set before torch (and NCCL, NVSHMEM) load.
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import datetime
import math
import socket
import statistics
import subprocess
import sys
import threading
import time
import traceback
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


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


def setup_symmetric_memory(group_name, backend="CUDA"):
    """Imports torch's symmetric memory, enabled for the group, on `backend`
    (CUDA by default, not NVSHMEM or NCCL windows)."""
    import torch.distributed._symmetric_memory as symm_mem
    try:
        symm_mem.set_backend(backend)
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


class ClockSampler:
    """The SM clock and power draw of GPUs `indices` (nvidia-smi's numbering)
    every `period_ms`, read in a thread, so that a time can be told apart
    from the clock it ran at: under a power limit (the H200's 700 W) the
    clock follows the load, and with it what ran before. window(t0, t1)
    -> (the lowest GPU's median MHz, the highest GPU's median W) over
    time.monotonic() t0..t1, or None without samples (no nvidia-smi)."""

    def __init__(self, indices, period_ms=50):
        self.indices = set(indices)
        self.samples = []
        try:
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=index,clocks.sm,power.draw",
                 "--format=csv,noheader,nounits", "-lms", str(period_ms)],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            self.proc = None
            return
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            cells = [c.strip() for c in line.split(",")]
            try:
                self.samples.append((time.monotonic(), int(cells[0]),
                                     float(cells[1]), float(cells[2])))
            except (ValueError, IndexError):
                pass  # a "[N/A]" or a cut line

    def window(self, t0, t1):
        per_gpu = {}
        for t, gpu, mhz, watts in list(self.samples):
            if t0 <= t <= t1 and gpu in self.indices:
                per_gpu.setdefault(gpu, []).append((mhz, watts))
        if not per_gpu:
            return None
        return (min(statistics.median(m for m, _ in s) for s in per_gpu.values()),
                max(statistics.median(w for _, w in s) for s in per_gpu.values()))

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()


def visible_gpu_indices(world):
    """nvidia-smi's indices of this job's first `world` GPUs (from
    CUDA_VISIBLE_DEVICES where it lists numbers, else 0..world-1)."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    try:
        return [int(i) for i in listed.split(",")][:world] if listed else list(range(world))
    except ValueError:  # UUIDs
        return list(range(world))


def time_sustained(fn, seconds, device):
    """time_iterations over about `seconds` of fn() after seconds / 4 of
    warm-up (every rank the same counts), so that the clock has settled
    where a power limit holds it: (median ms, monotonic start, end)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    t = time.monotonic()
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    each = torch.tensor([(time.monotonic() - t) / 3], dtype=torch.float64, device=device)
    dist.all_reduce(each, op=dist.ReduceOp.MAX)
    each = max(each.item(), 1e-6)
    for _ in range(math.ceil(seconds / 4 / each)):
        fn()
    start = time.monotonic()
    ms = time_iterations(fn, max(20, math.ceil(seconds / each)), 0, device)
    return ms, start, time.monotonic()


def time_versions(versions, device, seconds=0, rounds=3, iters=20, warmup=5):
    """Times each (key, fn) of `versions`. With seconds > 0: one
    time_sustained run each, in order; else max(rounds, 1) rounds of
    time_iterations(fn, iters, warmup), each round's order rotated by one
    more version (the clock drifts with what ran before, so one fixed order
    favours some). {key: (best median ms, window)}, window the sustained
    run's (monotonic start, end) or None."""
    if seconds > 0:
        timed = {}
        for key, fn in versions:
            ms, start, end = time_sustained(fn, seconds, device)
            timed[key] = (ms, (start, end))
        return timed
    times = {key: [] for key, _ in versions}
    for r in range(max(rounds, 1)):
        shift = r % len(versions)
        for key, fn in versions[shift:] + versions[:shift]:
            times[key].append(time_iterations(fn, iters, warmup, device))
    return {key: (min(values), None) for key, values in times.items()}


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


def compare_and_time(row, fused, baseline, args, device):
    """Fills `row` for a fused op against its unfused baseline.

    rel / max_abs: the fused result against the baseline's, in float64, the
    largest over the ranks; fused / nccl: eager times (time_iterations);
    fused_graph / nccl_graph: the same replayed from CUDA graphs, unless
    args.no_graph, or None with a note where a rank failed to capture.
    """
    reference = baseline().double()
    got = fused().double()
    torch.cuda.synchronize()
    rel = ((got - reference).norm() / reference.norm()).item()
    max_abs = (got - reference).abs().max().item()
    stats = torch.tensor([rel, max_abs], dtype=torch.float64, device=device)
    dist.all_reduce(stats, op=dist.ReduceOp.MAX)
    row["rel"], row["max_abs"] = stats.tolist()
    del reference, got

    row["fused"] = time_iterations(fused, args.iters, args.warmup, device)
    row["nccl"] = time_iterations(baseline, args.iters, args.warmup, device)
    row["fused_graph"] = row["nccl_graph"] = None
    row["notes"] = []
    if not args.no_graph:
        for key, fn in (("fused_graph", fused), ("nccl_graph", baseline)):
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


def uniform(shape, seed, dtype, device):
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return (torch.rand(shape, generator=g, device=device, dtype=torch.float32)
            * 2 - 1).to(dtype)


def fmt(ms):
    return "-" if ms is None else f"{ms:.3f}"


def markdown(header, rows):
    """A Markdown table (lists of strings) with its columns lined up."""
    table = [header] + rows
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(
        c.ljust(w) for c, w in zip(cells, widths)) + " |"
    out = [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(cells) for cells in rows]
    return "\n".join(out)


def worker(rank, world, args, body, program, port=None):
    """One rank: the process group, symmetric memory on the backend
    args.symm_mem_backend names (CUDA when it has none; refused while
    PyTorch reports multicast support), then body(args, rank, world,
    device, group_name, symm_mem), which returns the exit status."""
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
        symm_mem = setup_symmetric_memory(
            group_name, getattr(args, "symm_mem_backend", "CUDA"))
        multicast = torch.tensor([1 if multicast_supported(local_rank) else 0],
                                 device=device)
        dist.all_reduce(multicast, op=dist.ReduceOp.MAX)
        if multicast.item():
            log(rank, f"{program}: refusing to run: PyTorch reports NVLink "
                      "multicast support although "
                      "TORCH_SYMM_MEM_DISABLE_MULTICAST="
                      f"{os.environ.get('TORCH_SYMM_MEM_DISABLE_MULTICAST')}")
            return 1
        status = body(args, rank, world, device, group_name, symm_mem)
    except Exception:  # noqa: BLE001 - print, then let the group go down
        traceback.print_exc()
        status = 1
    finally:
        dist.destroy_process_group()
    return status


def _spawned(rank, world, args, body, program, port):
    sys.exit(worker(rank, world, args, body, program, port))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(args, body, program):
    """Runs body on every rank: under torchrun, this process is one rank;
    otherwise mp.spawn starts args.nproc ranks. Returns the exit status
    ("SKIP: ..." and 0 with fewer than 2 GPUs, or fewer than 2 torchrun
    processes)."""
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # torchrun
        world = int(os.environ["WORLD_SIZE"])
        if world < 2:
            print(f"SKIP: {program} needs 2 GPUs (torchrun started {world} process); "
                  "nothing to compare on one")
            return 0
        return worker(int(os.environ["RANK"]), world, args, body, program)
    if count < 2 or args.nproc < 2:
        print(f"SKIP: {program} needs 2 GPUs, this machine has {count}")
        return 0
    world = min(args.nproc, count)
    try:
        mp.spawn(_spawned, args=(world, args, body, program, free_port()),
                 nprocs=world, join=True)
    except mp.ProcessExitedException as e:
        print(f"{program}: a rank failed: {e}", file=sys.stderr)
        return 1
    return 0
