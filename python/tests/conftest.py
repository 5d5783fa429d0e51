"""Shared set-up of the weave Python tests.

CPU tests run everywhere. GPU tests skip, with the reason, where the CUDA
part of weave does not load or no GPU answers; tests that need torch skip
where it is absent (or older than they need). Kernels come from the JIT
where this build has it, else from bundles compiled elsewhere and named by
$WEAVE_TEST_BUNDLES (a folder; the GPU machines have no LLVM).
"""

import os
import pathlib

import pytest

import weave

SOURCE_DIR = pathlib.Path(os.environ.get(
    "WEAVE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def op_kernel_bundle(op, team_size, dtype, count, algorithm="auto"):
    """The bundle of the kernel a ready-made op runs: compiled here, or read
    from $WEAVE_TEST_BUNDLES/<key>.wbundle (weave.compile_op writes them);
    skips the test when neither works. Returns (bundle, kernel name)."""
    key, kernel, source = weave._core.op_instance(op, team_size, dtype, count, algorithm)
    if weave.has_compiler:
        return weave.compile(source, name=f"{key}.mlir"), kernel
    folder = os.environ.get("WEAVE_TEST_BUNDLES")
    if folder and (pathlib.Path(folder) / f"{key}.wbundle").exists():
        return weave.load_bundle(pathlib.Path(folder) / f"{key}.wbundle"), kernel
    pytest.skip(f"no compiler in this build and no {key}.wbundle in "
                f"$WEAVE_TEST_BUNDLES ({folder or 'unset'})")


def torch_or_skip(minimum=(2, 0)):
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed")
    version = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    if version < minimum:
        pytest.skip(f"needs torch >= {'.'.join(map(str, minimum))}, "
                    f"found {torch.__version__}")
    return torch


@pytest.fixture(scope="session")
def gpu_team_factory():
    """Builds loopback teams on GPU 0, or skips with why it cannot."""
    ok, reason = weave.cuda_available()
    if not ok:
        pytest.skip(reason)

    def make(members):
        try:
            return weave.Team.loopback(members, [0])
        except weave.WeaveError as error:
            pytest.skip(f"no GPU team: {error}")
    return make
