#!/usr/bin/env bash
# Issue #32: the all-gather matmul's k rotation (a row tile forwarded in
# its column tiles' first k steps) against the kernel without it
# (ring_variants.py nokrot), the op's dynamic instances, on one 4-GPU
# machine; and a smoke test of the GEMM + reduce-scatter bench and example
# (issue #31: their semaphore binding changed after their last GPU run).
#
#   bench/collective_matmul/gpu/krot.sh --stage BUILD CARRY
#   OUT=... bash CARRY/krot.sh CARRY          (on the GPU machine)
#
# BUILD configured with -DWEAVE_STATIC_RUNTIME_LIBS=ON, after
#   ninja weavec weave-ops weave_bench_collective_matmul \
#         weave_bench_matmul_reduce_scatter matmul_reduce_scatter
# Correctness first: loopback teams of 2, 4 and 8 (--check-only, the
# rotated instances at odd row-tile counts), counters near 2^32 on 2 GPUs;
# every timed run checks its outputs before it times them. Then, bf16:
#   D = 2 (GPUs 0, 1) and D = 4, K = N = 4096, m_shard 384 .. 4096: rot
#   and nokrot in alternation (rot, nokrot, nokrot, rot), NCCL + cuBLAS in
#   the first run only;
#   D = 2 at the 70B (K 8192, n_shard 28672) and 8B (K 4096, n_shard 14336)
#   gate/up shapes, m_shard 4096, in alternation.
set -euo pipefail
if [ "${1:-}" = --stage ]; then
  BUILD=$(cd "$2" && pwd); C=$3; HERE=$(cd "$(dirname "$0")" && pwd)
  SRC=$(cd "$HERE/../../.." && pwd)
  mkdir -p "$C"/bin
  cp "$BUILD"/bin/{weave_bench_collective_matmul,weave_bench_matmul_reduce_scatter,matmul_reduce_scatter} "$C/bin/"
  cp "$HERE/krot.sh" "$SRC/bench/gpu_libs.sh" "$C/"
  instance() { # DIR D K N: the op's instance, rotated and not
    local d=$2 k=$3 n=$4 src=$C/tmp.mlir
    mkdir -p "$C/$1/rot" "$C/$1/nokrot"
    "$BUILD/bin/weave-ops" source all_gather_matmul --team-size "$d" --dtype bf16 \
      --m-shard 128 --k "$k" --n "$n" -o "$src"
    python3 "$SRC/bench/collective_matmul/ring_variants.py" "$src" "$C/tmp" nokrot
    "$BUILD/bin/weavec" "$src" --emit=bundle -o "$C/$1/rot/all_gather_matmul_bf16_d${d}_mdyn.wbundle"
    "$BUILD/bin/weavec" "$C/tmp_nokrot.mlir" --emit=bundle -o "$C/$1/nokrot/all_gather_matmul_bf16_d${d}_mdyn.wbundle"
    rm -f "$src" "$C/tmp_nokrot.mlir"
  }
  instance k4d2 2 4096 4096
  instance k4d4 4 4096 4096
  instance k4d8 8 4096 4096
  instance b70 2 8192 28672
  instance b8 2 4096 14336
  # GEMM + RS: the op's template at D = 2, 4 (dynamic m_shard), the
  # example's and the bench's bundles.
  T=$SRC/ops/templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in
  mkdir -p "$C/mrs"
  for d in 2 4; do
    sed -e "s/@D@/$d/g; s/@T@/bf16/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/4096/g; s/@COLS@/4096/g; s/@NARROW@/arith.truncf/g" "$T" > "$C/tmp.mlir"
    "$BUILD/bin/weavec" "$C/tmp.mlir" --emit=bundle -o "$C/mrs/matmul_reduce_scatter_bf16_d${d}_mdyn_k4096_n4096.wbundle"
    sed -e "s/@D@/$d/g; s/@T@/bf16/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/256/g; s/@COLS@/320/g; s/@NARROW@/arith.truncf/g" "$T" > "$C/tmp.mlir"
    mkdir -p "$C/mrs-ex"
    "$BUILD/bin/weavec" "$C/tmp.mlir" --emit=bundle -o "$C/mrs-ex/matmul_reduce_scatter_bf16_d${d}_mdyn.wbundle"
  done
  rm -f "$C/tmp.mlir"
  du -sh "$C"
  exit 0
fi

C=$(cd "${1:?usage: $0 CARRY}" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
. "$C/gpu_libs.sh"; export_gpu_libs
O=${OUT:-/tmp/krot}; mkdir -p "$O"
B=$C/bin/weave_bench_collective_matmul
S=$O/summary.txt
n=0
run() { # TIMEOUT NAME CMD...: the log's last lines, its exit status
  local t=$1 name=$2; shift 2; n=$((n + 1))
  local log=$O/$n-${name// /_}.log t0=$SECONDS rc=0
  timeout "$t" "$@" > "$log" 2>&1 || rc=$?
  echo "== $name: exit $rc, $((SECONDS - t0)) s" | tee -a "$S"
  tail -n "${TAIL:-3}" "$log"
}
MS=${MS:-384,640,1152,2176,3200,4096}
set +e
nvidia-smi -L
# 1. Correctness: loopback (the rotated instances), near-wrap.
for d in 2 4 8; do
  run 90 "loopback D=$d" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d "$B" \
    --bundles "$C/k4d$d/rot" --devices $d --m-shards 384,1152 --dtype bf16 --check-only --no-nccl
done
run 60 "near-wrap D=2" env CUDA_VISIBLE_DEVICES=0,1 "$B" --bundles "$C/k4d2/rot" --devices 2 \
  --m-shards 384,4096 --dtype bf16 --near-wrap --iters 5 --warmup 2 --no-nccl
# 2. GEMM + RS smoke test: the example (real D = 2, loopback 4) and the bench.
X=$C/bin/matmul_reduce_scatter
run 40 "mrs example D=2 m=384" env CUDA_VISIBLE_DEVICES=0,1 "$X" "$C/mrs-ex/matmul_reduce_scatter_bf16_d2_mdyn.wbundle" --m-shard 384
run 40 "mrs example loopback D=4 m=384" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=4 "$X" "$C/mrs-ex/matmul_reduce_scatter_bf16_d4_mdyn.wbundle" --m-shard 384
TAIL=8 run 90 "mrs bench D=2" env CUDA_VISIBLE_DEVICES=0,1 "$C/bin/weave_bench_matmul_reduce_scatter" \
  --bundles "$C/mrs" --devices 2 --m-shards 1024 --dtype bf16 --iters 10 --no-nccl
# 3. Timings.
TAIL=${TTAIL:-12}
for d in 2 4; do
  devs=0,1; [ $d = 4 ] && devs=0,1,2,3
  i=0
  for v in rot nokrot nokrot rot; do
    extra=--no-nccl; [ $i = 0 ] && extra=
    run 150 "D=$d $v" env CUDA_VISIBLE_DEVICES=$devs "$B" --bundles "$C/k4d$d/$v" --devices $d \
      --m-shards "$MS" --dtype bf16 --iters 20 --rounds 2 $extra
    i=$((i + 1))
  done
done
for s in b70 b8; do
  for v in rot nokrot nokrot rot; do
    TAIL=3 run 120 "$s D=2 $v" env CUDA_VISIBLE_DEVICES=0,1 "$B" --bundles "$C/$s/$v" --devices 2 \
      --m-shards 4096 --dtype bf16 --iters 10 --rounds 2 --no-nccl
  done
done
echo "== summary"; cat "$S"
