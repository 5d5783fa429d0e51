#!/usr/bin/env bash
# Round 5 (issue #31), the second call, on 4 GPUs (from the carry of
# variants.sh at .carry-rs): D = 4 on real GPUs (the dynamic bundle at
# m_shard 128 and 384, bf16 and f16: NaN-poisoned c, three launches without
# host synchronization; fused_ops: two calls, three graph replays), the
# variants one / w64 / w8 at D = 4 and PyTorch's fused op at D = 4, then
# one against w64 again at D = 2 (GPUs 0 and 1), alternating. Logs in $OUT.
. .carry-rs/calls.sh
nvidia-smi -L | tee -a "$LOG"
Q=0,1,2,3
for t in bf16 f16; do
  run 30 "real D=4 lb/$t mdyn m_shard=384" env CUDA_VISIBLE_DEVICES=$Q $C/bin/matmul_reduce_scatter $C/lb/matmul_reduce_scatter_${t}_d4_mdyn.wbundle --m-shard 384
done
run 30 "real D=4 lb/bf16 mdyn m_shard=128" env CUDA_VISIBLE_DEVICES=$Q $C/bin/matmul_reduce_scatter $C/lb/matmul_reduce_scatter_bf16_d4_mdyn.wbundle --m-shard 128
run 60 "fused_ops real D=4" env CUDA_VISIBLE_DEVICES=$Q $C/bin/fused_ops --bundles $C/fused-bundles
B=$C/bin/weave_bench_matmul_reduce_scatter; A="--iters 20 --rounds 2 --matmul-bundles $C/bench/matmul"
for v in one w64 w8; do
  run 60 "bench D=4 $v/q" env CUDA_VISIBLE_DEVICES=$Q $B --bundles $C/$v/q --m-shards 1024,4096 --devices 4 $A
done
run 90 "torch fused D=4 bf16" env CUDA_VISIBLE_DEVICES=$Q PYTHONUNBUFFERED=1 python3 $C/bench/matmul_reduce_scatter/torch_fused.py --nproc 4 --dtype bf16 --iters 15 --shapes 4096:4096@1024/4096,7168:8192@1024/4096
for v in w64 one one w64; do
  run 40 "bench D=2 $v/c" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/c --m-shards 2048 --devices 2 $A
  run 40 "bench D=2 $v/a" env CUDA_VISIBLE_DEVICES=0,1 $B --bundles $C/$v/a --m-shards 1024,4096 --devices 2 $A
done
cat "$SUM"
