#!/usr/bin/env bash
# The main job: compile the example kernels with weavec, say what was
# produced, and run them where GPUs are (in-process, then one process per GPU).
set -uo pipefail
BUILD_DIR=${1:-build}
BIN=$BUILD_DIR/bin
OUT=$BUILD_DIR/demo
mkdir -p "$OUT"
status=0

echo "== compiling the example kernels with weavec"
for kernel in examples/*/*.mlir; do
  name=$(basename "$kernel" .mlir)
  if ! "$BIN/weavec" "$kernel" --emit=ptx -o "$OUT/$name.ptx" ||
     ! "$BIN/weavec" "$kernel" --emit=bundle -o "$OUT/$name.wbundle" -v 2> "$OUT/$name.ptxas.log"; then
    cat "$OUT/$name.ptxas.log" >&2
    echo "FAILED: $kernel did not compile"; status=1; continue
  fi
  regs=$(grep -oE 'Used [0-9]+ registers' "$OUT/$name.ptxas.log" | head -1)
  spills=$(grep -oE '[0-9]+ bytes spill stores' "$OUT/$name.ptxas.log" | head -1)
  echo "  $kernel -> $OUT/$name.wbundle ($(wc -c < "$OUT/$name.wbundle") bytes; ptxas: $regs, $spills)"
done

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
fi
if [ "$gpus" -lt 2 ]; then
  echo "== not running the kernels: they need 2 NVLink-connected GPUs and this machine has $gpus"
  exit $status
fi

echo "== ring_exchange on $gpus GPUs, one process driving all of them"
"$BIN/ring_exchange" "$OUT/ring_exchange.wbundle" || status=1
echo "== tma_forward: a TMA tensor store into the neighbour, on every GPU"
"$BIN/tma_forward" "$OUT/tma_forward.wbundle" || status=1

echo "== ring_exchange on 2 GPUs, one process per GPU"
export WORLD_SIZE=2 WEAVE_JOB_ID="demo-$$"
pids=()
for rank in 0 1; do
  RANK=$rank LOCAL_RANK=$rank "$BIN/ring_exchange" "$OUT/ring_exchange.wbundle" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
