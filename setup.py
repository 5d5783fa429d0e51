"""`pip install --no-build-isolation .`: the weave Python package.

The extension modules are built by the project's CMake (python/CMakeLists.txt)
in build/pip; setuptools only places them beside the pure-Python files.
Environment: WEAVE_ENABLE_COMPILER=OFF builds the runtime-only package
(bundles compiled elsewhere; the default where /usr/lib/llvm-22 is absent),
WEAVE_CMAKE_ARGS adds CMake arguments.
"""

import os
import pathlib
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def project_version():
    """The version in CMakeLists.txt's project(): the one version of weave
    (weave.__version__ reports the same)."""
    import re
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    return re.search(r"project\(weave VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def run(self):
        build = ROOT / "build" / "pip"
        compiler = os.environ.get(
            "WEAVE_ENABLE_COMPILER",
            "ON" if pathlib.Path("/usr/lib/llvm-22/lib/cmake/mlir").exists() else "OFF")
        args = ["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                "-DCMAKE_BUILD_TYPE=Release", f"-DPython3_EXECUTABLE={sys.executable}",
                f"-DWEAVE_ENABLE_COMPILER={compiler}", "-DWEAVE_ENABLE_PYTHON=ON"]
        if compiler == "ON":
            args += ["-DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir",
                     "-DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm"]
        args += shlex.split(os.environ.get("WEAVE_CMAKE_ARGS", ""))
        subprocess.check_call(args)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "weave_python"])
        for ext in self.extensions:
            name = ext.name.split(".")[-1]
            built = next((build / "python" / "weave").glob(f"{name}.*.so"))
            target = pathlib.Path(self.get_ext_fullpath(ext.name))
            target.parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(built), str(target))
        # The JIT library the compiler-enabled _core loads from $ORIGIN.
        for jit in (build / "compiler" / "lib" / "Jit").glob("libWeaveJit.so*"):
            self.copy_file(str(jit), str(pathlib.Path(self.build_lib) / "weave" / jit.name))


setup(
    name="weave",
    version=project_version(),
    description="Kernels that fuse NVLink communication with computation",
    packages=["weave"],
    package_dir={"weave": "python/weave"},
    ext_modules=[Extension("weave._core", sources=[]), Extension("weave._cuda", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
)
