#!/usr/bin/env bash
# Ran on 4 x H100 in the fourth session (docs/PERF.md, "Groups of 16 with
# the interleave"): groups of 16 row tiles with
# the interleave (w16) against the template (one, groups of 8) and width 64
# (w64), alternating, at D = 2 (GPUs 0, 1) and, on 4 GPUs, D = 4. About
# 150 s on 4 x H100. From the carry of variants.sh at .carry-rs:
#   OUT=... bash .carry-rs/next.sh
. .carry-rs/calls.sh
B=$C/bin/weave_bench_matmul_reduce_scatter; A="--iters 20 --rounds 2 --matmul-bundles $C/bench/matmul"
for v in w16 one w64 w64 one w16; do
  run 40 "D=2 $v/a" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/a --m-shards 1024,4096 --devices 2 $A
  run 30 "D=2 $v/b" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/b --m-shards 4096 --devices 2 $A
  run 30 "D=2 $v/c" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/c --m-shards 2048 --devices 2 $A
done
if [ "$(nvidia-smi -L | wc -l)" -ge 4 ]; then
  for v in w16 one w64; do
    run 60 "D=4 $v/q" env CUDA_VISIBLE_DEVICES=0,1,2,3 $B --bundles $C/$v/q --m-shards 1024,4096 --devices 4 $A
  done
fi
awk '/^=== /{v=$0} /^\| [0-9]+ +\| [0-9]+ +\| [0-9]+ +\| [24] +\| (bf16|f16) +\| [0-9.]+ +\|/{print v, $0}' "$LOG"
