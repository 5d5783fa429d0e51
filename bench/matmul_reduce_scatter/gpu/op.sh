#!/usr/bin/env bash
# Issue #31: the op itself (`weave_bench_matmul_reduce_scatter --op
# copy_engine,owner_slots`: ops::MatmulReduceScatter with each algorithm,
# its kernels from `weave-ops source` + weavec) beside the bench's fused
# kernel, its --ce copy design, local cuBLAS and cuBLAS + NCCL, and PyTorch's
# fused_matmul_reduce_scatter (torch_fused.py), on one 4-GPU machine, D = 4
# then D = 2 (GPUs 0, 1). The bench checks every output first (NaN-poisoned,
# every element; the op also three calls back to back, three graph replays
# and once after its timings), then times in CUDA graphs.
#
#   bench/matmul_reduce_scatter/gpu/op.sh --stage BUILD CARRY
#   OUT=... bash CARRY/op.sh CARRY          (on the GPU machine)
#
# BUILD configured with -DWEAVE_STATIC_RUNTIME_LIBS=ON, after
#   ninja weavec weave-ops weave_bench_matmul_reduce_scatter
# Folders (bf16; m_shard per folder in RUNS below), each holding the op's
# instances of both algorithms at D = 2 and 4 under their keys (`weave-ops
# key`), which are also the bench's fused and --ce bundle names:
#   a  K = N = 4096 (m_shard 1024, 1536, 4096)
#   b  K 7168, N 8192 (4096: the 70B down projection at TP 4)
#   c  K 14336, N 8192 (1024: the 70B down projection at TP 2)
#   o  K 5120, N 3072 (640: a shape no issue names)
set -euo pipefail
if [ "${1:-}" = --stage ]; then
  BUILD=$(cd "$2" && pwd); C=$3; HERE=$(cd "$(dirname "$0")" && pwd)
  SRC=$(cd "$HERE/../../.." && pwd)
  mkdir -p "$C"/{bin,bench/matmul_reduce_scatter,a,b,c,o}
  cp "$BUILD/bin/weave_bench_matmul_reduce_scatter" "$C/bin/"
  cp "$HERE"/{op.sh,calls.sh} "$C/"
  cp "$SRC/bench/matmul_reduce_scatter/torch_fused.py" "$C/bench/matmul_reduce_scatter/"
  cp "$SRC/bench/torch_common.py" "$C/bench/"
  . "$SRC/bench/gpu_libs.sh" # op_bundle
  put() { # FOLDER K N M_SHARD
    local d a
    for d in 2 4; do
      for a in owner_slots copy_engine; do
        op_bundle "$BUILD" "$C/$1" matmul_reduce_scatter --team-size $d \
          --dtype bf16 --m-shard $4 --k $2 --n $3 --algorithm $a
      done
    done
  }
  put a 4096 4096 1024; put b 7168 8192 4096; put c 14336 8192 1024; put o 5120 3072 640
  du -sh "$C"
  exit 0
fi
CARRY=$1; . "$CARRY/calls.sh"; C=$CARRY
nvidia-smi -L | tee -a "$LOG" || true
B=$C/bin/weave_bench_matmul_reduce_scatter
A="--iters ${ITERS:-20} --rounds 2 --samples 256 --ce --op copy_engine,owner_slots"
RUNS=${RUNS:-"a:1024,1536,4096 b:4096 c:1024 o:640"}
for d in ${TEAMS:-4 2}; do
  vis=$([ $d = 2 ] && echo 0,1 || echo 0,1,2,3)
  for r in $RUNS; do
    run ${BENCH_TIMEOUT:-60} "D=$d ${r%%:*} m=${r#*:}" env CUDA_VISIBLE_DEVICES=$vis $B --bundles $C/${r%%:*} --m-shards ${r#*:} --dtype bf16 --devices $d $A
  done
  [ "${TORCH:-1}" = 1 ] && run ${TORCH_TIMEOUT:-80} "torch fused D=$d" env CUDA_VISIBLE_DEVICES=$vis PYTHONUNBUFFERED=1 python3 $C/bench/matmul_reduce_scatter/torch_fused.py --nproc $d --dtype bf16 --iters 15 --shapes ${TORCH_SHAPES:-4096:4096@1024/1536/4096,7168:8192@4096,14336:8192@1024,5120:3072@640}
done
cat "$SUM"
# The tables: the op's rows (14 columns, the check's text has two more
# bars), then PyTorch's (11 columns); every note.
grep -h "op (\|copy-engine design: [a-z]" "$LOG" | sort | uniq -c | head -12 || true
awk -F'|' '$2 ~ /^ *[0-9]+ *$/ && $7 ~ /^ *(copy_engine|owner_slots) *$/' "$LOG"
awk -F'|' 'NF == 13 && $2 ~ /^ *[0-9]+ *$/ && $6 ~ /f16/' "$LOG"
