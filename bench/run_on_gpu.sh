#!/usr/bin/env bash
# Runs the benchmarks from prebuilt binaries and bundles, on a GPU
# machine that need not build anything, and prints their tables last.
#
#   bench/run_on_gpu.sh --stage BUILD_DIR [CARRY_DIR]   (here: copy what to carry)
#   bench/run_on_gpu.sh [CARRY_DIR] [--out DIR] [--only LIST] [-- BENCH_ARGS...]
#
# CARRY_DIR (default .carry) holds
#   bin/weave_bench_matmul, bin/weave_bench_collective_matmul,
#   bin/weave_bench_collectives, bin/weave_bench_matmul_reduce_scatter,
#   bin/weave_bench_runtime (optional)      built with WEAVE_STATIC_RUNTIME_LIBS=ON
#   bench/matmul/*.wbundle                  ninja weave_bench_bundles (--stage
#                                           builds them and the binaries first)
#   bench/collective_matmul/*.wbundle
#   bench/collectives/*.wbundle
#   bench/matmul_reduce_scatter/*.wbundle
# --only takes a comma-separated subset of:
# matmul,collective,collectives,mrs,torch,torch-mrs,torch-collectives,runtime
# (default: all of them that are there; torch-collectives runs
# bench/collectives/torch_symm_mem.py twice: the all-reduces, then
# all_to_all_vdev on the NVSHMEM backend; mrs runs the GEMM +
# reduce-scatter bench on one member (D = 1, its epilogue's cost, with
# bench/matmul's bundles as the plain matmul), on a loopback team of 2, and
# on 2 and 4 GPUs where there are that many; torch-mrs runs
# bench/matmul_reduce_scatter/torch_fused.py on 2 GPUs). BENCH_ARGS go to both C++ benches
# (e.g. -- --iters 50 --dtype bf16). Logs go to --out (default $OUT when set,
# else /tmp/weave-bench-out). Each bench runs under `timeout
# ${BENCH_TIMEOUT:-200}` seconds. libcublas.so.13 / libnccl.so.2 are found
# in the CUDA toolkit or in PyTorch's nvidia-* wheels (nvidia.nccl,
# nvidia.cublas, nvidia.cu13) and added to LD_LIBRARY_PATH.
set -uo pipefail

# Never NVLink multicast (NVLS): it can take a shared host's GPUs down.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

ROOT=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = "--stage" ]; then
  BUILD=${2:?usage: $0 --stage BUILD_DIR [CARRY_DIR]}
  CARRY=${3:-$ROOT/.carry}
  mkdir -p "$CARRY/bin" "$CARRY/bench/matmul" "$CARRY/bench/collective_matmul" \
    "$CARRY/bench/collectives" "$CARRY/bench/matmul_reduce_scatter"
  # Build what is staged first: the bundles are a target outside `all`, so
  # a template changed since the last `ninja weave_bench_bundles` would
  # otherwise be staged stale (and the bench would refuse it on the GPU:
  # "parameter 1 is 'b', expected 'own'", eighteenth session).
  if [ -f "$BUILD/build.ninja" ]; then
    ninja -C "$BUILD" weave_bench_bundles weave_bench_matmul weave_bench_collective_matmul \
      weave_bench_collectives weave_bench_matmul_reduce_scatter >/dev/null ||
      { echo "run_on_gpu.sh: building the benches and their bundles in $BUILD failed" >&2; exit 1; }
  fi
  for b in weave_bench_matmul weave_bench_collective_matmul weave_bench_collectives \
           weave_bench_matmul_reduce_scatter weave_bench_runtime; do
    [ -x "$BUILD/bin/$b" ] && cp "$BUILD/bin/$b" "$CARRY/bin/" && echo "staged bin/$b"
  done
  for d in matmul collective_matmul collectives matmul_reduce_scatter; do
    n=$(ls "$BUILD/bench/$d"/*.wbundle 2>/dev/null | wc -l)
    [ "$n" -gt 0 ] && cp "$BUILD/bench/$d"/*.wbundle "$CARRY/bench/$d/"
    echo "staged $n bundle(s) in bench/$d"
  done
  if readelf -d "$CARRY"/bin/* 2>/dev/null | grep -q 'libstdc++'; then
    echo "warning: a staged binary needs libstdc++.so (configure with -DWEAVE_STATIC_RUNTIME_LIBS=ON)"
  fi
  du -sh "$CARRY"
  exit 0
fi

CARRY=$ROOT/.carry
OUTDIR=${OUT:-/tmp/weave-bench-out}
ONLY=matmul,collective,collectives,mrs,torch,torch-mrs,torch-collectives,runtime
BENCH_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUTDIR=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --) shift; BENCH_ARGS=("$@"); break ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) CARRY=$1; shift ;;
  esac
done
CARRY=$(cd "$CARRY" 2>/dev/null && pwd) || { echo "no carry directory"; exit 2; }
mkdir -p "$OUTDIR"
TIMEOUT=${BENCH_TIMEOUT:-200}
wants() { [[ ",$ONLY," == *",$1,"* ]]; }

echo "== machine"
nvidia-smi -L 2>/dev/null || echo "(no nvidia-smi)"
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)

# Shared libraries the binaries need besides libcuda: cuBLAS and NCCL.
. "$ROOT/bench/gpu_libs.sh"
export_gpu_libs -v

status=0
LOGS=()
# run NAME BINARY ARGS...: runs a prebuilt bench if it is there and loads.
run() {
  local name=$1 bin=$2; shift 2
  if [ ! -x "$bin" ]; then echo "== $name: $bin missing, skipped"; return; fi
  if ldd "$bin" 2>/dev/null | grep -q 'not found'; then
    echo "== $name: cannot start, missing libraries:"; ldd "$bin" | grep 'not found'
    status=1; return
  fi
  echo "== $name"
  timeout "$TIMEOUT" "$bin" "$@" 2>&1 | tee "$OUTDIR/$name.log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 124 ] && echo "$name: timed out after $TIMEOUT s"
  echo "$name: exit $rc"
  [ "$rc" -ne 0 ] && status=1
  LOGS+=("$OUTDIR/$name.log")
}

if wants matmul; then
  run matmul "$CARRY/bin/weave_bench_matmul" --bundles "$CARRY/bench/matmul" "${BENCH_ARGS[@]}"
fi
if wants collective; then
  run collective "$CARRY/bin/weave_bench_collective_matmul" \
    --bundles "$CARRY/bench/collective_matmul" "${BENCH_ARGS[@]}"
fi
if wants collectives; then
  run collectives "$CARRY/bin/weave_bench_collectives" \
    --bundles "$CARRY/bench/collectives" "${BENCH_ARGS[@]}"
fi
if wants mrs; then
  MRS=("$CARRY/bin/weave_bench_matmul_reduce_scatter" --bundles "$CARRY/bench/matmul_reduce_scatter"
       --matmul-bundles "$CARRY/bench/matmul")
  run mrs-d1 "${MRS[@]}" --devices 1 "${BENCH_ARGS[@]}"
  WEAVE_LOOPBACK_TEAM=2 run mrs-loopback-d2 "${MRS[@]}" "${BENCH_ARGS[@]}"
  for d in 2 4; do
    if [ "$GPUS" -ge "$d" ]; then
      run mrs-d$d "${MRS[@]}" --devices $d "${BENCH_ARGS[@]}"
    else
      echo "== mrs-d$d: skipped (cuBLAS + NCCL reduce-scatter needs $d GPUs, this machine has $GPUS)"
    fi
  done
fi
if wants runtime && [ -x "$CARRY/bin/weave_bench_runtime" ]; then
  run runtime "$CARRY/bin/weave_bench_runtime"
fi
if wants torch; then
  if [ "$GPUS" -ge 2 ] && python3 -c 'import torch' 2>/dev/null; then
    echo "== torch (fused_all_gather_matmul, NCCL + mm)"
    PYTHONUNBUFFERED=1 timeout "$TIMEOUT" python3 "$ROOT/bench/collective_matmul/torch_fused.py" \
      --nproc 2 2>&1 | tee "$OUTDIR/torch.log"
    rc=${PIPESTATUS[0]}
    echo "torch: exit $rc"
    [ "$rc" -ne 0 ] && status=1
    LOGS+=("$OUTDIR/torch.log")
  else
    echo "== torch: skipped (needs 2 GPUs and PyTorch)"
  fi
fi

if wants torch-mrs; then
  if [ "$GPUS" -ge 2 ] && python3 -c 'import torch' 2>/dev/null; then
    echo "== torch-mrs (fused_matmul_reduce_scatter, mm + NCCL)"
    PYTHONUNBUFFERED=1 timeout "$TIMEOUT" python3 "$ROOT/bench/matmul_reduce_scatter/torch_fused.py" \
      --nproc 2 2>&1 | tee "$OUTDIR/torch-mrs.log"
    rc=${PIPESTATUS[0]}
    echo "torch-mrs: exit $rc"
    [ "$rc" -ne 0 ] && status=1
    LOGS+=("$OUTDIR/torch-mrs.log")
  else
    echo "== torch-mrs: skipped (needs 2 GPUs and PyTorch)"
  fi
fi

if wants torch-collectives; then
  if [ "$GPUS" -ge 2 ] && python3 -c 'import torch' 2>/dev/null; then
    for ops in one_shot_all_reduce,two_shot_all_reduce,nccl_all_reduce all_to_all_vdev; do
      name=torch-collectives-${ops%%,*}
      echo "== $name"
      PYTHONUNBUFFERED=1 timeout "$TIMEOUT" python3 "$ROOT/bench/collectives/torch_symm_mem.py" \
        --nproc 2 --ops "$ops" 2>&1 | tee "$OUTDIR/$name.log"
      rc=${PIPESTATUS[0]}
      echo "$name: exit $rc"
      [ "$rc" -ne 0 ] && status=1
      LOGS+=("$OUTDIR/$name.log")
    done
  else
    echo "== torch-collectives: skipped (needs 2 GPUs and PyTorch)"
  fi
fi

# The tables last: each log from its title line on.
echo
echo "================================ tables ================================"
for log in "${LOGS[@]}"; do
  awk '/^(weave |PyTorch )/ { on = 1 } on' "$log"
  echo
done
exit $status
