#!/usr/bin/env bash
# Regenerates the dialect reference in docs/Dialect/ from the ODS sources.
# No CMake needed: it runs mlir-tblgen directly. Run it after editing a .td
# file and commit the result:
#   scripts/gen-dialect-docs.sh            # writes docs/Dialect/{Weave,Passes}.md
#   scripts/gen-dialect-docs.sh --check    # exits 1 if the committed docs are stale
set -euo pipefail
cd "$(dirname "$0")/.."

LLVM_DIR=${LLVM_DIR:-/usr/lib/llvm-22}
TBLGEN=${MLIR_TBLGEN:-$LLVM_DIR/bin/mlir-tblgen}
INCLUDES=(-I "$LLVM_DIR/include" -I dialects/include)
IR=dialects/include/weave/Dialect/Weave/IR
TRANSFORMS=dialects/include/weave/Dialect/Weave/Transforms

if [ ! -x "$TBLGEN" ]; then
  echo "gen-dialect-docs: $TBLGEN not found (set MLIR_TBLGEN or LLVM_DIR)" >&2
  exit 1
fi

check=0
[ "${1:-}" = "--check" ] && check=1
out=docs/Dialect
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$TBLGEN" -gen-dialect-doc -dialect=weave "${INCLUDES[@]}" "$IR/WeaveOps.td" > "$tmp/Weave.md"
"$TBLGEN" -gen-pass-doc "${INCLUDES[@]}" "$TRANSFORMS/Passes.td" > "$tmp/Passes.md"

status=0
for f in Weave.md Passes.md; do
  if [ "$check" = 1 ]; then
    if ! cmp -s "$tmp/$f" "$out/$f"; then
      echo "gen-dialect-docs: $out/$f is out of date; run scripts/gen-dialect-docs.sh" >&2
      status=1
    fi
  else
    mkdir -p "$out"
    cp "$tmp/$f" "$out/$f"
    echo "wrote $out/$f"
  fi
done
exit $status
