#!/usr/bin/env bash
# Builds an A/B of the tail split at fixed tiles (the calibration of the
# chooser's estimate, docs/PERF.md "The tail split calibrated"): for each
# (N, K) below, each tile and each M = 128 * i (i = 1 .. MAX_ROW_TILES) whose
# last partial round the kernel would split at least kMinTailSplit ways on
# WORKERS SMs, a static bundle with the tile and no split and one with
# `tail_split = S` for each S of SPLITS, plus CONTROLS rows that do not
# split (the A/B's noise). The chooser is not involved: every bundle names
# its tile and stages.
#
#   bench/matmul/make_tail_ab.sh WEAVEC OUT_DIR
#
# OUT_DIR/sweep.txt lists `bf16 M N K unsplit.wbundle split.wbundle` rows
# for `weave_bench_matmul --sweep OUT_DIR/sweep.txt` (the split bundle in
# the dynamic column: "dyn/static" is split / unsplit). Env: SHAPES ("N,K
# ..."), TILES ("TMxTNxSTAGES ..."), SPLITS ("4 8"), WORKERS (132, an
# H100 SXM), MAX_ROW_TILES (24), DTYPE (bf16), JOBS (2).
set -euo pipefail
WEAVEC=${1:?usage: $0 WEAVEC OUT_DIR}
OUT=${2:?usage: $0 WEAVEC OUT_DIR}
SHAPES=${SHAPES:-"8192,7168 5120,6912 4096,4096 14336,8192"}
TILES=${TILES:-"128x256x4 128x128x6"}
SPLITS=${SPLITS:-"4 8"}
WORKERS=${WORKERS:-132}
MAX_ROW_TILES=${MAX_ROW_TILES:-24}
DTYPE=${DTYPE:-bf16}
# The workspace of make_sweep.sh's TAIL_SPLIT: 160 partial tiles of
# 128 x 256 and their counters (the kernel splits no more than it holds; a
# split tile takes one a split). TAIL_WS overrides it (f32 words).
WS=${TAIL_WS:-5243552}
# (The counters first: splitKCounterWords, MatmulTiling.h.)
COUNTERS=$(( (WS / 8192 + (WS % 8192 != 0) + 31) / 32 * 32 ))
ROOM_TILES=$(( (WS - COUNTERS) / (128 * 256) ))
MIN_WAYS=3 # kMinTailSplit (MatmulTiling.h)
MIN_STEPS=4 # kMinTailSplitSteps
mkdir -p "$OUT"
: > "$OUT/sweep.txt"
jobs_file=$(mktemp)
trap 'rm -f "$jobs_file"' EXIT

# emit NAME M N K TM TN STAGES SPLIT
emit() {
  local name=$1 m=$2 n=$3 k=$4 tm=$5 tn=$6 st=$7 s=$8 attr=""
  [ "$s" -gt 1 ] && attr=" {tail_split = $s : i64}"
  cat > "$OUT/$name.mlir" <<EOF
module attributes {gpu.container_module} {
gpu.module @matmul {
  gpu.func @matmul(%a: memref<${m}x${k}x${DTYPE}> {weave.name = "a"},
                   %b: memref<${k}x${n}x${DTYPE}> {weave.name = "b"},
                   %c: memref<${m}x${n}x${DTYPE}> {weave.name = "c"},
                   %ws: memref<${WS}xf32> {weave.name = "ws"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(${tm}, ${tn}, 64) stages(${st}) workspace(%ws : memref<${WS}xf32>)${attr}
        : memref<${m}x${k}x${DTYPE}>, memref<${k}x${n}x${DTYPE}> into memref<${m}x${n}x${DTYPE}>
    gpu.return
  }
}
}
EOF
  local cfg="${tm}x${tn}x64 s${st}"
  [ "$s" -gt 1 ] && cfg="$cfg tail$s"
  echo "matmul $cfg" > "$OUT/$name.wbundle.config"
  echo "$name" >> "$jobs_file"
}

# ways T NUMK S: the kernel's split of the last round (tailSplitWays, the
# workspace's room: ROOM_TILES partial tiles of 128 x 256).
ways() {
  local tiles=$1 numk=$2 s=$3 tail w
  tail=$((tiles % WORKERS))
  [ "$tail" -eq 0 ] && { echo 1; return; }
  w=$s
  [ $((WORKERS / tail)) -lt "$w" ] && w=$((WORKERS / tail))
  [ $((numk / MIN_STEPS)) -lt "$w" ] && w=$((numk / MIN_STEPS))
  [ $((ROOM_TILES / tail)) -lt "$w" ] && w=$((ROOM_TILES / tail))
  # (2 ways after 2 whole rounds: kMinLateTailSplit, kLateTailSplitRounds)
  local least=$MIN_WAYS
  [ $((tiles / WORKERS)) -ge 2 ] && least=2
  [ "$w" -lt "$least" ] && w=1
  echo "$w"
}

for shape in $SHAPES; do
  n=${shape%,*}; k=${shape#*,}
  numk=$(((k + 63) / 64))
  for tile in $TILES; do
    IFS=x read -r tm tn st <<< "$tile"
    controls=0
    for i in $(seq 1 "$MAX_ROW_TILES"); do
      m=$((128 * i))
      [ $((m % tm)) -ne 0 ] && continue
      tiles=$(((m / tm) * ((n + tn - 1) / tn)))
      split=0
      for s in $SPLITS; do
        [ "$(ways "$tiles" "$numk" "$s")" -gt 1 ] && split=1
      done
      if [ "$split" -eq 0 ]; then
        # A few unsplit rows per tile: the A/B of two identical kernels.
        [ "$controls" -ge 1 ] || [ "$tiles" -lt "$WORKERS" ] && continue
        controls=$((controls + 1))
      fi
      base="ab_${m}x${n}x${k}_${tm}x${tn}"
      emit "$base" "$m" "$n" "$k" "$tm" "$tn" "$st" 1
      for s in $SPLITS; do
        emit "${base}_t$s" "$m" "$n" "$k" "$tm" "$tn" "$st" "$s"
        echo "$DTYPE $m $n $k $base.wbundle ${base}_t$s.wbundle" >> "$OUT/sweep.txt"
      done
    done
  done
done

count=$(wc -l < "$jobs_file")
xargs -P "${JOBS:-2}" -I{} "$WEAVEC" "$OUT/{}.mlir" --emit=bundle \
  -o "$OUT/{}.wbundle" < "$jobs_file"
echo "$count kernels in $OUT; $(wc -l < "$OUT/sweep.txt") rows in $OUT/sweep.txt"
