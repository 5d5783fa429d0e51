#!/usr/bin/env bash
# The runtime-only build, whole: configures this source tree with
# WEAVE_ENABLE_COMPILER=OFF (the documented way to build on a GPU machine,
# which has no LLVM) in <work-dir> and runs `cmake --build` on every target
# (runtime, ops, Python, examples' host programs, benchmarks, unit tests and
# the bundle fuzzer's seed corpus), then the runtime-only build's CPU unit
# tests and bundle fuzz smoke. The ctest `build.runtime_only`.
#   test/package/build-runtime-only.sh <work-dir> [cmake args...]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${1:?usage: $0 <work-dir> [cmake args...]}
shift
mkdir -p "$WORK"
GENERATOR=()
command -v ninja >/dev/null && GENERATOR=(-G Ninja)
start=$SECONDS
cmake -S "$SRC" -B "$WORK" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DWEAVE_ENABLE_COMPILER=OFF "$@" >"$WORK/configure.log" 2>&1 \
  || { cat "$WORK/configure.log"; exit 1; }
cmake --build "$WORK" -j "${JOBS:-$(nproc)}" >"$WORK/build.log" 2>&1 \
  || { tail -n 60 "$WORK/build.log"; exit 1; }
echo "runtime-only build: every target built in $((SECONDS - start)) s"
# What runs without a GPU: the runtime's unit tests and the bundle reader's
# fuzz smoke (its seed corpus is what failed to build).
ctest --test-dir "$WORK" --output-on-failure -L "fuzz" -R "bundle" \
  >"$WORK/ctest-fuzz.log" 2>&1 || { cat "$WORK/ctest-fuzz.log"; exit 1; }
ctest --test-dir "$WORK" --output-on-failure -R "^(Bundle|Binding|Manifest|TmaLayout|DynamicShape)" \
  >"$WORK/ctest-unit.log" 2>&1 || { tail -n 60 "$WORK/ctest-unit.log"; exit 1; }
grep -h "tests passed" "$WORK/ctest-fuzz.log" "$WORK/ctest-unit.log"
echo "runtime-only build and tests: $((SECONDS - start)) s"
