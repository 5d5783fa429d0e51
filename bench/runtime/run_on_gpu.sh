#!/usr/bin/env bash
# Builds only the runtime (its tests and benchmark) from this checkout in a
# scratch tree with a minimal top-level CMakeLists, so that work in progress
# elsewhere in the repo cannot break the run; then runs the CPU unit tests,
# the GPU tests and the benchmark. Usage: bench/runtime/run_on_gpu.sh [out-dir]
set -u
export NCCL_NVLS_ENABLE=0
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${1:-/tmp/weave-rt-out}
S=/tmp/weave-rt-src
B=/tmp/weave-rt-build
rm -rf "$S" && mkdir -p "$S/test/unit" "$S/test/gpu" "$S/bench" "$OUTDIR"
cp -r "$ROOT/runtime" "$S/"
cp -r "$ROOT/test/support" "$S/test/"
cp -r "$ROOT/test/unit/runtime" "$S/test/unit/"
cp -r "$ROOT/test/gpu/runtime" "$S/test/gpu/"
cp -r "$ROOT/bench/runtime" "$S/bench/"
cat > "$S/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(weave_runtime_only LANGUAGES C CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
enable_testing()
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  add_library(GTest::gtest ALIAS gtest)
  add_library(GTest::gtest_main ALIAS gtest_main)
endif()
include(GoogleTest)
set(WEAVE_ENABLE_GPU_TESTS ON)
add_subdirectory(runtime)
add_subdirectory(test/support)
add_subdirectory(test/unit/runtime)
add_subdirectory(test/gpu/runtime)
add_subdirectory(bench/runtime)
CMAKE
nvidia-smi -L
cmake -S "$S" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUTDIR/configure.log" 2>&1 \
  || { tail -30 "$OUTDIR/configure.log"; exit 1; }
ninja -C "$B" >"$OUTDIR/build.log" 2>&1 || { grep -E "error|FAILED" "$OUTDIR/build.log" | head -30; exit 1; }
echo "== unit tests"
"$B/bin/weave_runtime_unit_tests" --gtest_brief=1 >"$OUTDIR/unit.log" 2>&1; tail -3 "$OUTDIR/unit.log"
echo "== GPU tests"
timeout 240 "$B/bin/weave_runtime_gpu_tests" >"$OUTDIR/gpu.log" 2>&1
echo "exit $?"
grep -E "^\[ *(OK|FAILED|SKIPPED|INFO|PASSED) |Failure|Which is|error|message" "$OUTDIR/gpu.log" | head -60
echo "== benchmark"
timeout 120 "$B/bin/weave_bench_runtime" 2>&1 | tee "$OUTDIR/bench.log"
