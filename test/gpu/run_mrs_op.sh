#!/usr/bin/env bash
# weave::ops' GEMM + reduce-scatter (every algorithm: the fused kernel
# "owner_slots", the copy engines "copy_engine" and "scatter") and the
# all-gather matmul (every algorithm: the ring, "gather", the all-gather
# beside the own shard's matmul, and "copy_engine", each also with `a` in
# place) through examples/fused_ops, on a loopback
# team, on one process
# driving D GPUs, and on one process per GPU (RANK / WORLD_SIZE /
# LOCAL_RANK, a rendezvous directory): every element against a float64
# reference from NaN-poisoned outputs, three calls without host
# synchronization, three graph replays. The subset of
# test/gpu/run_loopback.sh that the copy-engine algorithm needs, plus the
# real-GPU runs.
#
#   test/gpu/run_mrs_op.sh --stage BUILD_DIR CARRY_DIR   (here: binaries, bundles)
#   test/gpu/run_mrs_op.sh CARRY_DIR                     (on a 4-GPU machine)
#
# BUILD_DIR configured with -DWEAVE_STATIC_RUNTIME_LIBS=ON, after
# `ninja fused_ops weave-ops weavec`. TEAMS (default "2 4") are the D of
# every mode; FUSED_ARGS (default none: every algorithm of both ops) go to
# every fused_ops run, e.g. FUSED_ARGS="--mrs-algorithm none
# --agm-algorithm gather" for the all-gather matmul's "gather" alone. Ends with one line per run and "N passed, N failed".
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
TEAMS=${TEAMS:-"2 4"}
# Seconds per run (a deadlock ends there). One process checking all 4
# members against float64 on the host is slow: 35 s was too short for it
# (4 x H100, 2026-11-27), the per-GPU processes took less.
LIMIT=${RUN_TIMEOUT:-150}
read -r -a FUSED <<<"${FUSED_ARGS:-}"

if [ "${1:-}" = "--stage" ]; then
  BUILD=${2:?usage: $0 --stage BUILD_DIR CARRY_DIR}
  CARRY=${3:?usage: $0 --stage BUILD_DIR CARRY_DIR}
  mkdir -p "$CARRY/bin" "$CARRY/fused-bundles"
  cp "$BUILD/bin/fused_ops" "$CARRY/bin/" || exit 1
  cp "$0" "$CARRY/run_mrs_op.sh" || exit 1
  . "$(dirname "$0")/../../bench/gpu_libs.sh" # fused_op_bundles
  # shellcheck disable=SC2086 # TEAMS is a list
  fused_op_bundles "$BUILD" "$CARRY/fused-bundles" $TEAMS || exit 1
  du -sh "$CARRY"
  exit 0
fi

CARRY=$(cd "${1:?usage: $0 CARRY_DIR}" && pwd) || exit 2
B="$CARRY/bin/fused_ops"
K="$CARRY/fused-bundles"
results=()
passed=0
failed=0
run() { # NAME TIMEOUT CMD...
  local name=$1 limit=$2; shift 2
  local log
  log=$(mktemp)
  timeout "$limit" "$@" >"$log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1)); results+=("PASS $name")
  else
    failed=$((failed + 1)); results+=("FAIL $name (rc $rc$([ $rc -eq 124 ] && echo ', timed out'))")
  fi
  echo "== $name"; grep -vE ": ok: " "$log" | tail -n 15
  echo "   ($(grep -c ": ok: " "$log") outputs checked ok)"
  rm -f "$log"
}
nvidia-smi -L 2>/dev/null
for d in $TEAMS; do
  run "loopback D=$d, one GPU (every algorithm, bf16+f16)" "$LIMIT" \
    env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d "$B" --bundles "$K" "${FUSED[@]}"
done
for d in $TEAMS; do
  vis=$(seq -s, 0 $((d - 1)))
  run "one process, $d GPUs (every algorithm, bf16)" "$LIMIT" \
    env CUDA_VISIBLE_DEVICES=$vis "$B" --bundles "$K" --dtype bf16 "${FUSED[@]}"
done
# One process per GPU: each rank checks its own member's outputs.
for d in $TEAMS; do
  rv=$(mktemp -d)
  pids=()
  logs=()
  for r in $(seq 0 $((d - 1))); do
    logs+=("$(mktemp)")
    env RANK=$r WORLD_SIZE=$d LOCAL_RANK=$r WEAVE_RENDEZVOUS_DIR="$rv" \
      timeout "$LIMIT" "$B" --bundles "$K" --dtype bf16 "${FUSED[@]}" >"${logs[$r]}" 2>&1 &
    pids+=($!)
  done
  ok=1
  for r in $(seq 0 $((d - 1))); do
    wait "${pids[$r]}" || ok=0
  done
  echo "== one process per GPU, D=$d"
  for r in $(seq 0 $((d - 1))); do
    grep -vE ": ok: " "${logs[$r]}" | tail -n 6 | sed "s/^/rank $r: /"
    echo "   rank $r: $(grep -c ": ok: " "${logs[$r]}") outputs checked ok"
    rm -f "${logs[$r]}"
  done
  rm -rf "$rv"
  if [ $ok = 1 ]; then
    passed=$((passed + 1)); results+=("PASS one process per GPU, D=$d (every algorithm, bf16)")
  else
    failed=$((failed + 1)); results+=("FAIL one process per GPU, D=$d")
  fi
done
printf '%s\n' "${results[@]}"
echo "fused ops${FUSED_ARGS:+ ($FUSED_ARGS)}: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
