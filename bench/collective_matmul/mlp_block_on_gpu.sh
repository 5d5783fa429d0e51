#!/usr/bin/env bash
# The tensor-parallel MLP block (torch_mlp_block.py, --parts) on a GPU
# machine without LLVM: the op bundles are compiled here, the Python
# module is built there (runtime only), then TP = 4 (where there are 4
# GPUs) and TP = 2 run and print their tables last.
#
#   bench/collective_matmul/mlp_block_on_gpu.sh --stage BUILD_DIR CARRY [D...]
#       (here) every op bundle the block needs at team sizes D (default
#       2 4), from `torch_mlp_block.py --print-ops D`, into CARRY/mlp
#   bench/collective_matmul/mlp_block_on_gpu.sh CARRY
#       (there, from the repository root; logs in $OUT or /tmp/mlp-out)
#
# MLP_ARGS adds arguments to torch_mlp_block.py (e.g. "--models 70b"; give
# the same at staging where they change the shapes or the bundles, e.g.
# "--tokens 1024" or "--agm-algorithm copy_engine");
# SAMPLE_CLOCKS=1 samples every GPU's SM clock and power draw (nvidia-smi,
# every 100 ms) while the block runs and prints their range per TP (the
# H200's 700 W limit moves its clock with the load, docs/PERF.md, so a
# time wants its clock beside it);
# MLP_SECONDS bounds each team size's run (default 60: one TP with both
# models took about 20 s on 4 x H100, the Python build about 30 s).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" = "--stage" ]; then
  BUILD=$(cd "${2:?usage: $0 --stage BUILD_DIR CARRY [D...]}" && pwd) || exit 1
  CARRY=${3:?usage: $0 --stage BUILD_DIR CARRY [D...]}
  shift 3
  . "$ROOT/bench/gpu_libs.sh" # op_bundle
  teams=("$@")
  [ ${#teams[@]} -eq 0 ] && teams=(2 4)
  for d in "${teams[@]}"; do
    # shellcheck disable=SC2086 # MLP_ARGS is a list
    python3 "$ROOT/bench/collective_matmul/torch_mlp_block.py" --print-ops "$d" ${MLP_ARGS:-}
  done | while read -r -a op; do
    op_bundle "$BUILD" "$CARRY/mlp" "${op[@]}" || exit 1
  done || exit 1
  exit 0
fi

C=$(cd "${1:?usage: $0 CARRY}" && pwd)
OUTDIR=${OUT:-/tmp/mlp-out}
mkdir -p "$OUTDIR"
cd "$ROOT"
. bench/gpu_libs.sh
start=$SECONDS
start_torch_bench "$OUTDIR"
for tp in 4 2; do
  [ "$tp" -gt "$GPUS" ] && continue
  # shellcheck disable=SC2086
  sampler=
  if [ "${SAMPLE_CLOCKS:-0}" = 1 ]; then
    nvidia-smi --query-gpu=index,clocks.sm,power.draw --format=csv,noheader,nounits \
      -lms 100 >"$OUTDIR/clocks_tp$tp.csv" 2>/dev/null &
    sampler=$!
  fi
  CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((tp - 1))) PYTHONPATH=$PYB/python \
    timeout "${MLP_SECONDS:-60}" python3 bench/collective_matmul/torch_mlp_block.py \
    --nproc $tp --kernels "$C/mlp" --parts ${MLP_ARGS:-} >"$OUTDIR/mlp_tp$tp.log" 2>&1
  echo "MLP block TP = $tp: exit $? ($((SECONDS - start)) s)"
  if [ -n "$sampler" ]; then
    kill "$sampler" 2>/dev/null
    # Per GPU of the run: SM clock min / median / max (MHz), power max (W).
    for g in $(seq 0 $((tp - 1))); do
      awk -F', *' -v g=$g '$1 == g { print $2, $3 }' "$OUTDIR/clocks_tp$tp.csv" | sort -n |
        awk -v tp=$tp -v g=$g '{ c[NR] = $1; if ($2 > p) p = $2 }
          END { if (NR) printf "clocks TP = %d GPU %d: SM MHz min %d median %d max %d, power max %.0f W (%d samples)\n", tp, g, c[1], c[int((NR + 1) / 2)], c[NR], p, NR }'
    done
  fi
done
for tp in 4 2; do
  [ -f "$OUTDIR/mlp_tp$tp.log" ] || continue
  echo "== TP = $tp"
  grep -E "^\||differ|note|Error" "$OUTDIR/mlp_tp$tp.log" | tail -16
done
