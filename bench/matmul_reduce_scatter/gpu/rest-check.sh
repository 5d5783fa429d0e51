#!/usr/bin/env bash
# The correctness runs final.sh cut at 15 s each (their float64 host
# references take longer): fused_ops at D = 4, 8 (loopback) and D = 4 (real
# GPUs), the loopback D = 12 bundle. About 120 s.
C=.carry-mrs; G=$C/gpu.sh; export OUT
mkdir -p $OUT/lb12 && cp $C/lb/matmul_reduce_scatter_bf16_d12_n256.wbundle $OUT/lb12/
RUN_TIMEOUT=60 LB=$OUT/lb12 bash $G loopback
for d in 4 8; do RUN_TIMEOUT=60 bash $G fused-d$d; done
RUN_TIMEOUT=60 bash $G fused-real4
