#!/usr/bin/env bash
# torch_algorithms.py (every algorithm of both fused matmul ops by name,
# beside PyTorch, NCCL and local cuBLAS) on a GPU machine without LLVM:
# the op bundles are compiled here, the Python module is built there
# (runtime only), then each team size runs and prints its tables last.
#
#   bench/collective_matmul/algorithms_on_gpu.sh --stage BUILD_DIR CARRY [D...]
#       (here) the bundles of every algorithm ("auto" included) at every
#       shape of AGM_SHAPES and MRS_SHAPES (m_shard:k:n,... as
#       torch_algorithms.py's --agm and --mrs) for team sizes D (default
#       2 4), with their companions, into CARRY/algorithms
#   bench/collective_matmul/algorithms_on_gpu.sh CARRY [D...]
#       (there, from the repository root, with the same AGM_SHAPES and
#       MRS_SHAPES; logs in $OUT or /tmp/algorithms-out)
#
# D4_AGM_SHAPES / D2_AGM_SHAPES (and MRS) override the shapes of one team
# size; ALGORITHMS (comma-separated) runs only those algorithms there;
# ALGO_SECONDS bounds each team size's run (default 240); DTYPE (bf16, the
# default, or f16; "scatter" is bf16 only) at both ends; ALGO_ARGS adds
# options of torch_algorithms.py (e.g. "--iters 2000 --warmup 200": each
# case long enough for the power limit's clock, docs/PERF.md "The H200's
# power limit").
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# shapes_of OP D: the shapes of OP (AGM or MRS) at team size D.
shapes_of() {
  local var="D$2_$1_SHAPES" all="$1_SHAPES"
  echo "${!var:-${!all:-}}"
}

if [ "${1:-}" = "--stage" ]; then
  BUILD=$(cd "${2:?usage: $0 --stage BUILD_DIR CARRY [D...]}" && pwd) || exit 1
  CARRY=${3:?usage: $0 --stage BUILD_DIR CARRY [D...]}
  shift 3
  . "$ROOT/bench/gpu_libs.sh" # op_bundle
  teams=("$@")
  [ ${#teams[@]} -eq 0 ] && teams=(2 4)
  for d in "${teams[@]}"; do
    for pair in "AGM all_gather_matmul ring gather copy_engine auto" \
      "MRS matmul_reduce_scatter copy_engine scatter owner_slots input_gather auto"; do
      read -r which op algorithms <<<"$pair"
      for shape in $(shapes_of "$which" "$d" | tr , ' '); do
        IFS=: read -r m k n <<<"$shape"
        for a in $algorithms; do
          [ "${DTYPE:-bf16}" = f16 ] && [ "$a" = scatter ] && continue
          op_bundle "$BUILD" "$CARRY/algorithms" "$op" --team-size "$d" --dtype "${DTYPE:-bf16}" \
            --m-shard "$m" --k "$k" --n "$n" --algorithm "$a" >/dev/null || exit 1
        done
      done
    done
  done
  echo "staged $(find "$CARRY/algorithms" -name "*.wbundle" | wc -l) bundles in $CARRY/algorithms"
  exit 0
fi

C=$(cd "${1:?usage: $0 CARRY [D...]}" && pwd)
shift
teams=("$@")
[ ${#teams[@]} -eq 0 ] && teams=(4 2)
OUTDIR=${OUT:-/tmp/algorithms-out}
mkdir -p "$OUTDIR"
cd "$ROOT" || exit 1
. bench/gpu_libs.sh
start=$SECONDS
start_torch_bench "$OUTDIR"
for d in "${teams[@]}"; do
  [ "$d" -gt "$GPUS" ] && continue
  agm=$(shapes_of AGM "$d") mrs=$(shapes_of MRS "$d")
  [ -n "$agm$mrs" ] || continue
  CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((d - 1))) PYTHONPATH=$PYB/python \
    timeout "${ALGO_SECONDS:-240}" python3 bench/collective_matmul/torch_algorithms.py \
    --nproc "$d" --kernels "$C/algorithms" --dtype "${DTYPE:-bf16}" \
    ${agm:+--agm "$agm"} ${mrs:+--mrs "$mrs"} \
    ${ALGORITHMS:+--algorithms "$ALGORITHMS"} ${ALGO_ARGS:-} \
    >"$OUTDIR/algorithms_d$d.log" 2>&1
  echo "algorithms D = $d: exit $? ($((SECONDS - start)) s)"
done
for d in "${teams[@]}"; do
  [ -f "$OUTDIR/algorithms_d$d.log" ] || continue
  echo "== D = $d"
  grep -E "^\||differ|Error|error:" "$OUTDIR/algorithms_d$d.log" | tail -24
done
