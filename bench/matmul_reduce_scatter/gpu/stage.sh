#!/usr/bin/env bash
# Stages what gpu.sh and its drivers (final.sh, rest-perf.sh,
# rest-check.sh) need into a carry folder, from a build configured with
# -DWEAVE_STATIC_RUNTIME_LIBS=ON after
#   ninja fused_ops matmul_reduce_scatter weave_bench_matmul_reduce_scatter \
#     weave-ops weavec weave_bench_matmul_reduce_scatter_bundles \
#     <the matmul_reduce_scatter_*_bundle targets> \
#     bench/matmul/matmul_{f16,bf16}_{1024,2048,4096,8192}x4096x4096.wbundle
#
#   bench/matmul_reduce_scatter/gpu/stage.sh BUILD CARRY   (CARRY: e.g. /work/main/.carry-mrs)
# then on the GPU machine, from the repository root with the carry at
# .carry-mrs: OUT=... bash .carry-mrs/final.sh (and rest-perf.sh,
# rest-check.sh). The drivers call the carry `.carry-mrs`.
set -euo pipefail
BUILD=$(cd "$1" && pwd); C=$2; HERE=$(cd "$(dirname "$0")" && pwd); SRC=$HERE/../../..
mkdir -p "$C"/{bin,lb,fused-bundles,bench/matmul_reduce_scatter,bench/matmul,d4a,d4b,d4s,d2a,d2b,d2s,d1}
cp "$BUILD"/bin/{fused_ops,matmul_reduce_scatter,weave_bench_matmul_reduce_scatter} "$C/bin/"
cp "$HERE"/{gpu.sh,final.sh,rest-perf.sh,rest-check.sh} "$C/"
cp "$SRC/bench/matmul_reduce_scatter/torch_fused.py" "$C/bench/matmul_reduce_scatter/"
cp "$SRC/bench/torch_common.py" "$C/bench/"
cp "$BUILD"/bench/matmul/matmul_*_*x4096x4096.wbundle "$C/bench/matmul/"
E=$BUILD/examples/matmul_reduce_scatter; S=$BUILD/bench/matmul_reduce_scatter
cp "$E"/*_mdyn.wbundle "$E"/matmul_reduce_scatter_bf16_d12_n256.wbundle \
   "$E"/matmul_reduce_scatter_f16_d2_n128.wbundle "$E"/matmul_reduce_scatter_bf16_d4_n256.wbundle "$C/lb/"
for t in bf16 f16; do
  cp "$S"/matmul_reduce_scatter_${t}_d4_mdyn_k4096_n4096.wbundle "$C/d4a/"
  cp "$S"/matmul_reduce_scatter_${t}_d4_mdyn_k{3584_n4096,7168_n8192}.wbundle "$C/d4b/"
  cp "$S"/matmul_reduce_scatter_${t}_d4_m{1024,4096}.wbundle "$C/d4s/"
  cp "$S"/matmul_reduce_scatter_${t}_d2_mdyn_k4096_n4096.wbundle "$C/d2a/"
  cp "$S"/matmul_reduce_scatter_${t}_d2_mdyn_k{7168_n4096,14336_n8192}.wbundle "$C/d2b/"
  cp "$S"/matmul_reduce_scatter_${t}_d2_m{1024,4096}.wbundle "$C/d2s/"
done
cp "$S"/matmul_reduce_scatter_bf16_d1_m*.wbundle "$C/d1/"
. "$HERE/../../gpu_libs.sh"; fused_op_bundles "$BUILD" "$C/fused-bundles"
du -sh "$C"
