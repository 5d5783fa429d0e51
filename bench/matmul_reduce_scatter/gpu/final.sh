#!/usr/bin/env bash
# The measured run (issue #31): loopback correctness, then D = 4 and D = 2
# on real GPUs (ours, local cuBLAS, cuBLAS + NCCL), PyTorch's fused op,
# then one member's epilogue cost. Tables land in $OUT/log.txt.
C=.carry-mrs; G=$C/gpu.sh; export OUT
nvidia-smi -L | tee -a $OUT/log.txt
RUN_TIMEOUT=15 LB=$C/lb bash $G loopback fused realcheck
A="--iters 20 --rounds 2"
BUNDLES=$C/d4a BENCH_TIMEOUT=45 BENCH_ARGS="--m-shards 1024,2048,4096,8192 $A" bash $G real4
BUNDLES=$C/d4b BENCH_TIMEOUT=40 BENCH_ARGS="--m-shards 1024,4096 $A" bash $G real4
BUNDLES=$C/d4s BENCH_TIMEOUT=25 BENCH_ARGS="--m-shards 1024,4096 $A" bash $G real4
BUNDLES=$C/d2a BENCH_TIMEOUT=40 BENCH_ARGS="--m-shards 1024,2048,4096,8192 $A" bash $G real2
BUNDLES=$C/d2b BENCH_TIMEOUT=40 BENCH_ARGS="--m-shards 1024,4096 $A" bash $G real2
BUNDLES=$C/d2s BENCH_TIMEOUT=25 BENCH_ARGS="--m-shards 1024,4096 $A" bash $G real2
TORCH_TIMEOUT=45 TORCH_ARGS="--shapes 4096:4096,3584:4096,7168:8192 --m-shards 1024,4096 --dtype all --iters 15" bash $G torch4
TORCH_TIMEOUT=45 TORCH_ARGS="--shapes 4096:4096,7168:4096,14336:8192 --m-shards 1024,4096 --dtype all --iters 15" bash $G torch2
BUNDLES1=$C/d1 BENCH_TIMEOUT=20 BENCH_ARGS1="$A" bash $G real1
