#!/usr/bin/env bash
# The collectives' GPU run of issue #30, from a carry folder made by
# `bench/collectives/gpu/sweep.sh --stage BUILD_DIR CARRY` (statically
# linked binaries, every bench bundle, the example bundles of the kernels
# to check, the PyTorch scripts):
#
#   sweep.sh CARRY check           loopback teams of 2, 3, 4, 8 (one GPU
#                                  each, in parallel) and real GPUs at D =
#                                  2, 3, 4 of every bundle in CARRY/bundles
#   sweep.sh CARRY sweep D         weave_bench_collectives, every kernel,
#                                  4 KB - 256 MB, bf16 and f32, against
#                                  NCCL, --table (D = 2: bf16 on GPUs 0-1
#                                  and f32 on 2-3 at once where there are 4)
#   sweep.sh CARRY torch D         torch_symm_mem.py: the symmetric-memory
#                                  all-reduces and NCCL, then all_to_all_vdev
#   sweep.sh CARRY all D           sweep D, then torch D, then one table of
#                                  ours, NCCL and PyTorch per collective,
#                                  dtype and size (choice_table.py --summary)
#   sweep.sh CARRY probe           does NCCL's all-to-all captured in a graph
#                                  at 2 MiB per pair finish with
#                                  NCCL_GRAPH_REGISTER=0 (20 s limit)?
#
# SWEEP_BYTES (comma-separated message sizes) and SWEEP_KERNELS narrow the
# sweep; TORCH_BYTES the PyTorch one. SWEEP_SECONDS / A2A_SECONDS and
# TORCH_SECONDS / VDEV_SECONDS bound each process. The cases run smallest message first
# (--by-size), so a sweep cut short keeps the latency path. The
# all-to-alls' process captures NCCL at every size with
# NCCL_GRAPH_REGISTER=0: captured with NCCL's default, ncclAlltoAll hung
# at 2 MiB per pair (one process, 2 communicators: NCCL registers the user
# buffers of a captured point-to-point op from that size); without the
# registration it finishes (2 x H100, NCCL 2.28, the probe step).
# NCCL_A2A_EAGER=1 runs NCCL's all-to-all(-v) eagerly from 1 MiB per pair
# instead (the benchmark's default).
#
# Logs go to $OUT (or /tmp/collectives-out); each step prints its summary.
# NVLink multicast stays off.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1

if [ "${1:-}" = "--stage" ]; then
  BUILD=$2 CARRY=$3 SRC=$(cd "$(dirname "$0")/../../.." && pwd)
  # The bench bundles are not part of `all`: build them here, or the copy
  # below would stage whatever an older build left (a sweep of the seventh
  # session ran the fifth session's bundles of kernels changed since).
  ninja -C "$BUILD" weave_bench_collectives_bundles weave_bench_collectives collectives \
    >/dev/null || { echo "sweep.sh: building the bench bundles failed" >&2; exit 1; }
  rm -rf "$CARRY" && mkdir -p "$CARRY/bin" "$CARRY/bench/collectives" "$CARRY/bundles"
  cp "$BUILD/bin/weave_bench_collectives" "$BUILD/bin/collectives" "$CARRY/bin/"
  cp "$BUILD"/bench/collectives/*.wbundle "$CARRY/bench/collectives/"
  shift 3
  for pattern in "$@"; do cp "$BUILD"/examples/*/$pattern.wbundle "$CARRY/bundles/"; done
  cp "$SRC/bench/torch_common.py" "$CARRY/bench/"
  cp "$SRC/bench/collectives/torch_symm_mem.py" "$SRC/bench/collectives/gpu/sweep.sh" \
     "$SRC/bench/collectives/choice_table.py" "$CARRY/bench/collectives/"
  cp "$SRC/bench/gpu_libs.sh" "$CARRY/bench/"
  du -sh "$CARRY"; ls "$CARRY/bundles" | wc -l
  exit 0
fi

C=$(cd "${1:?usage: sweep.sh CARRY check|sweep D|torch D}" && pwd)
STEP=${2:?}
OUTDIR=${OUT:-/tmp/collectives-out}
mkdir -p "$OUTDIR"
source "$C/bench/gpu_libs.sh"
export_gpu_libs
GPUS=$(nvidia-smi -L | grep -c '^GPU')
gpus_of() { seq -s, 0 $(($1 - 1)); }
start=$SECONDS

case "$STEP" in
probe)
  # NCCL_GRAPH_REGISTER=0: NCCL does not register the user buffers of a
  # captured point-to-point op (its zero-copy path for large messages).
  CUDA_VISIBLE_DEVICES=0,1 NCCL_GRAPH_REGISTER=0 timeout 20 "$C/bin/weave_bench_collectives" \
    --bundles "$C/bench/collectives" --devices 2 --kernels direct_all_to_all --types bf16 \
    --bytes 4194304 --nccl-eager-from 0 --iters 5 --warmup 1 --rounds 1 \
    >"$OUTDIR/probe.txt" 2>"$OUTDIR/probe.err"
  rc=$?
  echo "probe: NCCL all-to-all captured at 2 MiB per pair, NCCL_GRAPH_REGISTER=0: exit $rc ($((SECONDS - start)) s)"
  grep -E "row |error" "$OUTDIR/probe.err" | head -3
  exit $rc
  ;;
all)
  D=${3:?}
  bash "$0" "$C" sweep "$D" >/dev/null
  bash "$0" "$C" torch "$D"
  python3 "$C/bench/collectives/choice_table.py" --summary "$OUTDIR"/sweep_d${D}_*.err \
    --torch "$OUTDIR/torch_d$D.txt"
  ;;
check)
  run() { # tag gpus d bundle
    local env=()
    [ "$1" = loop ] && env=(WEAVE_LOOPBACK_TEAM=$3)
    if env CUDA_VISIBLE_DEVICES=$2 "${env[@]}" timeout 30 "$C/bin/collectives" "$4" --rounds 2 \
        >>"$OUTDIR/check.log" 2>&1; then
      echo "PASS $1 D=$3 $(basename "$4" .wbundle)"
    else
      echo "FAIL($?) $1 D=$3 $(basename "$4" .wbundle)"
    fi
  }
  i=0
  for d in 2 3 4 8; do
    for b in "$C"/bundles/*_d${d}_n*.wbundle; do echo "$((i % GPUS)) $d $b"; i=$((i + 1)); done
  done >/tmp/loop.list
  for g in $(seq 0 $((GPUS - 1))); do
    (grep "^$g " /tmp/loop.list | while read -r gg d b; do run loop $g $d "$b"; done >/tmp/loop_$g.txt) &
  done
  wait
  for d in 2 3 4; do
    [ $d -gt "$GPUS" ] && continue
    # One element is the loopback's case; on real GPUs the odd and large counts.
    for b in "$C"/bundles/*_d${d}_n*.wbundle; do
      case "$b" in *_n1.wbundle|*_n2.wbundle) continue ;; esac
      run real "$(gpus_of $d)" $d "$b"
    done
  done >/tmp/real.txt
  cat /tmp/loop_*.txt /tmp/real.txt >"$OUTDIR/check.txt"
  echo "check: $(grep -c ^PASS "$OUTDIR/check.txt") passed, $(grep -c ^FAIL "$OUTDIR/check.txt") failed ($((SECONDS - start)) s)"
  grep ^FAIL "$OUTDIR/check.txt" | head -20
  ;;
sweep)
  # The all-to-alls run in a process of their own, with NCCL's graph
  # registration off (see the header): at D = 2 (4 x H100, 2026-11-26) the
  # sweep stopped without a word at the first 4 MB all-to-all case, in
  # NCCL's captured ncclAlltoAll.
  D=${3:?}
  others=one_shot_all_reduce,two_shot_all_reduce,push_all_reduce,push_two_shot_all_reduce,ll_all_reduce,push_all_gather,direct_all_gather,ll_all_gather,reduce_scatter,push_reduce_scatter,ll_reduce_scatter
  a2a=push_all_to_all,direct_all_to_all,ll_all_to_all,all_to_all_v,direct_all_to_all_v,ll_all_to_all_v
  if [ -n "${SWEEP_KERNELS:-}" ]; then
    pick() { tr , '\n' <<<"$1" | grep -xF -f <(tr , '\n' <<<"$SWEEP_KERNELS") | paste -sd, -; }
    others=$(pick "$others") a2a=$(pick "$a2a")
  fi
  args=(--bundles "$C/bench/collectives" --devices "$D" --iters 10 --warmup 3 --rounds 2 --table --by-size)
  [ -n "${SWEEP_BYTES:-}" ] && args+=(--bytes "$SWEEP_BYTES")
  a2aArgs=(--nccl-eager-from 0) a2aEnv=(NCCL_GRAPH_REGISTER=0)
  if [ "${NCCL_A2A_EAGER:-0}" = 1 ]; then a2aArgs=() a2aEnv=(); fi
  bench() { # gpus tag types kernels seconds
    [ -n "$4" ] || return 0
    local extra=() envs=()
    case "$2" in a2a*) extra=("${a2aArgs[@]}") envs=("${a2aEnv[@]}") ;; esac
    env CUDA_VISIBLE_DEVICES=$1 "${envs[@]}" timeout "$5" "$C/bin/weave_bench_collectives" "${args[@]}" \
      "${extra[@]}" --types "$3" --kernels "$4" >"$OUTDIR/sweep_d${D}_$2.txt" 2>"$OUTDIR/sweep_d${D}_$2.err"
    echo "sweep D=$D $2: exit $? ($((SECONDS - start)) s)"
  }
  if [ "$D" = 2 ] && [ "$GPUS" -ge 4 ]; then
    # bf16 on GPUs 0-1 and f32 on 2-3 at once (disjoint NVLink pairs).
    (bench 0,1 bf16 bf16 "$others" 200; bench 0,1 a2a_bf16 bf16 "$a2a" 90) &
    (bench 2,3 f32 f32 "$others" 200; bench 2,3 a2a_f32 f32 "$a2a" 90) &
    wait
  else
    bench "$(gpus_of "$D")" main f32,bf16 "$others" "${SWEEP_SECONDS:-330}"
    bench "$(gpus_of "$D")" a2a f32,bf16 "$a2a" "${A2A_SECONDS:-150}"
  fi
  grep -h -E "error|WRONG|fatal" "$OUTDIR"/sweep_d${D}_*.err | head -5
  python3 "$C/bench/collectives/choice_table.py" --summary "$OUTDIR"/sweep_d${D}_*.err
  ;;
torch)
  D=${3:?}
  cd "$C/bench/collectives"
  tbytes=()
  [ -n "${TORCH_BYTES:-}" ] && tbytes=(--bytes "$TORCH_BYTES")
  CUDA_VISIBLE_DEVICES=$(gpus_of "$D") timeout ${TORCH_SECONDS:-240} python3 torch_symm_mem.py --nproc "$D" \
    --iters 10 --warmup 3 "${tbytes[@]}" >"$OUTDIR/torch_d$D.txt" 2>"$OUTDIR/torch_d$D.err"
  echo "torch all-reduces D=$D exit $? ($((SECONDS - start)) s)"
  CUDA_VISIBLE_DEVICES=$(gpus_of "$D") timeout ${VDEV_SECONDS:-120} python3 torch_symm_mem.py --nproc "$D" \
    --iters 10 --warmup 3 "${tbytes[@]}" --ops all_to_all_vdev >>"$OUTDIR/torch_d$D.txt" 2>>"$OUTDIR/torch_d$D.err"
  echo "torch all_to_all_vdev D=$D exit $? ($((SECONDS - start)) s)"
  grep -E "WRONG|Error|error|assert" "$OUTDIR/torch_d$D.err" | head -5
  ;;
esac
