"""What a copy engine's copy costs when it is cut in parts, each part then
signalled to its owner (the GEMM + reduce-scatter's "input_gather" lands
a's rows in parts): P copies of S / P bytes GPU 0 -> GPU 1 (and both ways
at once), with and without a 32-bit write of a flag after each part
(cuStreamWriteValue32_v2 with the default flags, a memory barrier first;
to the peer's memory or the sender's), on one copy stream. Each case: a
spinning kernel first (so that everything after it is enqueued before it
runs), then events around the sequence; the median of 30, the slower
direction. docs/PERF.md, "The inputs gathered in parts".

With --columns: a matrix of R rows of W bytes (b of the GEMM +
reduce-scatter, k x n) moved in P parts, each with its flag, both ways at
once: P blocks of rows (one plain copy each) against P blocks of columns
(a pitched copy each, cuMemcpy2DAsync: "input_gather" moves b in column
blocks); with --widths: two column blocks at every row size from 8 to 32
KB; docs/PERF.md, "b in column blocks".

    python3 bench/collective_matmul/copy_engine_parts.py [--columns | --widths]
"""
import ctypes
import statistics
import sys

import torch

if torch.cuda.device_count() < 2:
    print("copy_engine_parts.py: needs 2 GPUs, found", torch.cuda.device_count())
    sys.exit(0)

cu = ctypes.CDLL("libcuda.so.1")
cu.cuMemcpyAsync.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t,
                             ctypes.c_void_p]
cu.cuStreamWriteValue32_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32,
                                       ctypes.c_uint]
class Memcpy2D(ctypes.Structure):
    """CUDA_MEMCPY2D (cuda.h)."""
    _fields_ = [("srcXInBytes", ctypes.c_size_t), ("srcY", ctypes.c_size_t),
                ("srcMemoryType", ctypes.c_int), ("srcHost", ctypes.c_void_p),
                ("srcDevice", ctypes.c_uint64), ("srcArray", ctypes.c_void_p),
                ("srcPitch", ctypes.c_size_t),
                ("dstXInBytes", ctypes.c_size_t), ("dstY", ctypes.c_size_t),
                ("dstMemoryType", ctypes.c_int), ("dstHost", ctypes.c_void_p),
                ("dstDevice", ctypes.c_uint64), ("dstArray", ctypes.c_void_p),
                ("dstPitch", ctypes.c_size_t),
                ("WidthInBytes", ctypes.c_size_t), ("Height", ctypes.c_size_t)]
CU_MEMORYTYPE_DEVICE = 2
cu.cuMemcpy2DAsync_v2.argtypes = [ctypes.POINTER(Memcpy2D), ctypes.c_void_p]
cu.cuCtxEnablePeerAccess.argtypes = [ctypes.c_void_p, ctypes.c_uint]
cu.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]

def check(r, what):
    if r != 0:
        raise RuntimeError(f"{what}: CUresult {r}")

ctx = [ctypes.c_void_p(), ctypes.c_void_p()]
for d in (0, 1):
    torch.cuda.set_device(d); torch.zeros(1, device=d)
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx[d]), d), "retain")
for d in (0, 1):
    torch.cuda.set_device(d)
    r = cu.cuCtxEnablePeerAccess(ctx[1 - d], 0)
    assert r in (0, 704), r  # 704: peer access already enabled

MB = 1 << 20
MAX = 32 * MB
src = [torch.empty(MAX, dtype=torch.uint8, device=d) for d in (0, 1)]
dst = [torch.empty(MAX, dtype=torch.uint8, device=d) for d in (0, 1)]
flag = [torch.zeros(64, dtype=torch.int32, device=d) for d in (0, 1)]
streams = [torch.cuda.Stream(device=d) for d in (0, 1)]

def enqueue(d, size, parts, signal, remote=True):
    """On device d's stream: parts copies d -> 1 - d, each followed (with
    signal) by a flag write to the receiver's memory (remote) or the
    sender's. (CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER is refused: CUDA 13,
    CUresult 1.)"""
    s = streams[d].cuda_stream
    per = size // parts
    o = 1 - d
    for p in range(parts):
        at = p * per
        check(cu.cuMemcpyAsync(dst[o].data_ptr() + at, src[d].data_ptr() + at, per, s), "copy")
        if signal:
            f = flag[o] if remote else flag[d]
            check(cu.cuStreamWriteValue32_v2(s, f.data_ptr(), p + 1, 0), "write")

def enqueue_matrix(d, rows, row_bytes, parts, columns, first=None):
    """On device d's stream: a rows x row_bytes matrix d -> 1 - d in parts
    blocks of rows (plain copies) or of columns (pitched copies; the first
    `first` bytes wide where given, the others sharing the rest), each
    followed by a flag write to the receiver's memory."""
    s = streams[d].cuda_stream
    o = 1 - d
    for p in range(parts):
        if columns:
            width = row_bytes // parts
            at = p * width
            if first is not None:
                width = first if p == 0 else (row_bytes - first) // (parts - 1)
                at = 0 if p == 0 else first + (p - 1) * width
            c = Memcpy2D()
            c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE
            c.srcDevice = src[d].data_ptr() + at
            c.dstDevice = dst[o].data_ptr() + at
            c.srcPitch = c.dstPitch = row_bytes
            c.WidthInBytes = width
            c.Height = rows
            check(cu.cuMemcpy2DAsync_v2(ctypes.byref(c), s), "copy 2D")
        else:
            per = rows // parts * row_bytes
            at = p * per
            check(cu.cuMemcpyAsync(dst[o].data_ptr() + at, src[d].data_ptr() + at, per, s),
                  "copy")
        check(cu.cuStreamWriteValue32_v2(s, flag[o].data_ptr(), p + 1, 0), "write")

def case(size, parts, signal, both, remote=True, reps=30, matrix=None):
    times = []
    for _ in range(reps + 3):
        ev = []
        ds = (0, 1) if both else (0,)
        for d in ds:
            with torch.cuda.device(d), torch.cuda.stream(streams[d]):
                torch.cuda._sleep(2_000_000)
                a = torch.cuda.Event(enable_timing=True)
                b = torch.cuda.Event(enable_timing=True)
                a.record(streams[d])
                if matrix:
                    enqueue_matrix(d, *matrix[:2], parts, *matrix[2:])
                else:
                    enqueue(d, size, parts, signal, remote)
                b.record(streams[d])
                ev.append((a, b))
        for d in ds:
            streams[d].synchronize()
        times.append(max(a.elapsed_time(b) for a, b in ev) * 1000.0)
    return statistics.median(times[3:])

if "--columns" in sys.argv:
    print("| rows x row KB (MB) | parts | row blocks us | column blocks us | "
          "columns / rows |")
    print("|---|---|---|---|---|")
    for rows, row_kb in [(1024, kb) for kb in (8, 10, 12, 14, 16, 18, 20, 24, 28)] + [(2048, 16)]:
        row_bytes = row_kb * 1024
        for parts in (1, 2, 4):
            t_rows = case(0, parts, True, True, matrix=(rows, row_bytes, False))
            t_cols = case(0, parts, True, True, matrix=(rows, row_bytes, True))
            print(f"| {rows} x {row_kb} ({rows * row_bytes / MB:.0f}) | {parts} | "
                  f"{t_rows:.1f} | {t_cols:.1f} | {t_cols / t_rows:.2f} |", flush=True)
    sys.exit(0)

if "--widths" in sys.argv:
    # Two column blocks of 1024 rows at every row size from 8 to 32 KB (n
    # 4096-16384 at bf16) in 1 KB steps: equal halves, and the first block
    # a whole multiple of 4 KB (the widths that measured fine) where the
    # half is not.
    print("| row KB | rows us | halves us | halves / rows | first 4K-multiple "
          "KB | its us | its / rows |")
    print("|---|---|---|---|---|---|---|")
    for row_kb in range(8, 33):
        row_bytes = row_kb * 1024
        t_rows = case(0, 2, True, True, matrix=(1024, row_bytes, False))
        t_half = case(0, 2, True, True, matrix=(1024, row_bytes, True))
        first = (row_bytes // 2 + 2048) // 4096 * 4096
        t_first = case(0, 2, True, True, matrix=(1024, row_bytes, True, first))
        print(f"| {row_kb} | {t_rows:.1f} | {t_half:.1f} | {t_half / t_rows:.2f} | "
              f"{first // 1024} | {t_first:.1f} | {t_first / t_rows:.2f} |", flush=True)
    sys.exit(0)

print("| S MB | both ways | parts | no flag us | flag us (barrier, remote) "
      "| flag us (barrier, local) | GB/s (no flag) |")
print("|---|---|---|---|---|---|---|")
for both in (False, True):
    for size_mb in (1, 4, 8, 16, 32):
        size = size_mb * MB
        for parts in (1, 2, 4, 8):
            t0 = case(size, parts, None, both)
            t1 = case(size, parts, True, both)
            t3 = case(size, parts, True, both, remote=False)
            way = "yes" if both else "no"
            print(f"| {size_mb} | {way} | {parts} | {t0:.1f} | {t1:.1f} | {t3:.1f} "
                  f"| {size / t0 / 1e3:.0f} |", flush=True)
