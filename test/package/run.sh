#!/usr/bin/env bash
# Installs a built Weave tree into a scratch prefix, builds the consumer
# project (test/package/consumer) against that prefix alone and runs it.
#   test/package/run.sh <build-dir> <work-dir> [bundles...]
#   test/package/run.sh --runtime-only <work-dir> [bundles...]
#   test/package/run.sh --runtime-only-from <runtime-only-build> <work-dir> [bundles...]
# --runtime-only first configures this source tree with
# WEAVE_ENABLE_COMPILER=OFF (no LLVM) in <work-dir>/build and builds only the
# runtime libraries: the package a deployment without LLVM installs.
# --runtime-only-from installs such a build made already (the ctest
# build.runtime_only makes one, so the package test does not compile the
# runtime a second time); it builds the libraries the consumer needs there
# first (nothing to do when that build is complete).
# Without libcuda.so.1 (CI has no driver) the consumer runs against the
# toolkit's stub driver library, whose cuInit fails with
# CUDA_ERROR_STUB_LIBRARY: the program gets to the point where it says that
# there is no GPU. Used by the ctest `package.consumer` and by
# test/gpu/run_loopback.sh.
set -euo pipefail
SRC=$(cd "$(dirname "$0")" && pwd)
FROM=
if [ "$1" = "--runtime-only-from" ]; then
  FROM=$(cd "$2" && pwd)
  shift # now: --runtime-only-from <work-dir> [bundles...] minus the build
  set -- --runtime-only-from "${@:2}"
fi
WORK=$2
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
PREFIX=$WORK/prefix
GENERATOR=()
command -v ninja >/dev/null && GENERATOR=(-G Ninja)
if [ "$1" = "--runtime-only-from" ]; then
  BUILD=$FROM
  grep -q '^WEAVE_ENABLE_COMPILER:BOOL=OFF' "$BUILD/CMakeCache.txt" ||
    { echo "$BUILD is not a build with WEAVE_ENABLE_COMPILER=OFF"; exit 1; }
  cmake --build "$BUILD" --target WeaveRuntime WeaveOps weave-bundle weave-ops >"$WORK/runtime-build.log" 2>&1 \
    || { cat "$WORK/runtime-build.log"; exit 1; }
  echo "installing the runtime-only build $BUILD (WEAVE_ENABLE_COMPILER=OFF)"
elif [ "$1" = "--runtime-only" ]; then
  BUILD=$WORK/build
  cmake -S "$SRC/../.." -B "$BUILD" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DWEAVE_ENABLE_COMPILER=OFF >"$WORK/runtime-configure.log" \
    || { cat "$WORK/runtime-configure.log"; exit 1; }
  cmake --build "$BUILD" --target WeaveRuntime WeaveOps weave-bundle weave-ops >"$WORK/runtime-build.log" 2>&1 \
    || { cat "$WORK/runtime-build.log"; exit 1; }
  echo "built the runtime alone (WEAVE_ENABLE_COMPILER=OFF) in $BUILD"
else
  BUILD=$(cd "$1" && pwd)
fi
shift 2

cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log"
echo "installed $(find "$PREFIX" -type f | wc -l) files into $PREFIX"

CXX_COMPILER=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
# Only the prefix: nothing from the build or source tree leaks in.
cmake -S "$SRC/consumer" -B "$WORK/consumer" "${GENERATOR[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" \
  ${CXX_COMPILER:+-DCMAKE_CXX_COMPILER="$CXX_COMPILER"} >"$WORK/configure.log" \
  || { cat "$WORK/configure.log"; exit 1; }
grep "Weave:" "$WORK/configure.log"
cmake --build "$WORK/consumer" >"$WORK/build.log" 2>&1 \
  || { cat "$WORK/build.log"; exit 1; }

if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  STUB=$(sed -n 's/^CUDA_cuda_driver_LIBRARY:[A-Z]*=//p' "$WORK/consumer/CMakeCache.txt")
  mkdir -p "$WORK/stub"
  ln -sf "$STUB" "$WORK/stub/libcuda.so.1"
  export LD_LIBRARY_PATH="$WORK/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "no libcuda.so.1 on this machine: running against the stub $STUB"
fi
# A bundle folder given (runtime-only): the installed weave-bundle reads
# each bundle, and the folder is the consumer's (ops::bundleFolder).
if [ $# -gt 0 ]; then
  count=0
  for bundle in "$1"/*.wbundle; do
    "$PREFIX/bin/weave-bundle" "$bundle" >"$WORK/weave-bundle.log"
    grep -q '^weave-manifest ' "$WORK/weave-bundle.log"
    count=$((count + 1))
  done
  [ "$count" -gt 0 ] || { echo "no bundle in $1"; exit 1; }
  echo "installed weave-bundle read $count bundle(s)"
fi
# Exit 0 is not enough: the program must have said how it ended.
status=0
"$WORK/consumer/weave-consumer" "$@" | tee "$WORK/run.log" || status=$?
[ "$status" -eq 0 ] || exit "$status"
grep -qE '^weave-consumer: (SKIP|PASS):' "$WORK/run.log"
