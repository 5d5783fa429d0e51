#!/usr/bin/env bash
# The loopback suite: every multi-GPU protocol run for correctness by a team
# of D members on ONE GPU (docs/RUNTIME.md, "Loopback teams"), from binaries
# and bundles built elsewhere (the GPU machines have no LLVM).
#
#   test/gpu/run_loopback.sh --stage BUILD_DIR [CARRY_DIR]   (here: copy what to carry)
#   test/gpu/run_loopback.sh [CARRY_DIR]                      (on the GPU machine)
#
# Build first with -DWEAVE_STATIC_RUNTIME_LIBS=ON and `ninja all
# weave_bench_bundles` (the collective matmul bundles for D = 2, 4, 8 and
# m_shard 1024 and 1152; the collectives benchmark's bundles for D = 2);
# --stage builds the examples' bundle matrices (weave_example_bundles).
# Runs the runtime GPU tests (physical tests skip without 2 GPUs; the
# Loopback* ones run), the example kernels (ring exchange, TMA forward,
# every collective kernel of the op registry (`weave-ops kernels`; staging
# fails where one has no bundle) -- one-shot, two-shot, atomic and
# push all-reduce, all-gather (counter, flags, packets, push, direct),
# reduce-scatter (pull, push), all-to-all (put, push, direct),
# all-to-all-v; f32 and bf16; 1, 1001 and a large element count -- through
# the `collectives` checker (the push and direct kernels at D = 3 too), and the dynamic-shape kernels
# at M = 1, 127, 1001 and 4099 from one bundle) at D = 2, 4, 8, the
# collectives benchmark's check mode at D = 2, callback_rhs (the rhs tile
# stored from a callback through a tensor-map table) at D = 1, 2, 4, GEMM +
# reduce-scatter at D = 2, 4, 8, 12, the matmul pipeline with a
# dynamic row count and the collective matmul with a dynamic m_shard at
# D = 2, and the collective matmul's check at D = 2, 4, 8, f16 and bf16,
# m_shard 1024 and 1152 (not a multiple of 1024), and weave::ops' fused
# matmuls (examples/fused_ops) at D = 2, 4, 8.
# With LOOPBACK_ONLY=REGEX only the runs whose name matches (grep -E) run;
# LOOPBACK_TIMEOUT (seconds, default 300) bounds each run. Ends with one
# line per run and "N passed, N failed".
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" = "--stage" ]; then
  BUILD=${2:?usage: $0 --stage BUILD_DIR [CARRY_DIR]}
  CARRY=${3:-$ROOT/.carry}
  mkdir -p "$CARRY/bin" "$CARRY/bundles"
  # The examples' and the benches' bundle matrices are not in `all` (the
  # bench bundles below would otherwise be staged as last built).
  ninja -C "$BUILD" weave_example_bundles weave_bench_bundles > "$CARRY/example-bundles.log" 2>&1 ||
    { tail -n 40 "$CARRY/example-bundles.log"; exit 1; }
  for b in fused_ops matmul_reduce_scatter callback_rhs weave_runtime_gpu_tests weave_bench_collective_matmul weave_bench_collectives ring_exchange tma_forward collectives dynamic_shapes epilogue_reduce; do
    cp "$BUILD/bin/$b" "$CARRY/bin/" || exit 1
  done
  cp "$BUILD/test/support/AbiTestKernels.cubin" "$CARRY/bundles/" || exit 1
  cp "$BUILD"/examples/ring_exchange/ring_exchange.wbundle \
     "$BUILD"/examples/tma_forward/tma_forward.wbundle \
     "$BUILD"/examples/dynamic_shapes/dynamic_shapes.wbundle \
     "$BUILD"/examples/dynamic_shapes/dynamic_matmul.wbundle \
     "$BUILD"/examples/dynamic_shapes/auto_matmul.wbundle \
     "$BUILD"/examples/dynamic_shapes/cluster_matmul.wbundle \
     "$BUILD"/examples/epilogue_reduce/epilogue_reduce.wbundle \
     "$BUILD"/examples/callback_rhs/callback_rhs.wbundle "$CARRY/bundles/" || exit 1
  mkdir -p "$CARRY/bundles-mrs"
  cp "$BUILD"/examples/matmul_reduce_scatter/*.wbundle "$CARRY/bundles-mrs/" || exit 1
  # Every collective kernel of the op registry (`weave-ops kernels`: op,
  # family, algorithm, template, kernel, ...): its bundles from the
  # examples' folder of its template (or build/examples/ itself, where the
  # examples' default matrix puts a template no example instantiates), and
  # at least one of them, or the suite would silently skip a registered
  # kernel.
  "$BUILD/bin/weave-ops" kernels >"$CARRY/kernels.txt" || exit 1
  while read -r op family algorithm template kernel rest; do
    [ "$family" = collective ] || continue
    bundles="$BUILD/examples/${template%%/*}/${kernel}_[bf][f0-9]*_d*_n[0-9]*.wbundle"
    # shellcheck disable=SC2086
    ls $bundles >/dev/null 2>&1 ||
      bundles="$BUILD/examples/${kernel}_[bf][f0-9]*_d*_n[0-9]*.wbundle"
    # shellcheck disable=SC2086
    ls $bundles >/dev/null 2>&1 || {
      echo "error: no bundle of the registered kernel $kernel ($op, $algorithm): $bundles" >&2
      exit 1
    }
    # shellcheck disable=SC2086
    cp $bundles "$CARRY/bundles/" || exit 1
  done <"$CARRY/kernels.txt"
  mkdir -p "$CARRY/bench-collectives"
  cp "$BUILD"/bench/collectives/*_d*_n*.wbundle "$CARRY/bench-collectives/" || exit 1
  for m in 1024 1152; do
    cp "$BUILD"/bench/collective_matmul/all_gather_matmul_*_d[248]_m$m.wbundle \
       "$CARRY/bundles/" || exit 1
  done
  # The dynamic-m_shard bundles in a directory of their own: the benchmark
  # runs an _mdyn bundle at every --m-shards value.
  mkdir -p "$CARRY/bundles-dyn"
  cp "$BUILD"/bench/collective_matmul/all_gather_matmul_*_d2_mdyn.wbundle \
     "$CARRY/bundles-dyn/" || exit 1
  # The fused matmul ops' bundles (weave-ops + weavec, the documented way):
  # the all-gather matmul (one bundle for every m_shard) and the GEMM + RS
  # at the shapes examples/fused_ops checks, D = 2, 4, 8.
  rm -rf "$CARRY/fused-bundles" && mkdir -p "$CARRY/fused-bundles"
  . "$ROOT/bench/gpu_libs.sh" # op_bundle, fused_op_bundles
  fused_op_bundles "$BUILD" "$CARRY/fused-bundles" 2 4 8 || exit 1
  # The Python package, built there (its modules need the GPU machine's
  # Python and torch), with the ops' bundles its tests need (made here:
  # the GPU machines have no LLVM).
  rm -rf "$CARRY/python-src" && mkdir -p "$CARRY/python-src" "$CARRY/op-bundles"
  git -C "$ROOT" archive HEAD | tar -x -C "$CARRY/python-src" || exit 1
  # Every (op, dtype, algorithm) python/tests/test_ops.py calls: the
  # algorithms each test names, "auto" at its sizes, and the
  # all-to-all-v's token form (a 6th column: --row-elements).
  {
    for t in f32 bf16; do
      for a in one_shot two_shot push push_two_shot ll; do echo "all_reduce 2 $t 1001 $a"; done
      for a in auto put push direct; do echo "all_gather 2 $t 1001 $a"; done
      for a in auto pull push; do echo "reduce_scatter 2 $t 1001 $a"; done
      echo "all_to_all_v 2 $t 5 auto 24"
    done
    for a in auto put push direct; do echo "all_to_all 2 bf16 1001 $a"; done
    for a in auto put direct; do echo "all_to_all_v 2 bf16 1001 $a"; done
    echo "all_reduce 1 f32 1024 auto"
    echo "all_gather 1 f32 1024 auto"
  } >"$CARRY/op-bundles/ops.txt"
  while read -r op d dtype n algorithm rows; do
    args=(--team-size "$d" --dtype "$dtype" --count "$n" --algorithm "$algorithm")
    [ -n "$rows" ] && args+=(--row-elements "$rows")
    op_bundle "$BUILD" "$CARRY/op-bundles" "$op" "${args[@]}" || exit 1
  done <"$CARRY/op-bundles/ops.txt"
  rm -f "$CARRY/op-bundles/ops.txt"
  # The fused matmuls of the Python tests: loopback D = 2, and a team of one.
  for t in bf16 f16; do
    for a in ring gather; do
      op_bundle "$BUILD" "$CARRY/op-bundles" all_gather_matmul --team-size 2 --dtype $t \
        --m-shard 128 --k 256 --n 320 --algorithm $a || exit 1
    done
    for a in copy_engine owner_slots input_gather; do
      op_bundle "$BUILD" "$CARRY/op-bundles" matmul_reduce_scatter --team-size 2 --dtype $t \
        --m-shard 128 --k 256 --n 320 --algorithm $a || exit 1
    done
  done
  op_bundle "$BUILD" "$CARRY/op-bundles" matmul_reduce_scatter --team-size 1 --dtype bf16 \
    --m-shard 128 --k 256 --n 320 || exit 1
  du -sh "$CARRY"
  exit 0
fi

CARRY=$(cd "${1:-$ROOT/.carry}" && pwd) || { echo "no carry directory"; exit 2; }
LOG=${OUT:-/tmp}/loopback.log
: >"$LOG"
results=()
passed=0
failed=0
ONLY=${LOOPBACK_ONLY:-.}
run() { # name, command...
  local name=$1; shift
  echo "$name" | grep -qE "$ONLY" || return 0
  local start=$SECONDS
  if timeout "${LOOPBACK_TIMEOUT:-300}" "$@" >>"$LOG" 2>&1; then
    results+=("PASS  $name ($((SECONDS - start)) s)"); passed=$((passed + 1))
  else
    results+=("FAIL  $name (exit $?, see loopback.log)"); failed=$((failed + 1))
  fi
}
nvidia-smi -L
export WEAVE_ABI_TEST_CUBIN=$CARRY/bundles/AbiTestKernels.cubin
run "runtime GPU tests" "$CARRY/bin/weave_runtime_gpu_tests"
for d in 2 4 8; do
  run "ring_exchange D=$d" env WEAVE_LOOPBACK_TEAM=$d "$CARRY/bin/ring_exchange" \
    "$CARRY/bundles/ring_exchange.wbundle" --iterations 20
  # Launches with no host synchronization between them: the kernel's credit
  # keeps each from overwriting an inbox not yet read.
  run "ring_exchange back-to-back D=$d" env WEAVE_LOOPBACK_TEAM=$d \
    "$CARRY/bin/ring_exchange" "$CARRY/bundles/ring_exchange.wbundle" \
    --iterations 16 --back-to-back
done
# tma_forward's kernel gathers 2 shards (maxDevices = 2).
run "tma_forward D=2" env WEAVE_LOOPBACK_TEAM=2 "$CARRY/bin/tma_forward" \
  "$CARRY/bundles/tma_forward.wbundle"
run "tma_forward back-to-back D=2" env WEAVE_LOOPBACK_TEAM=2 \
  "$CARRY/bin/tma_forward" "$CARRY/bundles/tma_forward.wbundle" --back-to-back
# The collectives: <kernel>_<dtype>_d<D|any>_n<N>.wbundle; `dany` bundles
# serve every team size. D = 3 (no power of two) runs the issue #30 push and
# direct kernels, which are built for it too.
for d in 2 3 4 8; do
  any="$CARRY/bundles/*_dany_n*.wbundle"
  [ $d = 3 ] && any= # D = 3: the per-team bundles (checked there on an H200)
  for b in $any "$CARRY"/bundles/*_d${d}_n*.wbundle; do
    run "collectives D=$d $(basename "$b" .wbundle)" env WEAVE_LOOPBACK_TEAM=$d \
      "$CARRY/bin/collectives" "$b"
  done
done
# The collectives benchmark's check mode (its bundles are built for D = 2):
# every kernel against float64 at 4 KB, 64 KB and 16 MB, loopback.
run "collectives bench check D=2" env WEAVE_LOOPBACK_TEAM=2 \
  "$CARRY/bin/weave_bench_collectives" --bundles "$CARRY/bench-collectives" \
  --check-only --bytes 4096,65536,16777216
for d in 2 4 8; do
  run "epilogue reduce D=$d (matmul epilogue region, TMA reduce-add to self and next)" \
    env WEAVE_LOOPBACK_TEAM=$d "$CARRY/bin/epilogue_reduce" \
    "$CARRY/bundles/epilogue_reduce.wbundle"
done
for d in 1 2 4; do
  run "callback rhs D=$d (rhs tiles stored from the callback through a tensor-map table)" \
    env WEAVE_LOOPBACK_TEAM=$d "$CARRY/bin/callback_rhs" \
    "$CARRY/bundles/callback_rhs.wbundle"
done
for d in 2 4 8; do
  run "dynamic shapes D=$d (M = 1, 127, 1001, 4099 from one bundle)" \
    env WEAVE_LOOPBACK_TEAM=$d "$CARRY/bin/dynamic_shapes" \
    "$CARRY/bundles/dynamic_shapes.wbundle" --rounds 2
done
run "dynamic matmul D=2 (matmul_pipeline, M = 1 ... 9000 from one bundle)" \
  env WEAVE_LOOPBACK_TEAM=2 "$CARRY/bin/dynamic_shapes" \
  "$CARRY/bundles/dynamic_matmul.wbundle"
for d in 1 2; do
  run "auto matmul D=$d (tile(auto) variants chosen per M at launch, M = 1 ... 9000)" \
    env WEAVE_LOOPBACK_TEAM=$d "$CARRY/bin/dynamic_shapes" \
    "$CARRY/bundles/auto_matmul.wbundle"
done
run "cluster matmul D=1 (cluster_m(2), odd row-tile counts padded, M = 1 ... 9000)" \
  env WEAVE_LOOPBACK_TEAM=1 "$CARRY/bin/dynamic_shapes" \
  "$CARRY/bundles/cluster_matmul.wbundle"
for d in 2 4 8; do
  for m in 1024 1152; do
    run "collective matmul D=$d m_shard=$m f16+bf16" env WEAVE_LOOPBACK_TEAM=$d \
      "$CARRY/bin/weave_bench_collective_matmul" --bundles "$CARRY/bundles" \
      --devices $d --m-shards $m --dtype all --check-only --no-nccl
  done
done
run "collective matmul D=2 dynamic m_shard (one bundle) = 1024, 1152 f16+bf16" \
  env WEAVE_LOOPBACK_TEAM=2 "$CARRY/bin/weave_bench_collective_matmul" \
  --bundles "$CARRY/bundles-dyn" --devices 2 --m-shards 1024,1152 --dtype all \
  --check-only --no-nccl
# GEMM + reduce-scatter: each bundle is for one team size (its name says):
# D = 2, 4, 8 and 12 (more than 8: the per-member tensor-map table); an
# _mdyn bundle (one for every m_shard) at m_shard 128 and 384.
for b in "$CARRY"/bundles-mrs/*.wbundle; do
  d=$(basename "$b" | sed -E 's/.*_d([0-9]+)_(n|mdyn).*/\1/')
  case "$b" in
    *_mdyn.wbundle) shards="128 384" ;;
    *) shards="" ;;
  esac
  if [ -z "$shards" ]; then
    run "matmul reduce-scatter D=$d $(basename "$b" .wbundle)" env WEAVE_LOOPBACK_TEAM=$d \
      "$CARRY/bin/matmul_reduce_scatter" "$b"
  fi
  for m in $shards; do
    run "matmul reduce-scatter D=$d $(basename "$b" .wbundle) m_shard=$m" \
      env WEAVE_LOOPBACK_TEAM=$d "$CARRY/bin/matmul_reduce_scatter" "$b" --m-shard $m
  done
done
# weave::ops' fused matmuls as a user calls them (three calls without host
# synchronization, graph replays, float64 reference; the GEMM +
# reduce-scatter's fused kernel and its copy-engine algorithm), kernels
# from bundles.
for d in 2 4 8; do
  run "fused ops D=$d (ops::AllGatherMatmul + ops::MatmulReduceScatter, bf16+f16)" \
    env WEAVE_LOOPBACK_TEAM=$d "$CARRY/bin/fused_ops" --bundles "$CARRY/fused-bundles"
done
# The C++ package as a deployment without LLVM uses it: the runtime and the
# ops installed from this source tree, the consumer built against the
# install alone, its ops' kernels from the bundle folder made here.
if [ -d "$CARRY/python-src" ]; then
  run "package consumer (runtime-only install, weave::ops on the GPU)" env \
    WEAVE_REQUIRE_GPU=1 bash "$CARRY/python-src/test/package/run.sh" --runtime-only \
    /tmp/weave-package-test "$CARRY/op-bundles"
fi
# The Python package (runtime only, pybind11 from torch) and its pytest
# suite on torch tensors: the kernel launcher, symmetric tensors, the ops
# (weave.ops over weave::ops, every collective) and the torch custom ops.
if [ -d "$CARRY/python-src" ] && python3 -c "import torch" 2>/dev/null; then
  PYBUILD=/tmp/weave-python-build
  run "python package build (runtime only)" bash -c "cmake -S '$CARRY/python-src' \
    -B $PYBUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEAVE_ENABLE_COMPILER=OFF \
    -DPython3_EXECUTABLE=\$(command -v python3) && ninja -C $PYBUILD weave_python"
  run "python tests (pytest, loopback D=2 and a team of 1)" env \
    PYTHONPATH=$PYBUILD/python WEAVE_TEST_BUNDLES="$CARRY/op-bundles" \
    WEAVE_SOURCE_DIR="$CARRY/python-src" \
    python3 -m pytest -q -rs -p no:cacheprovider "$CARRY/python-src/python/tests"
  # The 2-GPU comparison with torch's fused_all_gather_matmul: on one GPU it
  # must say why it cannot run and exit 0.
  run "torch_weave_vs_fused.py under torchrun (1 process: says why it skips)" env \
    PYTHONPATH=$PYBUILD/python python3 -m torch.distributed.run --nproc-per-node=1 \
    "$CARRY/python-src/bench/collective_matmul/torch_weave_vs_fused.py" \
    --kernels "$CARRY/op-bundles"
fi
grep -E "^\[  (FAILED|PASSED|SKIPPED) |^(ok|FAIL|error|SKIP)|wrong|mismatch" "$LOG" | sort | uniq -c | head -40
printf '%s\n' "${results[@]}"
echo "loopback: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
