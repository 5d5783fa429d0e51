#!/usr/bin/env bash
# Phases of the issue #31 runs (see stage.sh for the carry).
# mrs (issue #31): correctness and timings of the GEMM + reduce-scatter on
# the GPU machine, from the carry (.carry-mrs). Usage: gpu.sh PHASE...
# PHASES: loopback fused real2 real4 torch2 torch4 (each logs to $OUT).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
C=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/mrs-out}; mkdir -p "$OUT"
# cuBLAS and NCCL (the repository's copy where this script was carried).
. "$C/../../gpu_libs.sh" 2>/dev/null || . bench/gpu_libs.sh
export_gpu_libs
SUM=$OUT/summary.txt
pass=0; failn=0
run() { # NAME CMD...
  local name=$1; shift
  local t0=$(date +%s.%N)
  if timeout "${RUN_TIMEOUT:-60}" "$@" >>"$OUT/log.txt" 2>&1; then r=PASS; pass=$((pass+1)); else r="FAIL($?)"; failn=$((failn+1)); fi
  printf "%s %6.1fs %s\n" "$r" "$(awk -v a=$t0 -v b=$(date +%s.%N) "BEGIN{print b-a}")" "$name" | tee -a "$SUM"
}
for phase in "$@"; do
  case "$phase" in
  loopback)
    for b in "${LB:-$C/lb}"/*.wbundle; do
      n=$(basename "$b" .wbundle)
      d=$(echo "$n" | sed -E 's/.*_d([0-9]+)_(n|mdyn).*/\1/')
      if [[ "$n" == *_mdyn ]]; then
        for m in 128 384; do run "loopback D=$d $n m_shard=$m" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d "$C/bin/matmul_reduce_scatter" "$b" --m-shard $m; done
      else
        run "loopback D=$d $n" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d "$C/bin/matmul_reduce_scatter" "$b"
      fi
    done ;;
  fused)
    for d in 2 4 8; do run "fused_ops loopback D=$d (2 calls + 3 graph replays)" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d "$C/bin/fused_ops" --bundles "$C/fused-bundles"; done ;;
  real2|real4)
    d=${phase#real}; vis=$([ $d = 2 ] && echo 0,1 || echo 0,1,2,3)
    RUN_TIMEOUT=${BENCH_TIMEOUT:-150} run "bench D=$d $(basename ${BUNDLES:-all}) ${BENCH_ARGS:-}" env CUDA_VISIBLE_DEVICES=$vis "$C/bin/weave_bench_matmul_reduce_scatter" --bundles "${BUNDLES:-$C/bench/matmul_reduce_scatter}" --matmul-bundles "$C/bench/matmul" --devices $d ${BENCH_ARGS:-} ;;
  fused-d4|fused-d8)
    d=${phase#fused-d}; run "fused_ops loopback D=$d (2 calls + 3 graph replays)" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d "$C/bin/fused_ops" --bundles "$C/fused-bundles" ;;
  fused-real4)
    run "fused_ops real D=4 (2 calls + 3 graph replays)" env CUDA_VISIBLE_DEVICES=0,1,2,3 "$C/bin/fused_ops" --bundles "$C/fused-bundles" ;;
  realcheck)
    for d in 2 4; do vis=$([ $d = 2 ] && echo 0,1 || echo 0,1,2,3)
      for t in bf16 f16; do for m in 128 384; do run "real D=$d $t mdyn m_shard=$m (3 launches, no host sync)" env CUDA_VISIBLE_DEVICES=$vis "$C/bin/matmul_reduce_scatter" "$C/lb/matmul_reduce_scatter_${t}_d${d}_mdyn.wbundle" --m-shard $m; done; done
      run "fused_ops real D=$d (2 calls + 3 graph replays)" env CUDA_VISIBLE_DEVICES=$vis "$C/bin/fused_ops" --bundles "$C/fused-bundles"
    done ;;
  real1)
    RUN_TIMEOUT=${BENCH_TIMEOUT:-150} run "bench D=1 ${BENCH_ARGS1:-}" env CUDA_VISIBLE_DEVICES=0 "$C/bin/weave_bench_matmul_reduce_scatter" --bundles "${BUNDLES1:-$C/bench/matmul_reduce_scatter}" --matmul-bundles "$C/bench/matmul" --devices 1 ${BENCH_ARGS1:-} ;;
  torch2|torch4)
    d=${phase#torch}; vis=$([ $d = 2 ] && echo 0,1 || echo 0,1,2,3)
    RUN_TIMEOUT=${TORCH_TIMEOUT:-150} run "torch fused D=$d ${TORCH_ARGS:-}" env CUDA_VISIBLE_DEVICES=$vis PYTHONUNBUFFERED=1 python3 "$C/bench/matmul_reduce_scatter/torch_fused.py" --nproc $d ${TORCH_ARGS:-} ;;
  esac
done
echo "== $pass passed, $failn failed" | tee -a "$SUM"
