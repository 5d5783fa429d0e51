#!/usr/bin/env bash
# make-op-bundles.sh OUT_DIR WEAVE_OPS WEAVEC: the bundles the consumer's ops
# need on a machine without the compiler, made ahead of time the documented
# way (docs/OPS.md): `weave-ops source` fills the template, weavec compiles
# it to OUT_DIR/<weave-ops key>.wbundle.
set -euo pipefail
OUT=$1 OPS=$2 WEAVEC=$3
mkdir -p "$OUT"
for op in all_reduce all_gather; do
  args=("$op" --team-size 2 --dtype f32 --count 1001)
  "$OPS" source "${args[@]}" -o "$OUT/$op.mlir"
  "$WEAVEC" "$OUT/$op.mlir" --emit=bundle -o "$OUT/$("$OPS" key "${args[@]}").wbundle"
  rm "$OUT/$op.mlir"
done
# The fused matmuls the consumer runs (bf16, k = 256, n = 320, at its
# kShard and kRsShard rows: "auto" picks by the rows too).
for args in "all_gather_matmul --m-shard 128" "matmul_reduce_scatter --m-shard 384"; do
  read -r op shard <<<"$args"
  args=("$op" --team-size 2 --dtype bf16 $shard --k 256 --n 320)
  "$OPS" source "${args[@]}" -o "$OUT/$op.mlir"
  "$WEAVEC" "$OUT/$op.mlir" --emit=bundle -o "$OUT/$("$OPS" key "${args[@]}").wbundle"
  rm "$OUT/$op.mlir"
done
