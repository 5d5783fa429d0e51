#!/usr/bin/env bash
# Issue #31, seventh session: the copy-engine GEMM + reduce-scatter
# (`weave_bench_matmul_reduce_scatter --ce`, CopyEngine.h) against the fused
# kernel (the op's template), local cuBLAS and cuBLAS + NCCL (the bench, one
# call per folder) and PyTorch's fused_matmul_reduce_scatter, on one 4-GPU
# machine, D = 4 then D = 2 (GPUs 0, 1). The bench checks every output of
# both designs first (NaN-poisoned, every element; the copy-engine design
# also three times back to back and after its graph replays).
#
#   bench/matmul_reduce_scatter/gpu/ce.sh --stage BUILD CARRY
#   OUT=... bash CARRY/ce.sh CARRY          (on the GPU machine)
#
# BUILD configured with -DWEAVE_STATIC_RUNTIME_LIBS=ON, after
#   ninja weave_bench_matmul_reduce_scatter <the bundles below>
# Folders (bf16 unless said; m_shard per folder in RUNS below):
#   a  K = N = 4096 (m_shard 1024, 1536, 4096)    f  the same in f16 (4096)
#   b  K 7168, N 8192 (4096: the 70B down projection at TP 4 is K 7168)
#   c  K 14336, N 8192 (1024: the 70B down projection at TP 2)
# (The seventh session's folder a128, the chunks of bench/matmul/
# matmul.mlir.in's fixed 128 x 256 tile, is gone: the two kernels are one
# bundle of the op's template now, ops/templates/matmul_reduce_scatter/
# ce_matmul.mlir.in; its result is in docs/PERF.md.)
set -euo pipefail
if [ "${1:-}" = --stage ]; then
  BUILD=$(cd "$2" && pwd); C=$3; HERE=$(cd "$(dirname "$0")" && pwd)
  SRC=$(cd "$HERE/../../.." && pwd); S=$BUILD/bench/matmul_reduce_scatter
  mkdir -p "$C"/{bin,bench/matmul_reduce_scatter,a,f,b,c}
  cp "$BUILD/bin/weave_bench_matmul_reduce_scatter" "$C/bin/"
  cp "$HERE"/{ce.sh,calls.sh} "$C/"
  cp "$SRC/bench/matmul_reduce_scatter/torch_fused.py" "$C/bench/matmul_reduce_scatter/"
  cp "$SRC/bench/torch_common.py" "$C/bench/"
  put() { # FOLDER DTYPE K N
    for d in 2 4; do
      cp "$S/matmul_reduce_scatter_$2_d${d}_mdyn_k$3_n$4.wbundle" "$S/ce_matmul_$2_d${d}_mdyn_k$3_n$4.wbundle" "$C/$1/"
    done
  }
  put a bf16 4096 4096; put f f16 4096 4096; put b bf16 7168 8192; put c bf16 14336 8192
  du -sh "$C"
  exit 0
fi
CARRY=$1; . "$CARRY/calls.sh"; C=$CARRY
nvidia-smi -L | tee -a "$LOG"
B=$C/bin/weave_bench_matmul_reduce_scatter; A="--iters 20 --rounds 2 --ce"
RUNS=${RUNS:-"a:1024,1536,4096 f:4096 b:4096 c:1024"}
for d in ${TEAMS:-4 2}; do
  vis=$([ $d = 2 ] && echo 0,1 || echo 0,1,2,3)
  for r in $RUNS; do
    run ${BENCH_TIMEOUT:-60} "D=$d ${r%%:*} m=${r#*:}" env CUDA_VISIBLE_DEVICES=$vis $B --bundles $C/${r%%:*} --m-shards ${r#*:} --devices $d $A
  done
  [ "${TORCH:-1}" = 1 ] && run ${TORCH_TIMEOUT:-100} "torch fused D=$d" env CUDA_VISIBLE_DEVICES=$vis PYTHONUNBUFFERED=1 python3 $C/bench/matmul_reduce_scatter/torch_fused.py --nproc $d --dtype all --iters 15 --shapes ${TORCH_SHAPES:-4096:4096@1024/1536/4096,7168:8192@4096,14336:8192@1024}
done
cat "$SUM"
# The tables: the copy-engine notes and rows (17 columns, the check's text has two more bars), then PyTorch's
# (11 columns).
grep -h "copy-engine design: [a-z]" "$LOG" | sort | uniq -c | head -12
awk -F'|' 'NF >= 19 && $2 ~ /^ *[0-9]+ *$/' "$LOG"
awk -F'|' 'NF == 13 && $2 ~ /^ *[0-9]+ *$/ && $6 ~ /f16/' "$LOG"
