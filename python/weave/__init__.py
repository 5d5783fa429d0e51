"""Weave: kernels that fuse NVLink communication with computation.

``import weave`` works on any machine: bundles, manifests, argument checks
and (where Weave was built with its compiler) the in-process JIT need no GPU.
Teams, symmetric memory and launches need the CUDA driver; they are loaded
on first use and raise :class:`WeaveError` with the reason where there is
none.

    bundle = weave.compile(open("all_reduce.mlir").read())
    team = weave.Team.from_environment()          # torchrun, or WEAVE_LOOPBACK_TEAM
    mem = weave.SymmetricMemory(team, 64 << 20)
    kernel = weave.load(team, bundle, mem).kernel("one_shot_all_reduce")
    x = mem.empty((n,), torch.float32)
    kernel(x, out, mem.semaphores(2))             # on the current CUDA stream
"""

from . import _core
from ._core import (Bundle, DeviceBuffers, KernelInfo, ParamInfo,
                    ScalarValue, SemaphoreArray, SymmetricBuffer, check_args)
from .errors import WeaveError

__all__ = [
    "Bundle", "DeviceBuffers", "KernelInfo", "ParamInfo", "ScalarValue",
    "SemaphoreArray", "SymmetricBuffer", "WeaveError", "check_args",
    "check_protocol", "compile", "compile_op", "has_compiler", "load_bundle", "cuda_available",
    "Team", "SymmetricMemory", "load", "Program", "KernelLauncher",
    "team_from_process_group",
]

#: The project's version (CMakeLists.txt's project(); setup.py's too).
__version__ = _core.version

#: True when this build carries the JIT (weave.compile); a runtime-only
#: build (no LLVM on the machine) loads bundles compiled elsewhere.
has_compiler = _core.has_compiler


def _read_source(source_or_path, name):
    """(source text, buffer name) of source text or a .mlir path."""
    import os
    source = source_or_path
    if name is None:
        name = "<string>"
    if isinstance(source_or_path, os.PathLike) or (
            isinstance(source_or_path, str) and "\n" not in source_or_path
            and source_or_path.endswith(".mlir")):
        path = os.fspath(source_or_path)
        with open(path, encoding="utf-8") as f:
            source = f.read()
        if name == "<string>":
            name = path
    return source, name


def _need_compiler():
    if not has_compiler:
        raise WeaveError(
            "NotFound",
            "this weave build has no compiler (built with "
            "WEAVE_ENABLE_COMPILER=OFF): compile with weavec elsewhere and "
            "use weave.load_bundle")


def check_protocol(source_or_path, *, name=None, team_sizes=(2, 3, 4, 8),
                   launches=2, grids=(1, 3), schedules=4, seed=1,
                   shapes=None, fills=None, args=None, host_io=True):
    """Runs the protocol checker (``weavec --check-protocol``,
    docs/PROTOCOL_CHECKER.md) on a kernel: every member of a team of each
    size in ``team_sizes`` over ``launches`` launches, on the CPU. Returns
    its one-line summary; raises :class:`WeaveError` (code
    ``CompileError``) with the located deadlocks, races and out-of-bounds
    accesses. ``shapes`` maps a parameter name to its dynamic sizes (a
    negative -N is N times the team size), ``fills`` an integer buffer to
    its contents, ``args`` a by-value parameter to its value."""
    _need_compiler()
    source, name = _read_source(source_or_path, name)
    return _core.check_protocol(
        source, name, list(team_sizes), int(launches), list(grids),
        int(schedules), int(seed),
        {k: list(v) for k, v in (shapes or {}).items()},
        {k: list(v) for k, v in (fills or {}).items()},
        dict(args or {}), bool(host_io))


def compile(source_or_path, *, name=None, arch="sm_90a", opt_level=3,
            wait_timeout_ms=0, cache_dir="", use_cache=True, check=False,
            check_options=None):
    """Compiles a weave kernel (source text, or the path of a .mlir file) to
    a :class:`Bundle` with the weavec pipeline, in-process and cached on
    disk. Raises :class:`WeaveError` (code ``CompileError``) with the
    located diagnostics of a rejected kernel. With ``check=True`` the
    protocol checker runs first (:func:`check_protocol`, with the keyword
    arguments in ``check_options``) and its findings raise the same way."""
    _need_compiler()
    source, name = _read_source(source_or_path, name)
    if check:
        check_protocol(source, name=name, **(check_options or {}))
    if wait_timeout_ms < 0:
        raise WeaveError("InvalidArgument", "wait_timeout_ms must be >= 0")
    bundle, _ = _core.compile(source, name, arch, opt_level,
                              int(wait_timeout_ms * 1_000_000), cache_dir,
                              use_cache)
    return bundle


def compile_op(op, team_size, dtype, count=None, folder=None, algorithm="auto",
               *, shape=None, **options):
    """Compiles the kernel a ready-made op (weave.ops) runs for this team
    size, dtype and count into ``folder/<key>.wbundle``, where
    ``Collectives(..., kernels=folder)`` finds it on a machine without the
    compiler. The fused matmuls (``all_gather_matmul``,
    ``matmul_reduce_scatter``) take ``shape=(m_shard, k, n)`` instead of a
    count, and their companions' bundles are written beside theirs
    (``_core.matmul_op_companions``: where the all-gather matmul runs
    "gather", by name or as "auto"'s choice, its all-gather of m_shard x k
    elements, by the algorithm the op runs it with; where the GEMM +
    reduce-scatter runs "scatter", its reduce-scatter of m_shard x n), as
    the op loads both. Returns the op's bundle's path."""
    import os
    if folder is None:
        raise WeaveError("InvalidArgument", "compile_op: folder is required")
    if shape is not None:
        m_shard, k, n = (int(v) for v in shape)
        key, _, source = _core.matmul_op_instance(op, int(team_size), dtype,
                                                  m_shard, k, n, algorithm)
    else:
        if count is None:
            raise WeaveError("InvalidArgument",
                             f"compile_op: {op} needs a count (or shape= for a fused matmul)")
        key, _, source = _core.op_instance(op, int(team_size), dtype, int(count),
                                           algorithm)
    bundle = compile(source, name=f"{key}.mlir", **options)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(os.fspath(folder), f"{key}.wbundle")
    bundle.save(path)
    if shape is not None:
        for companion, companion_count, companion_algorithm in _core.matmul_op_companions(
                op, int(team_size), dtype, m_shard, k, n, algorithm):
            compile_op(companion, team_size, dtype, companion_count, folder,
                       companion_algorithm, **options)
    return path


def load_bundle(path):
    """Reads and verifies a .wbundle file (written by weavec or Bundle.save)."""
    return Bundle.load(str(path))


def cuda_available():
    """(True, "") where the CUDA part of weave loads, else (False, reason)."""
    try:
        from . import _cuda  # noqa: F401
    except ImportError as error:
        return False, f"weave._cuda cannot load: {error}"
    return True, ""


_CUDA_NAMES = {"Team", "SymmetricMemory", "load", "Program", "KernelLauncher",
               "team_from_process_group"}


def __getattr__(name):
    # The CUDA half loads on first use, so that `import weave` works without
    # a driver.
    if name in _CUDA_NAMES:
        ok, reason = cuda_available()
        if not ok:
            raise WeaveError("DriverError", reason)
        from . import runtime
        return getattr(runtime, name)
    raise AttributeError(f"module 'weave' has no attribute {name!r}")
