#!/usr/bin/env bash
# Round 5 (issue #31): stages the GEMM + reduce-scatter variants that
# rs.sh checks and times in one call on 2 GPUs, into a carry folder.
#
#   bench/matmul_reduce_scatter/gpu/variants.sh BUILD CARRY [SWITCH_TEMPLATE]
#
# BUILD configured with -DWEAVE_STATIC_RUNTIME_LIBS=ON, after
#   ninja weavec weave-ops fused_ops matmul_reduce_scatter weave_bench_matmul_reduce_scatter
# Variants of the template (each a folder of bench bundles, D = 2):
#   one  the template as it is (one store `on %owner`; the compiler's peer views)
#   sw   SWITCH_TEMPLATE (default: the template of c286193: the switch over
#        the distances written out in the template, grid_tile_interleave)
#   w64  sw with grid_tile_width = 64 instead of the interleave (the
#        schedule of the merged tree 65a55d9)
#   w8   sw with neither (groups of 8 row tiles, shards in order)
#   w16  one with groups of 16 row tiles (not timed yet: next.sh; docs/PERF.md,
#        round 5, "a model of why")
# Bundles: dynamic m_shard bf16 at K:N 4096:4096 and 14336:8192 (timed at
# m_shard 1024, 4096: folder a), 7168:4096 and f16 4096:4096 (4096: b),
# 6912:5120 (2048: c, the down projection of a 14B model with hidden size
# 5120, intermediate 13824, at TP 2), for `one` and `w64` static bf16
# m_shard 1024 and 4096 at 4096 x 4096 (s), and but for `sw` D = 4 (q). Then the loopback bundles of
# `one` (D = 2, 4, 8 dynamic; 12, 4 static; f16 D = 2 static) and of `sw`
# (D = 2, 4, 8 dynamic) and the op's instances for fused_ops.
set -euo pipefail
BUILD=$(cd "$1" && pwd); C=$2; HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../.." && pwd)
TPL=$SRC/ops/templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in
SW=${3:-}
mkdir -p "$C"/{bin,bench/matmul_reduce_scatter,bench/matmul,fused-bundles,lb,lb-sw,tpl}
if [ -z "$SW" ]; then
  git -C "$SRC" show c286193:ops/templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in > "$C/tpl/sw.mlir.in"
else cp "$SW" "$C/tpl/sw.mlir.in"; fi
cp "$TPL" "$C/tpl/one.mlir.in"
sed -e 's/{grid_tile_interleave = @D@ : i64}/{grid_tile_width = 64 : i64}/' "$C/tpl/sw.mlir.in" > "$C/tpl/w64.mlir.in"
sed -e 's/ {grid_tile_interleave = @D@ : i64}//' "$C/tpl/sw.mlir.in" > "$C/tpl/w8.mlir.in"
sed -e 's/{grid_tile_interleave = @D@ : i64}/{grid_tile_width = 16 : i64, grid_tile_interleave = @D@ : i64}/' "$C/tpl/one.mlir.in" > "$C/tpl/w16.mlir.in"
grep -q 'grid_tile_width = 16' "$C/tpl/w16.mlir.in"
grep -q 'grid_tile_width = 64' "$C/tpl/w64.mlir.in"
! grep -q 'grid_tile_interleave' "$C/tpl/w8.mlir.in"
cp "$BUILD"/bin/{fused_ops,matmul_reduce_scatter,weave_bench_matmul_reduce_scatter} "$C/bin/"
cp "$HERE"/{gpu.sh,calls.sh,rs.sh,rs4.sh,next.sh} "$C/"
cp "$SRC/bench/matmul_reduce_scatter/torch_fused.py" "$C/bench/matmul_reduce_scatter/"
cp "$SRC/bench/torch_common.py" "$C/bench/"
W=$BUILD/bin/weavec
# bundle TEMPLATE OUT D T N ROWS K COLS
bundle() {
  local src=$2.mlir
  sed -e "s/@D@/$3/g; s/@T@/$4/g; s/@N@/$5/g; s/@ROWS@/$6/g; s/@K@/$7/g; s/@COLS@/$8/g; s/@NARROW@/arith.truncf/g" "$1" > "$src"
  "$W" "$src" --emit=bundle -o "$2"; rm -f "$src"
}
for v in one sw w64 w8 w16; do
  t=$C/tpl/$v.mlir.in; mkdir -p "$C/$v"/{a,b,c}
  bundle "$t" "$C/$v/a/matmul_reduce_scatter_bf16_d2_mdyn_k4096_n4096.wbundle" 2 bf16 '?' '?' 4096 4096
  bundle "$t" "$C/$v/a/matmul_reduce_scatter_bf16_d2_mdyn_k14336_n8192.wbundle" 2 bf16 '?' '?' 14336 8192
  bundle "$t" "$C/$v/b/matmul_reduce_scatter_bf16_d2_mdyn_k7168_n4096.wbundle" 2 bf16 '?' '?' 7168 4096
  bundle "$t" "$C/$v/b/matmul_reduce_scatter_f16_d2_mdyn_k4096_n4096.wbundle" 2 f16 '?' '?' 4096 4096
  bundle "$t" "$C/$v/c/matmul_reduce_scatter_bf16_d2_mdyn_k6912_n5120.wbundle" 2 bf16 '?' '?' 6912 5120
  # D = 4 (folder q: 4096:4096, and the 70B down projection at TP 4,
  # 28672 / 4 -> 7168:8192; timed at m_shard 1024 and 4096).
  if [ "${D4:-1}" = 1 ] && [ $v != sw ]; then
    mkdir -p "$C/$v/q"
    bundle "$t" "$C/$v/q/matmul_reduce_scatter_bf16_d4_mdyn_k4096_n4096.wbundle" 4 bf16 '?' '?' 4096 4096
    bundle "$t" "$C/$v/q/matmul_reduce_scatter_bf16_d4_mdyn_k7168_n8192.wbundle" 4 bf16 '?' '?' 7168 8192
  fi
  if [ $v = one ] || [ $v = w64 ]; then
    mkdir -p "$C/$v/s"
    for m in 1024 4096; do
      bundle "$t" "$C/$v/s/matmul_reduce_scatter_bf16_d2_m$m.wbundle" 2 bf16 $m $((2 * m)) 4096 4096
    done
  fi
done
for d in 2 4 8; do for t in bf16 f16; do
  bundle "$C/tpl/one.mlir.in" "$C/lb/matmul_reduce_scatter_${t}_d${d}_mdyn.wbundle" $d $t '?' '?' 256 320
done
  bundle "$C/tpl/sw.mlir.in" "$C/lb-sw/matmul_reduce_scatter_bf16_d${d}_mdyn.wbundle" $d bf16 '?' '?' 256 320
done
bundle "$C/tpl/one.mlir.in" "$C/lb/matmul_reduce_scatter_bf16_d12_n256.wbundle" 12 bf16 256 3072 256 320
bundle "$C/tpl/one.mlir.in" "$C/lb/matmul_reduce_scatter_bf16_d4_n256.wbundle" 4 bf16 256 1024 256 320
bundle "$C/tpl/one.mlir.in" "$C/lb/matmul_reduce_scatter_f16_d2_n128.wbundle" 2 f16 128 256 256 320
. "$HERE/../../gpu_libs.sh"; fused_op_bundles "$BUILD" "$C/fused-bundles"
du -sh "$C"
