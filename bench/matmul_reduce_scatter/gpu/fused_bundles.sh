# Sourced by stage.sh and variants.sh (here, at staging): the bundles of
# both fused ops that `fused_ops --bundles DIR` runs (D = 2, 4, 8; bf16 and
# f16; m_shard 128, k 256, n 320; the GEMM + reduce-scatter's both
# algorithms, owner_slots and copy_engine), compiled with BUILD's weave-ops
# and weavec into DIR.
. "$(dirname "${BASH_SOURCE[0]}")/../../gpu_libs.sh" # op_bundle
fused_bundles() { # BUILD DIR
  local build=$1 dir=$2 op d t
  for d in 2 4 8; do for t in bf16 f16; do
    for op in all_gather_matmul "matmul_reduce_scatter --algorithm owner_slots" \
              "matmul_reduce_scatter --algorithm copy_engine"; do
      # shellcheck disable=SC2086 # op holds the op's name and its algorithm
      op_bundle "$build" "$dir" $op --team-size $d --dtype $t --m-shard 128 \
        --k 256 --n 320 || return 1
    done
  done; done
}
