#!/usr/bin/env bash
# Issue #31, the owner-reduce GEMM + reduce-scatter (owner_combine.mlir.in: the combine region and
# per-source flags) against the per-source slots with a sum pass (the
# template of df172ea), on one 4-GPU machine: correctness first (the
# example at D = 2, 3, 4 on real GPUs and D = 2, 4, 8 in loopback, with
# NaN-poisoned c, three launches without host synchronization; fused_ops:
# the op, two calls and three graph replays), then the bench at D = 2
# (GPUs 0, 1) and D = 4, the variants alternating, and PyTorch's fused op.
#
#   bench/matmul_reduce_scatter/gpu/owner.sh --stage BUILD CARRY
#   OUT=... bash CARRY/owner.sh CARRY          (on the GPU machine)
#
# BUILD configured with -DWEAVE_STATIC_RUNTIME_LIBS=ON, after
#   ninja weavec weave-ops fused_ops matmul_reduce_scatter weave_bench_matmul_reduce_scatter
# Variants (bench bundles, dynamic m_shard, bf16 unless said):
#   own    owner_combine.mlir.in (own shard last: grid_tile_lag 65536)
#   first  the first owner-reduce template (98c977b: a branch per chunk and
#          per source in the combine, its loads one after the other)
#   lag16  own with grid_tile_lag = 16 (own rows trail by 16 row tiles)
#   noadd  own whose combine neither waits nor adds (its sums are wrong on
#          purpose: the combine's cost, not a kernel)
# (The pass design of df172ea binds a 2-semaphore `barrier` the bench no
# longer takes: its times are the previous session's, docs/PERF.md.)
set -euo pipefail
if [ "${1:-}" = --stage ]; then
  BUILD=$(cd "$2" && pwd); C=$3; HERE=$(cd "$(dirname "$0")" && pwd)
  SRC=$(cd "$HERE/../../.." && pwd)
  TPL=$SRC/ops/templates/matmul_reduce_scatter/owner_combine.mlir.in
  mkdir -p "$C"/{bin,bench/matmul_reduce_scatter,fused-bundles,lb,tpl}
  git -C "$SRC" show 98c977b:ops/templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in > "$C/tpl/first.mlir.in"
  cp "$TPL" "$C/tpl/own.mlir.in"
  sed -e 's/grid_tile_lag = 65536 : i64/grid_tile_lag = 16 : i64/' "$TPL" > "$C/tpl/lag16.mlir.in"
  grep -q 'grid_tile_lag = 16 ' "$C/tpl/lag16.mlir.in"
  sed -e '0,/%mine = arith.cmpi eq, %owner, %me : index/s//%mine = arith.cmpi ne, %owner, %owner : index/' "$TPL" > "$C/tpl/noadd.mlir.in"
  [ "$(grep -c 'arith.cmpi ne, %owner, %owner' "$C/tpl/noadd.mlir.in")" = 1 ]
  cp "$BUILD"/bin/{fused_ops,matmul_reduce_scatter,weave_bench_matmul_reduce_scatter} "$C/bin/"
  cp "$HERE"/{owner.sh,calls.sh} "$C/"
  cp "$SRC/bench/matmul_reduce_scatter/torch_fused.py" "$C/bench/matmul_reduce_scatter/"
  cp "$SRC/bench/torch_common.py" "$C/bench/"
  W=$BUILD/bin/weavec
  bundle() { # TEMPLATE OUT D T N ROWS K COLS
    local src=$2.mlir
    sed -e "s/@D@/$3/g; s/@T@/$4/g; s/@N@/$5/g; s/@ROWS@/$6/g; s/@K@/$7/g; s/@COLS@/$8/g; s/@NARROW@/arith.truncf/g" "$1" > "$src"
    "$W" "$src" --emit=bundle -o "$2"; rm -f "$src"
  }
  for v in ${VARIANTS:-own first noadd}; do
    t=$C/tpl/$v.mlir.in; mkdir -p "$C/$v"/{a,b,c,q}
    bundle "$t" "$C/$v/a/matmul_reduce_scatter_bf16_d2_mdyn_k4096_n4096.wbundle" 2 bf16 '?' '?' 4096 4096
    bundle "$t" "$C/$v/a/matmul_reduce_scatter_bf16_d2_mdyn_k14336_n8192.wbundle" 2 bf16 '?' '?' 14336 8192
    bundle "$t" "$C/$v/b/matmul_reduce_scatter_bf16_d2_mdyn_k7168_n4096.wbundle" 2 bf16 '?' '?' 7168 4096
    bundle "$t" "$C/$v/b/matmul_reduce_scatter_f16_d2_mdyn_k4096_n4096.wbundle" 2 f16 '?' '?' 4096 4096
    bundle "$t" "$C/$v/c/matmul_reduce_scatter_bf16_d2_mdyn_k6912_n5120.wbundle" 2 bf16 '?' '?' 6912 5120
    bundle "$t" "$C/$v/q/matmul_reduce_scatter_bf16_d4_mdyn_k4096_n4096.wbundle" 4 bf16 '?' '?' 4096 4096
    bundle "$t" "$C/$v/q/matmul_reduce_scatter_bf16_d4_mdyn_k7168_n8192.wbundle" 4 bf16 '?' '?' 7168 8192
  done
  for d in 2 3 4 8; do for t in bf16 f16; do
    bundle "$C/tpl/own.mlir.in" "$C/lb/matmul_reduce_scatter_${t}_d${d}_mdyn.wbundle" $d $t '?' '?' 256 320
  done; done
  bundle "$C/tpl/own.mlir.in" "$C/lb/matmul_reduce_scatter_bf16_d12_n256.wbundle" 12 bf16 256 3072 256 320
  bundle "$C/tpl/lag16.mlir.in" "$C/lb/lag16_bf16_d2_mdyn.wbundle" 2 bf16 '?' '?' 256 320
  . "$HERE/../../gpu_libs.sh"; fused_op_bundles "$BUILD" "$C/fused-bundles"
  du -sh "$C"
  exit 0
fi
# The environment, the logs and `run` of calls.sh (staged beside this).
CARRY=$1; . "$CARRY/calls.sh"; C=$CARRY
nvidia-smi -L | tee -a "$LOG"
X=$C/bin/matmul_reduce_scatter
for m in 128 384; do for t in bf16 f16; do
  run 30 "real D=2 $t m=$m" env CUDA_VISIBLE_DEVICES=0,1 $X $C/lb/matmul_reduce_scatter_${t}_d2_mdyn.wbundle --m-shard $m
done; done
run 30 "real D=2 lag16 m=384" env CUDA_VISIBLE_DEVICES=0,1 $X $C/lb/lag16_bf16_d2_mdyn.wbundle --m-shard 384
run 30 "real D=3 bf16 m=256" env CUDA_VISIBLE_DEVICES=0,1,2 $X $C/lb/matmul_reduce_scatter_bf16_d3_mdyn.wbundle --m-shard 256
for m in 128 384; do
  run 30 "real D=4 bf16 m=$m" env CUDA_VISIBLE_DEVICES=0,1,2,3 $X $C/lb/matmul_reduce_scatter_bf16_d4_mdyn.wbundle --m-shard $m
done
run 30 "real D=4 f16 m=384" env CUDA_VISIBLE_DEVICES=0,1,2,3 $X $C/lb/matmul_reduce_scatter_f16_d4_mdyn.wbundle --m-shard 384
for d in 2 4 8; do
  run 40 "loopback D=$d bf16 m=384" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d $X $C/lb/matmul_reduce_scatter_bf16_d${d}_mdyn.wbundle --m-shard 384
done
[ "${D12:-0}" = 1 ] && run 40 "loopback D=12 static 256" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=12 $X $C/lb/matmul_reduce_scatter_bf16_d12_n256.wbundle
run 60 "fused_ops real D=2" env CUDA_VISIBLE_DEVICES=0,1 $C/bin/fused_ops --bundles $C/fused-bundles
run 60 "fused_ops real D=4" env CUDA_VISIBLE_DEVICES=0,1,2,3 $C/bin/fused_ops --bundles $C/fused-bundles
# Timings only of kernels that passed every check.
if [ "${CHECK_ONLY:-0}" = 1 ] || grep -q '^FAIL' "$SUM"; then cat "$SUM"; exit 0; fi
B=$C/bin/weave_bench_matmul_reduce_scatter; A="--iters 20 --rounds 2"
for v in ${ROUNDS:-own first noadd own}; do
  run 40 "D=2 $v/a" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/a --m-shards 1024,4096 --devices 2 $A
  run 30 "D=2 $v/b" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/b --m-shards 4096 --devices 2 $A
  run 30 "D=2 $v/c" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/c --m-shards 2048 --devices 2 $A
done
for v in ${D4VARIANTS:-own noadd}; do
  run 60 "D=4 $v/q" env CUDA_VISIBLE_DEVICES=0,1,2,3 $B --bundles $C/$v/q --m-shards 1024,4096 --devices 4 $A
done
if [ "${TORCH:-0}" = 1 ]; then
  run 90 "torch fused D=4 bf16" env CUDA_VISIBLE_DEVICES=0,1,2,3 PYTHONUNBUFFERED=1 python3 $C/bench/matmul_reduce_scatter/torch_fused.py --nproc 4 --dtype bf16 --iters 15 --shapes 4096:4096@1024/4096,7168:8192@1024/4096
  run 90 "torch fused D=2 bf16" env CUDA_VISIBLE_DEVICES=0,1 PYTHONUNBUFFERED=1 python3 $C/bench/matmul_reduce_scatter/torch_fused.py --nproc 2 --dtype bf16 --iters 15 --shapes 4096:4096@1024/4096,14336:8192@1024/4096,7168:4096@4096,6912:5120@2048
fi
cat "$SUM"
awk '/^=== /{v=$0} /^\| [0-9]+ +\| [0-9]+ +\| [0-9]+ +\| [234] +\| (bf16|f16) +\| [0-9.]+ +\|/{print v, $0}' "$LOG"
grep -h 'torch\|ms' "$LOG" | grep -i 'fused\|graph\|eager' | tail -30
