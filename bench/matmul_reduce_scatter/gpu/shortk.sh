#!/usr/bin/env bash
# Issue #31 at short k (thirty-seventh session, docs/PERF.md "The fused
# GEMM + RS at short k, taken apart"): the op's template
# (matmul_reduce_scatter.mlir.in: per-source slots, a team barrier, a sum
# pass) against its variants, D = TEAM, bf16, dynamic m_shard bundles,
# `weave_bench_matmul_reduce_scatter` (every output checked, CUDA graphs),
# the variants in alternating rounds so that a clock drift shows.
# TEAM (default 2; the same at both ends) is the bench's team size: its
# bundles, its GPUs 0 .. TEAM - 1 and --devices.
#
#   bench/matmul_reduce_scatter/gpu/shortk.sh --stage BUILD CARRY
#   OUT=... bash CARRY/shortk.sh CARRY          (on the GPU machine)
#
# VARIANTS (staging; ROUNDS on the GPU: the order they run in):
#   slots   the op's template
#   own     owner_combine.mlir.in (no barrier, no pass: the owner sums its
#           own tiles in their epilogue)
#   nopass, nb, local   the op's template without its sum pass; without
#           the pass and the barrier; and that with every box stored into
#           this member's memory (wrong sums on purpose: each a cost)
#   NAME    any other, from EXTRA="NAME=TEMPLATE ...", e.g. a template
#           edited by hand
# SHAPES: K:N pairs; M_SHARDS: the bench's --m-shards. Before the bench,
# the example (`matmul_reduce_scatter`, three launches, every element
# checked) runs the variant CHECK at D = 2 and TEAM on real GPUs (m_shard
# 256 and 1152) and in loopback at each D of LOOPBACK (default 4).
set -euo pipefail
SHAPES=${SHAPES:-1024:4096 1024:8192 1536:4096 2048:4096 2048:8192}
TEAM=${TEAM:-2}
if [ "${1:-}" = --stage ]; then
  BUILD=$(cd "$2" && pwd); C=$3; HERE=$(cd "$(dirname "$0")" && pwd)
  SRC=$(cd "$HERE/../../.." && pwd); T=$SRC/ops/templates/matmul_reduce_scatter
  mkdir -p "$C/bin"
  cp "$BUILD"/bin/{matmul_reduce_scatter,weave_bench_matmul_reduce_scatter} "$C/bin/"
  cp "$HERE"/{shortk.sh,calls.sh} "$C/"
  bundle() { # TEMPLATE OUT D T K COLS
    local src=$2.mlir
    sed -e "s/@D@/$3/g; s/@T@/$4/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/$5/g; s/@COLS@/$6/g; s/@NARROW@/arith.truncf/g" "$1" > "$src"
    "$BUILD/bin/weavec" "$src" --emit=bundle -o "$2"; rm -f "$src"
  }
  # Diagnostic variants of the op's template (wrong sums on purpose: each
  # a cost, not a kernel): nopass (no sum pass), nb (no pass, no team
  # barrier), local (nb with every box stored into this member's memory).
  S=$T/matmul_reduce_scatter.mlir.in; mkdir -p "$C/tpl"
  sed -e 's/%vectors = arith.muli %m_shard, %row_vectors : index/%vectors = arith.muli %c0, %row_vectors : index/' "$S" > "$C/tpl/nopass.mlir.in"
  sed -e '/weave.barrier %bar scope(team_blocks)/d' "$C/tpl/nopass.mlir.in" > "$C/tpl/nb.mlir.in"
  sed -e 's/%slots\[%at, %col\] on %owner/%slots[%at, %col] on %me/' "$C/tpl/nb.mlir.in" > "$C/tpl/local.mlir.in"
  ! cmp -s "$S" "$C/tpl/nopass.mlir.in" && ! cmp -s "$C/tpl/nopass.mlir.in" "$C/tpl/nb.mlir.in" && ! cmp -s "$C/tpl/nb.mlir.in" "$C/tpl/local.mlir.in"
  # EXTRA: NAME=TEMPLATE pairs, variants staged from other templates.
  for e in ${EXTRA:-}; do cp "${e#*=}" "$C/tpl/${e%%=*}.mlir.in"; done
  for v in ${VARIANTS:-slots own}; do
    case $v in slots) t=$S ;; own) t=$T/owner_combine.mlir.in ;; *) t=$C/tpl/$v.mlir.in ;; esac
    for s in $SHAPES; do
      k=${s%:*}; n=${s#*:}; mkdir -p "$C/$v/k${k}n$n"
      bundle "$t" "$C/$v/k${k}n$n/matmul_reduce_scatter_bf16_d${TEAM}_mdyn_k${k}_n$n.wbundle" "$TEAM" bf16 "$k" "$n" &
    done
  done
  wait
  # The example's bundles (k 1024, n 4096) for the correctness runs: the
  # variant CHECK (own: the owner-reduce template) at D = 2 and 4.
  mkdir -p "$C/lb"; CHECK=${CHECK:-own}
  case $CHECK in slots) ct=$S ;; own) ct=$T/owner_combine.mlir.in ;; *) ct=$C/tpl/$CHECK.mlir.in ;; esac
  for d in $(printf '%s\n' 2 4 "$TEAM" | sort -un); do bundle "$ct" "$C/lb/check_bf16_d${d}_mdyn.wbundle" $d bf16 1024 4096; done
  du -sh "$C"
  exit 0
fi
CARRY=$1; . "$CARRY/calls.sh"; C=$CARRY
nvidia-smi -L | tee -a "$LOG"
# Correctness of the owner-reduce kernel at this k on real GPUs first.
X=$C/bin/matmul_reduce_scatter
for d in $(printf '%s\n' 2 "$TEAM" | sort -un); do for m in 256 1152; do
  run 40 "real D=$d check m=$m" env CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((d - 1))) $X $C/lb/check_bf16_d${d}_mdyn.wbundle --m-shard $m
done; done
for d in ${LOOPBACK-4}; do
  run 60 "loopback D=$d check m=384" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d $X $C/lb/check_bf16_d${d}_mdyn.wbundle --m-shard 384
done
if grep -q '^FAIL' "$SUM"; then cat "$SUM"; exit 1; fi
B=$C/bin/weave_bench_matmul_reduce_scatter; A="--iters 20 --rounds ${BENCH_ROUNDS:-2}"
for v in ${ROUNDS:-slots own own slots}; do
  for s in $SHAPES; do
    k=${s%:*}; n=${s#*:}
    run 60 "$v k$k n$n" env CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((TEAM - 1))) $B --bundles $C/$v/k${k}n$n --m-shards ${M_SHARDS:-256,512,1024,2048,4096} --devices "$TEAM" $A
  done
done
cat "$SUM"
awk '/^=== /{v=$0} /^\| [0-9]+ +\| [0-9]+ +\| [0-9]+ +\| [234] +\| (bf16|f16) +\| [0-9.]+ +\|/{print v, $0}' "$LOG"
