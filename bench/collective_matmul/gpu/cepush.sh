#!/usr/bin/env bash
# Issue #32: the all-gather matmul with the copy engines' push (PUSH = 2,
# weave_bench_collective_matmul --ce-push, bench/collective_matmul/CePush.h)
# against the op's kernel (PUSH 1 at small shards, the ring above), NCCL +
# cuBLAS and local cuBLAS, on one 4-GPU machine.
#
#   bench/collective_matmul/gpu/cepush.sh --stage BUILD CARRY   (here)
#   OUT=... bash CARRY/cepush.sh CARRY                          (GPU machine)
#
# BUILD configured with -DWEAVE_STATIC_RUNTIME_LIBS=ON, after
#   ninja weavec weave-ops weave_bench_collective_matmul
# Stages the op's dynamic-m_shard instances (bf16, K = N = 4096) at D = 2
# and 4 and their ring_variants.py cepush variants side by side
# (CARRY/k4d<D>/all_gather_matmul_bf16_d<D>_mdyn{,_cepush}.wbundle).
# On the GPU machine, correctness first: loopback teams of 2 and 4 on GPU 0
# (--check-only: the op's kernel, then the copy engines' push after one
# iteration and three back to back, from poisoned `a` and c; no graph
# replays on a shared GPU). Then D = 2 (GPUs 0, 1) and D = 4 at m_shard
# 128 .. 1024: every case checked again (graph replays too), then timed in
# the order ours, ce-push, ce-push, ours (pooled pairs), NCCL + cuBLAS,
# local cuBLAS, 2 rounds.
# About 2 minutes; the table comes last.
set -euo pipefail
if [ "${1:-}" = --stage ]; then
  BUILD=$(cd "$2" && pwd); C=$3; HERE=$(cd "$(dirname "$0")" && pwd)
  SRC=$(cd "$HERE/../../.." && pwd)
  mkdir -p "$C"/bin
  cp "$BUILD"/bin/weave_bench_collective_matmul "$C/bin/"
  cp "$HERE/cepush.sh" "$SRC/bench/gpu_libs.sh" "$C/"
  for d in 2 4; do
    dir=$C/k4d$d src=$C/tmp.mlir name=all_gather_matmul_bf16_d${d}_mdyn
    mkdir -p "$dir"
    "$BUILD/bin/weave-ops" source all_gather_matmul --team-size "$d" --dtype bf16 \
      --m-shard 128 --k 4096 --n 4096 -o "$src"
    "$BUILD/bin/weavec" "$src" --emit=bundle -o "$dir/$name.wbundle"
    python3 "$SRC/bench/collective_matmul/ring_variants.py" "$src" "$C/tmp" cepush
    "$BUILD/bin/weavec" "$C/tmp_cepush.mlir" --emit=bundle -o "$dir/${name}_cepush.wbundle"
    rm -f "$src" "$C/tmp_cepush.mlir"
  done
  if readelf -d "$C/bin/weave_bench_collective_matmul" | grep -q 'libstdc++'; then
    echo "warning: the binary needs libstdc++.so (configure with -DWEAVE_STATIC_RUNTIME_LIBS=ON)"
  fi
  du -sh "$C"
  exit 0
fi

C=$(cd "${1:?usage: $0 CARRY}" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
. "$C/gpu_libs.sh"; export_gpu_libs
O=${OUT:-/tmp/cepush}; mkdir -p "$O"
B=$C/bin/weave_bench_collective_matmul
S=$O/summary.txt
MS=${MS:-128,256,384,512,640,1024}
n=0
run() { run_logged "$@"; } # gpu_libs.sh
# m_shard | D | ours | NCCL+cuBLAS | local | ours/local | ce-push | ce/local |
# ce/ours | check | ce check
rows() { grep -hE '^\| *[0-9]' "$@" | awk -F'|' '{printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n",$2,$3,$6,$7,$8,$10,$15,$16,$17,$14,$18}'; }
set +e
nvidia-smi -L
# 1. Correctness: loopback teams (one GPU), a short timeout each: a hang
# there (CePush.cpp: the cases its argument does not cover) is reported,
# and the real-GPU runs still go.
for d in 2 4; do
  TAIL=6 run 60 "loopback D=$d" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d "$B" \
    --bundles "$C/k4d$d" --devices $d --m-shards 128,384,1152 --dtype bf16 \
    --check-only --no-nccl --ce-push --timeout 20
done
# 2. Checked and timed on real GPUs.
for d in 2 4; do
  devs=0,1; [ $d = 4 ] && devs=0,1,2,3
  TAIL=0 run 150 "D=$d" env CUDA_VISIBLE_DEVICES=$devs "$B" --bundles "$C/k4d$d" \
    --devices $d --m-shards "$MS" --dtype bf16 --iters 20 --rounds 2 --ce-push --timeout 30
  grep -hE 'error|fatal|WRONG' "$O/$n-"*.log | head -5
  rows "$O/$n-"*.log | tee -a "$S"
done
echo "(rows: m_shard | D | ours ms | NCCL+cuBLAS ms | local cuBLAS ms | ours/local | ce-push ms | ce-push/local | ce-push/ours | check | ce-push check)"
