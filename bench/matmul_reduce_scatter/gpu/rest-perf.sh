#!/usr/bin/env bash
# What the measured run (final.sh) did not reach before its time limit:
# D = 2 on real GPUs, D = 4 static-vs-dynamic, PyTorch's fused op at D = 4
# and 2, one member's epilogue cost. About 200 s on 4 x H100/H200.
C=.carry-mrs; G=$C/gpu.sh; export OUT
nvidia-smi -L | tee -a $OUT/log.txt
A="--iters 20 --rounds 2"
BUNDLES=$C/d2a BENCH_TIMEOUT=45 BENCH_ARGS="--m-shards 1024,2048,4096,8192 $A" bash $G real2
BUNDLES=$C/d2b BENCH_TIMEOUT=45 BENCH_ARGS="--m-shards 1024,4096 $A" bash $G real2
TORCH_TIMEOUT=60 TORCH_ARGS="--shapes 4096:4096,3584:4096,7168:8192 --m-shards 1024,4096 --dtype all --iters 15" bash $G torch4
TORCH_TIMEOUT=60 TORCH_ARGS="--shapes 4096:4096,7168:4096,14336:8192 --m-shards 1024,4096 --dtype all --iters 15" bash $G torch2
BUNDLES=$C/d4s BENCH_TIMEOUT=25 BENCH_ARGS="--m-shards 1024,4096 $A" bash $G real4
BUNDLES=$C/d2s BENCH_TIMEOUT=25 BENCH_ARGS="--m-shards 1024,4096 $A" bash $G real2
BUNDLES1=$C/d1 BENCH_TIMEOUT=25 BENCH_ARGS1="$A" bash $G real1
