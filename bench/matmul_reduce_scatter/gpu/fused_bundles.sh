# Sourced by stage.sh and variants.sh (here, at staging): the bundles of
# both fused ops that `fused_ops --bundles DIR` runs (D = 2, 4, 8; bf16 and
# f16; m_shard 128, k 256, n 320; the GEMM + reduce-scatter's both
# algorithms, owner_slots and copy_engine), compiled with BUILD's weave-ops
# and weavec into DIR.
fused_bundles() { # BUILD DIR
  local build=$1 dir=$2 op d t key
  mkdir -p "$dir"
  for d in 2 4 8; do for t in bf16 f16; do
    for op in all_gather_matmul "matmul_reduce_scatter --algorithm owner_slots" \
              "matmul_reduce_scatter --algorithm copy_engine"; do
      set -- --team-size $d --dtype $t --m-shard 128 --k 256 --n 320
      key=$("$build/bin/weave-ops" key $op "$@")
      "$build/bin/weave-ops" source $op "$@" -o "$dir/op.mlir"
      "$build/bin/weavec" "$dir/op.mlir" --emit=bundle -o "$dir/$key.wbundle"
    done
  done; done
  rm -f "$dir/op.mlir"
}
