#!/usr/bin/env bash
# Prints every shipped kernel through `weavec --emit=mlir` into one folder, so
# that a refactor can show it changed no compiler output:
#
#   scripts/ir_snapshot.sh BUILD_DIR OUT_DIR      # before
#   scripts/ir_snapshot.sh BUILD_DIR OUT_DIR2     # after
#   diff -r OUT_DIR OUT_DIR2
#
# The kernels: examples/*/*.mlir, every template instance the build wrote
# under BUILD_DIR/examples and BUILD_DIR/bench (the collectives, fused ops and
# benchmark bundles: build them first, e.g. `ninja -C BUILD_DIR all`), and the
# matmul sweep (bench/matmul/make_sweep.sh, instantiated only). A kernel that
# fails to compile is recorded as its error text, so a changed diagnostic
# shows too. EMIT=ptx (or nvvm, llvm) snapshots another stage instead.
# Each input is copied to OUT_DIR/inputs; INPUTS=OLD_OUT_DIR/inputs compiles
# those copies instead of instantiating anew (the compiler alone compared,
# whatever the build's configuration).
set -euo pipefail
BUILD=${1:?usage: $0 BUILD_DIR OUT_DIR}
OUT=${2:?usage: $0 BUILD_DIR OUT_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WEAVEC=$BUILD/bin/weavec
EMIT=${EMIT:-mlir}
[ -x "$WEAVEC" ] || { echo "error: $WEAVEC not built" >&2; exit 1; }
mkdir -p "$OUT/inputs"
if [ -n "${INPUTS:-}" ]; then
  cp "$INPUTS"/*.mlir "$OUT/inputs/"
else
  sweep=$(mktemp -d)
  trap 'rm -rf "$sweep"' EXIT
  INSTANTIATE_ONLY=1 "$ROOT/bench/matmul/make_sweep.sh" "$WEAVEC" "$sweep" >/dev/null
  {
    ls "$ROOT"/examples/*/*.mlir
    find "$BUILD/examples" "$BUILD/bench" -name '*.mlir' -not -path '*/CMakeFiles/*' 2>/dev/null
    ls "$sweep"/*.mlir
  } | while read -r src; do
    name=${src#"$ROOT"/}; name=${name#"$BUILD"/}; name=${name#"$sweep"/}
    cp "$src" "$OUT/inputs/$(printf '%s' "$name" | tr '/' '_')"
  done
fi

# The outputs name no path: diagnostics say inputs/NAME.
emit_one() {
  local out=$1 weavec=$2 emit=$3 name=$4
  (cd "$out" && "$weavec" "inputs/$name" --emit="$emit" > "$name.$emit" 2>&1) || true
}
export -f emit_one
ls "$OUT/inputs" | xargs -P "${JOBS:-2}" -I{} bash -c 'emit_one "$@"' _ "$OUT" "$(cd "$(dirname "$WEAVEC")" && pwd)/weavec" "$EMIT" {}
echo "$(ls "$OUT/inputs" | wc -l) kernels -> $OUT (--emit=$EMIT)"
