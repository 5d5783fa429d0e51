#!/usr/bin/env bash
# Builds the matmul sweep's bundles (not part of the default build: the
# target weave_bench_matmul_sweep_bundles, or this script directly).
#
#   bench/matmul/make_sweep.sh WEAVEC OUT_DIR [SHAPES_FILE]
#
# For each row `dtype M N K` of SHAPES_FILE (default sweep_shapes.txt beside
# this script): a static bundle from matmul_auto.mlir.in (tile(auto); with a
# split-K workspace when M <= 1024), and one dynamic-M bundle (`?` rows) per
# (dtype, N, K), shared by the rows with that N and K: weavec makes it one
# kernel per range of M (variants), with a workspace for 1024 rows, which
# the variants up to 1024 rows may split K into. Each bundle gets a
# `<bundle>.config` sidecar: the configuration weavec chose (from
# --emit=mlir). OUT_DIR/sweep.txt lists the rows for
# `weave_bench_matmul --sweep OUT_DIR/sweep.txt`. Runs ${JOBS:-2} weavec at once.
# INSTANTIATE_ONLY=1 writes the .mlir files and sweep.txt and compiles nothing
# (scripts/ir_snapshot.sh uses it). TAIL_SPLIT=S (> 1) gives every kernel
# `tail_split = S` and a workspace that holds it (at least
# TAIL_WORKSPACE_WORDS f32: 160 partial tiles of 128 x 256 and their
# counters, the ops' ce_matmul's size), for an A/B of the last round's split.
set -euo pipefail
WEAVEC=${1:?usage: $0 WEAVEC OUT_DIR [SHAPES_FILE]}
OUT=${2:?usage: $0 WEAVEC OUT_DIR [SHAPES_FILE]}
HERE=$(cd "$(dirname "$0")" && pwd)
SHAPES=${3:-$HERE/sweep_shapes.txt}
TEMPLATE=$HERE/matmul_auto.mlir.in
mkdir -p "$OUT"
: > "$OUT/sweep.txt"
jobs_file=$(mktemp)
trap 'rm -f "$jobs_file"' EXIT

# instantiate NAME M N K DTYPE WS: writes OUT/NAME.mlir
TAIL_SPLIT=${TAIL_SPLIT:-1}
TAIL_WORKSPACE_WORDS=5243552
instantiate() {
  local name=$1 m=$2 n=$3 k=$4 dtype=$5 ws=$6 wsarg="" wsclause=""
  if [ "$TAIL_SPLIT" -gt 1 ] && [ "$ws" -lt "$TAIL_WORKSPACE_WORDS" ]; then
    ws=$TAIL_WORKSPACE_WORDS
  fi
  if [ "$ws" -gt 0 ]; then
    wsarg=",
                   %ws: memref<${ws}xf32> {weave.name = \"ws\"}"
    wsclause=" workspace(%ws : memref<${ws}xf32>)"
  fi
  if [ "$TAIL_SPLIT" -gt 1 ]; then
    wsclause="$wsclause {tail_split = $TAIL_SPLIT : i64}"
  fi
  WSARG=$wsarg WSCLAUSE=$wsclause awk -v M="$m" -v N="$n" -v K="$k" \
    -v D="$dtype" -v W="$ws" '{
      gsub(/@M@/, M); gsub(/@N@/, N); gsub(/@K@/, K); gsub(/@DTYPE@/, D);
      gsub(/@WS@/, W); gsub(/@WS_ARG@/, ENVIRON["WSARG"]);
      gsub(/@WS_CLAUSE@/, ENVIRON["WSCLAUSE"]); print }' \
    "$TEMPLATE" > "$OUT/$name.mlir"
  echo "$name" >> "$jobs_file"
}

declare -A dynamic_done
while read -r dtype m n k _; do
  case "$dtype" in ''|'#'*) continue ;; esac
  # Room for 4 partials of every tile of 256 x 256 elements (more splits
  # of smaller tiles) and their counters at small M, where splitting K can
  # pay (ConfigChooser.h; the chooser takes what fits).
  ws=0
  if [ "$m" -le 1024 ]; then
    ws=$(( 4 * (m + 255) / 256 * 256 * ((n + 255) / 256 * 256)
           + 2 * ((m + 63) / 64) * ((n + 63) / 64) ))
  fi
  static=matmul_${dtype}_${m}x${n}x${k}
  instantiate "$static" "$m" "$n" "$k" "$dtype" "$ws"
  dynamic=matmul_dyn_${dtype}_${n}x${k}
  if [ -z "${dynamic_done[$dynamic]:-}" ]; then
    dynamic_done[$dynamic]=1
    # Sized for 1024 rows: the variants for M <= 1024 may split K.
    dynws=$(( 4 * 1024 * ((n + 255) / 256 * 256) + 2 * 16 * ((n + 63) / 64) ))
    instantiate "$dynamic" "?" "$n" "$k" "$dtype" "$dynws"
  fi
  echo "$dtype $m $n $k $static.wbundle $dynamic.wbundle" >> "$OUT/sweep.txt"
done < "$SHAPES"

if [ "${INSTANTIATE_ONLY:-0}" = 1 ]; then
  echo "$(wc -l < "$jobs_file") kernels instantiated in $OUT"
  exit 0
fi

compile_one() {
  local out=$1 weavec=$2 name=$3
  "$weavec" "$out/$name.mlir" --emit=bundle -o "$out/$name.wbundle"
  # The chosen configuration per kernel, compactly: `KERNEL 128x256x64 s4 c2
  # [cluster2] [splitk3]` (a dynamic-M bundle has one kernel per variant).
  "$weavec" "$out/$name.mlir" --emit=mlir |
    grep -E "gpu.func @|weave.matmul_pipeline" |
    awk '/gpu.func @/ { match($0, /@[A-Za-z0-9_$]+/); kernel = substr($0, RSTART + 1, RLENGTH - 1); next }
         { match($0, /tile\(([0-9]+), ([0-9]+), ([0-9]+)\) stages\(([0-9]+)\)/);
           t = substr($0, RSTART + 5, RLENGTH - 5);
           gsub(/\) stages\(/, " s", t); gsub(/\)/, "", t); gsub(/, /, "x", t);
           c = "c2"; if (match($0, /consumers = [0-9]+/)) c = "c" substr($0, RSTART + 12, RLENGTH - 12);
           s = kernel " " t " " c;
           if (match($0, /cluster_m\(([0-9]+)\)/)) s = s " cluster" substr($0, RSTART + 10, RLENGTH - 11);
           if (match($0, /split_k\(([0-9]+)\)/)) s = s " splitk" substr($0, RSTART + 8, RLENGTH - 9);
           if (match($0, /tail_split = [0-9]+/)) s = s " tail" substr($0, RSTART + 13, RLENGTH - 13);
           print s }' > "$out/$name.wbundle.config"
}
export -f compile_one
xargs -P "${JOBS:-2}" -I{} bash -c 'compile_one "$@"' _ "$OUT" "$WEAVEC" {} < "$jobs_file"
echo "$(wc -l < "$OUT/sweep.txt") rows, $(wc -l < "$jobs_file") bundles in $OUT"
