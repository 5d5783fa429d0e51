#!/usr/bin/env bash
# The main job (make demo): compile the example kernels with weavec and the
# benchmark bundles of the collective matmul, say what was produced, and run
# them where GPUs are:
#   - ring_exchange, tma_forward and the one-shot all-reduce (in-process,
#     then ring_exchange with one process per GPU);
#   - the collective matmul AllGather(A) @ B on 2 GPUs: JIT-compiled by
#     examples/collective_matmul in one process, then the weavec bundle with
#     one process per GPU, each run checked against float64;
#   - weave_bench_matmul (vs cuBLAS) and weave_bench_collective_matmul (vs NCCL
#     all-gather + cuBLAS) on one shape, with a short table at the end.
# On one GPU it runs ring_exchange, tma_forward and the all-reduce as a
# loopback team of 2 (correctness only) and skips the benchmarks; without a
# GPU it stops after compiling and prints "SKIP: <why>"; it exits 0 unless
# something failed to compile or a run failed or was wrong.
set -uo pipefail
BUILD_DIR=${1:-build}
BIN=$BUILD_DIR/bin
OUT=$BUILD_DIR/demo
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT/bench"
status=0

# The benchmark shapes the demo runs (one each, to keep it short).
MATMUL_BUNDLE=matmul_f16_1024x4096x4096
COLLECTIVE_BUNDLE=all_gather_matmul_f16_d2_m1024

# ptxas_summary LOG: "ptxas: Used N registers, 0 bytes spill stores".
ptxas_summary() {
  local regs spills
  regs=$(grep -oE 'Used [0-9]+ registers' "$1" | head -1)
  spills=$(grep -oE '[0-9]+ bytes spill stores' "$1" | head -1)
  echo "ptxas: ${regs:-no register report}, ${spills:-no spill report}"
}

# short_table LOG COLUMN...: the named columns of the markdown table in LOG.
short_table() {
  local log=$1; shift
  local IFS=';'
  awk -F'|' -v want="$*" '
    function trim(s) { gsub(/^ +| +$/, "", s); return s }
    /^\|/ {
      if (!header) {
        n = split(want, names, ";")
        for (i = 2; i < NF; i++) index_of[trim($i)] = i
        header = 1
        line = "|"; rule = "|"
        for (j = 1; j <= n; j++) { line = line " " names[j] " |"; rule = rule "---|" }
        print "  " line; print "  " rule
        next
      }
      if (trim($2) ~ /^-+$/) next
      line = "|"
      for (j = 1; j <= n; j++)
        line = line " " (names[j] in index_of ? trim($(index_of[names[j]])) : "?") " |"
      print "  " line
    }' "$log"
}

echo "== compiling the example kernels with weavec"
for kernel in examples/*/*.mlir; do
  name=$(basename "$kernel" .mlir)
  if ! "$BIN/weavec" "$kernel" --emit=ptx -o "$OUT/$name.ptx" ||
     ! "$BIN/weavec" "$kernel" --emit=bundle -o "$OUT/$name.wbundle" -v 2> "$OUT/$name.ptxas.log"; then
    cat "$OUT/$name.ptxas.log" >&2
    echo "FAILED: $kernel did not compile"; status=1; continue
  fi
  echo "  $kernel -> $OUT/$name.wbundle ($(wc -c < "$OUT/$name.wbundle") bytes; $(ptxas_summary "$OUT/$name.ptxas.log"))"
done

echo "== compiling the benchmark bundles ($MATMUL_BUNDLE, $COLLECTIVE_BUNDLE)"
# The templates are instantiated by the build (bench/*/CMakeLists.txt, the
# `weave_bench_bundles` target); only these two bundles are built here.
bench_targets=(bench/matmul/$MATMUL_BUNDLE.wbundle
               bench/collective_matmul/$COLLECTIVE_BUNDLE.wbundle)
have_bench=1
for target in "${bench_targets[@]}"; do
  grep -q "^build $target" "$BUILD_DIR/build.ninja" 2>/dev/null || have_bench=0
done
if [ "$have_bench" -eq 0 ]; then
  echo "  not built: this build has no benchmark bundles (cuBLAS or the compiler was not found at configure time)"
elif ! ninja -C "$BUILD_DIR" -j "$JOBS" "${bench_targets[@]}" > "$OUT/bench/ninja.log" 2>&1; then
  cat "$OUT/bench/ninja.log" >&2
  echo "FAILED: the benchmark bundles did not compile"; status=1; have_bench=0
else
  for target in "${bench_targets[@]}"; do
    name=$(basename "$target" .wbundle)
    cp "$BUILD_DIR/$target" "$OUT/bench/$name.wbundle"
    # The same instantiated source again, for ptxas's register report.
    "$BIN/weavec" "$BUILD_DIR/${target%.wbundle}.mlir" --emit=cubin -o /dev/null -v \
      2> "$OUT/bench/$name.ptxas.log"
    echo "  $BUILD_DIR/${target%.wbundle}.mlir -> $OUT/bench/$name.wbundle ($(wc -c < "$OUT/bench/$name.wbundle") bytes; $(ptxas_summary "$OUT/bench/$name.ptxas.log"))"
  done
fi

gpus=0
why="nvidia-smi not found"
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  why="nvidia-smi lists $gpus"
fi
# Every GPU run is bounded: the programs time out on their own waits, this
# is the backstop should one hang anyway.
T="timeout 300"
ALL_REDUCE="$BUILD_DIR/examples/all_reduce/one_shot_all_reduce_f32_dany_n262147.wbundle"
# The examples' bundle matrices are not in `all` (weave_example_bundles):
# build the one bundle the demo runs.
if grep -qE "^build ${ALL_REDUCE#$BUILD_DIR/}( |:)" "$BUILD_DIR/build.ninja" 2>/dev/null &&
   ! ninja -C "$BUILD_DIR" "${ALL_REDUCE#$BUILD_DIR/}" > "$OUT/all_reduce.ninja.log" 2>&1; then
  cat "$OUT/all_reduce.ninja.log" >&2
  echo "FAILED: the one-shot all-reduce bundle did not compile"; status=1
fi

if [ "$gpus" -eq 1 ]; then
  # One GPU: the multi-GPU kernels run for correctness as a loopback team
  # (2 members on the one GPU); no timing is meaningful there.
  echo "== one GPU: the examples as a loopback team of 2 (correctness only)"
  export WEAVE_LOOPBACK_TEAM=2
  $T "$BIN/ring_exchange" "$OUT/ring_exchange.wbundle" || status=1
  $T "$BIN/tma_forward" "$OUT/tma_forward.wbundle" || status=1
  [ -f "$ALL_REDUCE" ] && { $T "$BIN/collectives" "$ALL_REDUCE" || status=1; }
  echo "SKIP: the benchmarks need 2 NVLink-connected GPUs (sm_90); test/gpu/run_loopback.sh runs the whole loopback suite"
  exit $status
fi
if [ "$gpus" -lt 2 ]; then
  echo "SKIP: not running the kernels: they need a GPU (sm_90) and this machine has $gpus ($why)"
  exit $status
fi

echo "== ring_exchange on $gpus GPUs, one process driving all of them"
$T "$BIN/ring_exchange" "$OUT/ring_exchange.wbundle" || status=1
echo "== tma_forward: a TMA tensor store into the neighbour, on every GPU"
$T "$BIN/tma_forward" "$OUT/tma_forward.wbundle" || status=1
if [ -f "$ALL_REDUCE" ]; then
  echo "== the one-shot all-reduce on every GPU"
  $T "$BIN/collectives" "$ALL_REDUCE" || status=1
fi

echo "== ring_exchange on 2 GPUs, one process per GPU"
pids=()
for rank in 0 1; do
  WORLD_SIZE=2 RANK=$rank LOCAL_RANK=$rank WEAVE_JOB_ID="demo-$$-ring" \
    $T "$BIN/ring_exchange" "$OUT/ring_exchange.wbundle" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

# The collective matmul runs on the first two GPUs: the configuration of the
# AOT bundle and of the measurements in docs/PERF.md.
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  two_gpus=$(echo "$CUDA_VISIBLE_DEVICES" | cut -d, -f1-2)
else
  two_gpus=0,1
fi

echo "== collective_matmul: AllGather(A) @ B on 2 GPUs, JIT-compiled (weave::Compiler), one process"
CUDA_VISIBLE_DEVICES=$two_gpus $T "$BIN/collective_matmul" || status=1

echo "== collective_matmul: the weavec bundle, one process per GPU"
pids=()
for rank in 0 1; do
  CUDA_VISIBLE_DEVICES=$two_gpus WORLD_SIZE=2 RANK=$rank LOCAL_RANK=$rank \
    WEAVE_JOB_ID="demo-$$-collective" \
    $T "$BIN/collective_matmul" --bundle "$OUT/all_gather_matmul.wbundle" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

if [ "$have_bench" -eq 0 ]; then
  echo "== no benchmarks: their bundles were not built (see above)"
  exit $status
fi
echo "== weave_bench_matmul: $MATMUL_BUNDLE vs cuBLAS (full output: $OUT/bench/matmul.log)"
if ! $T "$BIN/weave_bench_matmul" --bundles "$OUT/bench" --shapes 1024x4096x4096 \
     --dtype f16 --iters 50 > "$OUT/bench/matmul.log" 2>&1; then
  tail -20 "$OUT/bench/matmul.log"; echo "FAILED: weave_bench_matmul"; status=1
fi
echo "== weave_bench_collective_matmul: $COLLECTIVE_BUNDLE vs NCCL all-gather + cuBLAS (full output: $OUT/bench/collective_matmul.log)"
if ! $T "$BIN/weave_bench_collective_matmul" --bundles "$OUT/bench" --m-shards 1024 \
     --dtype f16 --devices 2 --iters 30 > "$OUT/bench/collective_matmul.log" 2>&1; then
  tail -20 "$OUT/bench/collective_matmul.log"
  echo "FAILED: weave_bench_collective_matmul"; status=1
fi

echo
echo "matmul, 1024x4096x4096 f16, one GPU (ms, median of 50 back-to-back launches):"
short_table "$OUT/bench/matmul.log" "shape (MxNxK)" dtype "ours ms" "cuBLAS ms" \
  "speed-up (cuBLAS/ours)" check
echo "collective matmul, 2 GPUs, m_shard=1024 K=4096 n_shard=4096 f16 (ms, slowest GPU, median of 30):"
short_table "$OUT/bench/collective_matmul.log" m_shard dtype "ours ms" \
  "NCCL+cuBLAS ms" "speed-up vs NCCL+cuBLAS" "local cuBLAS ms" check
grep -h '^SKIP' "$OUT/bench/matmul.log" "$OUT/bench/collective_matmul.log"
exit $status
