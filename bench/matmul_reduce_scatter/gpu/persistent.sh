#!/usr/bin/env bash
# Issue #31: the copy-engine GEMM + reduce-scatter's persistent schedule
# (ce_matmul_all, ops/lib/CopyEngine.h), on one 4-GPU machine, in one call:
#  1. correctness of the op's persistent schedule (forced:
#     WEAVE_MRS_CE_SCHEDULE=persistent) through examples/fused_ops (K 256, N 320: a last column tile
#     past the edge; m_shard 128 and 384; every element against float64
#     from NaN-poisoned outputs, three calls with no host synchronization,
#     three graph replays): a loopback team of 2 and of 4 on one GPU, one
#     process over 4 GPUs, one process per GPU (D = 4);
#  2. timing: `weave_bench_matmul_reduce_scatter --op
#     copy_engine@chunks,copy_engine@persistent` (both schedules of the op,
#     each checked first: once, three calls back to back, three graph
#     replays, once after its timings) beside the fused kernel, local cuBLAS
#     and cuBLAS + NCCL, then PyTorch's fused_matmul_reduce_scatter
#     (torch_fused.py), D = 4 then D = 2 (GPUs 0, 1).
#
#   bench/matmul_reduce_scatter/gpu/persistent.sh --stage BUILD CARRY
#   OUT=... bash CARRY/persistent.sh CARRY        (on the GPU machine)
#
# BUILD configured with -DWEAVE_STATIC_RUNTIME_LIBS=ON, after
#   ninja weavec weave-ops weave_bench_matmul_reduce_scatter fused_ops
# Bench folders as op.sh's (bf16): a K = N = 4096 (m_shard 1024, 1536,
# 4096), b 7168 x 8192 (4096), c 14336 x 8192 (1024), o 5120 x 3072 (640).
set -uo pipefail
if [ "${1:-}" = --stage ]; then
  set -e
  BUILD=$(cd "$2" && pwd); C=$3; HERE=$(cd "$(dirname "$0")" && pwd)
  SRC=$(cd "$HERE/../../.." && pwd)
  mkdir -p "$C"/{bin,bench/matmul_reduce_scatter,a,b,c,o,fused}
  cp "$BUILD/bin/weave_bench_matmul_reduce_scatter" "$BUILD/bin/fused_ops" "$C/bin/"
  cp "$HERE"/{persistent.sh,calls.sh} "$C/"
  cp "$SRC/bench/matmul_reduce_scatter/torch_fused.py" "$C/bench/matmul_reduce_scatter/"
  cp "$SRC/bench/torch_common.py" "$C/bench/"
  . "$SRC/bench/gpu_libs.sh" # op_bundle
  bundle() { # DIR ALGORITHM D M K N
    op_bundle "$BUILD" "$C/$1" matmul_reduce_scatter --team-size $3 --dtype bf16 \
      --m-shard $4 --k $5 --n $6 --algorithm $2
  }
  for d in 2 4; do
    bundle fused copy_engine $d 128 256 320
    for f in a:4096:4096 b:7168:8192 c:14336:8192 o:5120:3072; do
      IFS=: read -r dir k n <<<"$f"
      # owner_slots: the bench's fused kernel (its cases come from it).
      bundle "$dir" owner_slots $d 128 "$k" "$n"
      bundle "$dir" copy_engine $d 128 "$k" "$n"
    done
  done
  du -sh "$C"
  exit 0
fi
CARRY=$1; . "$CARRY/calls.sh"; C=$CARRY
nvidia-smi -L | tee -a "$LOG" || true
export WEAVE_MRS_CE_SCHEDULE=persistent # the bench's --op @ overrides it
F=$C/bin/fused_ops; FA="--bundles $C/fused --dtype bf16 --agm-algorithm none --mrs-algorithm copy_engine"
L=${CHECK_TIMEOUT:-30}
run $L "fused_ops loopback D=2" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=2 $F $FA
run $L "fused_ops loopback D=4" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=4 $F $FA
run $L "fused_ops one process, 4 GPUs" env CUDA_VISIBLE_DEVICES=0,1,2,3 $F $FA
# One process per GPU, D = 4 (a rendezvous folder; each rank checks its
# own member's outputs; the run fails if any rank does).
MP='rv=$(mktemp -d); pids=""; for r in 0 1 2 3; do RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r WEAVE_RENDEZVOUS_DIR=$rv '"$F $FA"' & pids="$pids $!"; done; ok=0; for p in $pids; do wait $p || ok=1; done; rm -rf $rv; exit $ok'
run $L "fused_ops one process per GPU, D=4" bash -c "$MP"
# A wrong or hung op is not timed (the time is kept for a fixed build).
if grep -q FAIL "$SUM"; then
  cat "$SUM"; grep -v ": ok: " "$LOG" | tail -60; exit 1
fi
B=$C/bin/weave_bench_matmul_reduce_scatter
A="--iters ${ITERS:-20} --rounds 2 --samples 256 --dtype bf16 --op copy_engine@chunks,copy_engine@persistent"
RUNS=${RUNS:-"a:1024,1536,4096 b:4096 c:1024 o:640"}
for d in ${TEAMS:-4 2}; do
  vis=$([ $d = 2 ] && echo 0,1 || echo 0,1,2,3)
  for r in $RUNS; do
    run ${BENCH_TIMEOUT:-45} "D=$d ${r%%:*} m=${r#*:}" env CUDA_VISIBLE_DEVICES=$vis $B --bundles $C/${r%%:*} --m-shards ${r#*:} --devices $d $A
  done
  [ "${TORCH:-1}" = 1 ] && run ${TORCH_TIMEOUT:-70} "torch fused D=$d" env CUDA_VISIBLE_DEVICES=$vis PYTHONUNBUFFERED=1 python3 $C/bench/matmul_reduce_scatter/torch_fused.py --nproc $d --dtype bf16 --iters 15 --shapes ${TORCH_SHAPES:-4096:4096@1024/1536/4096,7168:8192@4096,14336:8192@1024,5120:3072@640}
done
cat "$SUM"
grep -h "op (\|error\|WRONG\|FAIL" "$LOG" | sort | uniq -c | head -20 || true
# The op rows (algorithm column 7), then PyTorch's.
awk -F'|' '$2 ~ /^ *[0-9]+ *$/ && $7 ~ /^ *copy_engine/' "$LOG"
awk -F'|' 'NF == 13 && $2 ~ /^ *[0-9]+ *$/ && $6 ~ /f16/' "$LOG"
