#!/usr/bin/env bash
# Round 5 (issue #31) on 2 GPUs, from the carry variants.sh staged at
# .carry-rs: correctness first (loopback D = 2, 4, 8, 12 on GPU 0 and the
# two GPUs: NaN-poisoned c, three launches without host synchronization;
# fused_ops: two calls, then three graph replays), then the variants
# one / sw / w64 / w8 timed against local cuBLAS and cuBLAS + NCCL (the
# bench checks every output first), then PyTorch's fused op. Logs in $OUT.
. .carry-rs/calls.sh
nvidia-smi -L | tee -a "$LOG"
P=${PHASES:-check bench torch}
if [[ " $P " == *" check "* ]]; then
  for dir in lb lb-sw; do for b in $C/$dir/*.wbundle; do
    n=$(basename $b .wbundle); d=$(echo $n | sed -E 's/.*_d([0-9]+)_(n|mdyn).*/\1/')
    if [[ $n == *_mdyn ]]; then
      for m in 128 384; do run 40 "loopback D=$d $dir/$n m_shard=$m" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d $C/bin/matmul_reduce_scatter $b --m-shard $m; done
    else
      run 60 "loopback D=$d $dir/$n" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d $C/bin/matmul_reduce_scatter $b
    fi
  done; done
  for d in 2 4 8; do run 60 "fused_ops loopback D=$d" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d $C/bin/fused_ops --bundles $C/fused-bundles; done
  for t in bf16 f16; do for m in 128 384; do
    run 30 "real D=2 lb/$t mdyn m_shard=$m" env CUDA_VISIBLE_DEVICES=0,1 $C/bin/matmul_reduce_scatter $C/lb/matmul_reduce_scatter_${t}_d2_mdyn.wbundle --m-shard $m
  done; done
  run 30 "real D=2 lb-sw/bf16 mdyn m_shard=384" env CUDA_VISIBLE_DEVICES=0,1 $C/bin/matmul_reduce_scatter $C/lb-sw/matmul_reduce_scatter_bf16_d2_mdyn.wbundle --m-shard 384
  run 60 "fused_ops real D=2" env CUDA_VISIBLE_DEVICES=0,1 $C/bin/fused_ops --bundles $C/fused-bundles
fi
A="--iters 20 --rounds 2 --devices 2 --matmul-bundles $C/bench/matmul"
B=$C/bin/weave_bench_matmul_reduce_scatter
if [[ " $P " == *" bench "* ]]; then
  for v in ${VARIANTS:-one w64 w8 sw}; do
    run 60 "bench $v/a" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/a --m-shards 1024,4096 $A
    run 40 "bench $v/b" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/b --m-shards 4096 $A
    run 30 "bench $v/c" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/c --m-shards 2048 $A
    [ -d $C/$v/s ] && run 40 "bench $v/s" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/s $A
  done
fi
if [[ " $P " == *" torch "* ]]; then
  run 100 "torch fused D=2 bf16" env CUDA_VISIBLE_DEVICES=0,1 PYTHONUNBUFFERED=1 python3 $C/bench/matmul_reduce_scatter/torch_fused.py --nproc 2 --dtype bf16 --iters 15 --shapes 4096:4096@1024/4096,7168:4096@4096,14336:8192@1024/4096,6912:5120@2048
  run 40 "torch fused D=2 f16" env CUDA_VISIBLE_DEVICES=0,1 PYTHONUNBUFFERED=1 python3 $C/bench/matmul_reduce_scatter/torch_fused.py --nproc 2 --dtype f16 --iters 15 --shapes 4096:4096@4096
fi
cat "$SUM"
