#!/usr/bin/env bash
# Builds only the runtime (its tests and benchmark) from this checkout:
# the top-level CMakeLists with WEAVE_ENABLE_COMPILER=OFF (no LLVM needed)
# and only the three targets below, so that work in progress in the compiler
# cannot break the run; then runs the CPU unit tests, the GPU tests and the
# benchmark. Usage: bench/runtime/run_on_gpu.sh [out-dir]
set -u
export NCCL_NVLS_ENABLE=0
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${1:-/tmp/weave-rt-out}
B=/tmp/weave-rt-build
rm -rf "$B" && mkdir -p "$OUTDIR"
nvidia-smi -L
cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DWEAVE_ENABLE_COMPILER=OFF -DWEAVE_ENABLE_GPU_TESTS=ON >"$OUTDIR/configure.log" 2>&1 \
  || { tail -30 "$OUTDIR/configure.log"; exit 1; }
ninja -C "$B" weave_runtime_unit_tests weave_runtime_gpu_tests weave_bench_runtime \
  >"$OUTDIR/build.log" 2>&1 || { grep -E "error|FAILED" "$OUTDIR/build.log" | head -30; exit 1; }
echo "== unit tests"
"$B/bin/weave_runtime_unit_tests" --gtest_brief=1 >"$OUTDIR/unit.log" 2>&1; tail -3 "$OUTDIR/unit.log"
echo "== GPU tests"
timeout 240 "$B/bin/weave_runtime_gpu_tests" >"$OUTDIR/gpu.log" 2>&1
echo "exit $?"
grep -E "^\[ *(OK|FAILED|SKIPPED|INFO|PASSED) |Failure|Which is|error|message" "$OUTDIR/gpu.log" | head -60
echo "== benchmark"
timeout 120 "$B/bin/weave_bench_runtime" 2>&1 | tee "$OUTDIR/bench.log"
