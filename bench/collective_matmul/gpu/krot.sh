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
  KROT=${KROT:-krot8 krot16 krot32}
  mkdir -p "$C"/bin
  cp "$BUILD"/bin/{weave_bench_collective_matmul,weave_bench_matmul_reduce_scatter,matmul_reduce_scatter} "$C/bin/"
  cp "$HERE/krot.sh" "$SRC/bench/gpu_libs.sh" "$C/"
  instance() { # DIR D K N [VARIANT...]: the op's instance (rot), and the
    # ring_variants.py variants of it (nokrot, krotS)
    local dir=$1 d=$2 k=$3 n=$4 src=$C/tmp.mlir; shift 4
    mkdir -p "$C/$dir/rot"
    "$BUILD/bin/weave-ops" source all_gather_matmul --team-size "$d" --dtype bf16 \
      --m-shard 128 --k "$k" --n "$n" -o "$src"
    "$BUILD/bin/weavec" "$src" --emit=bundle -o "$C/$dir/rot/all_gather_matmul_bf16_d${d}_mdyn.wbundle"
    for v in "${@:-nokrot}"; do
      mkdir -p "$C/$dir/$v"
      python3 "$SRC/bench/collective_matmul/ring_variants.py" "$src" "$C/tmp" "$v"
      "$BUILD/bin/weavec" "$C/tmp_$v.mlir" --emit=bundle -o "$C/$dir/$v/all_gather_matmul_bf16_d${d}_mdyn.wbundle"
      rm -f "$C/tmp_$v.mlir"
    done
    rm -f "$src"
  }
  instance k4d2 2 4096 4096 nokrot $KROT
  instance k4d4 4 4096 4096 nokrot $KROT
  instance k4d8 8 4096 4096 nokrot $KROT
  instance b70 2 8192 28672
  instance b8 2 4096 14336
  # Diagnostics at m_shard 384 (static bundles, the op's 128 x 192 tile
  # there, K = N = 4096): the kernel (rot), without the rotation (nokrot),
  # without the waits (nowait: the stores and signals alone, timing only)
  # and without any forwarding (nofwd: the schedule's compute alone,
  # timing only), each also without the rotation.
  TPL=$SRC/ops/templates/collective_matmul/all_gather_matmul.mlir.in
  for d in 2 4; do
    sed -e "s/@ROWS@/$((d * 384))/g; s/@M_SHARD@/384/g; s/@D@/$d/g; s/@LAST@/$((d - 1))/g; s/@K@/4096/g; s/@N_SHARD@/4096/g; s/@DTYPE@/bf16/g; s/@GROUP_ROWS@/8/g; s/@READY@/$((d * 16))/g; s/@LAST_K@/63/g; s/@COL_TILES@/22/g; s/@K_ROTATION@/3/g; s/@PUSH@/0/g; s/@TILE_N@/192/g; s/@STAGES@/4/g; s/@KERNEL@/all_gather_matmul/g; s/@VARIANT@//g" "$TPL" > "$C/diag.mlir"
    python3 "$SRC/bench/collective_matmul/ring_variants.py" "$C/diag.mlir" "$C/diag" nokrot nowait nofwd
    for v in nowait nofwd; do
      python3 "$SRC/bench/collective_matmul/ring_variants.py" "$C/diag_$v.mlir" "$C/diag_$v" nokrot
      mv "$C/diag_${v}_nokrot.mlir" "$C/diag_${v}nk.mlir"
    done
    cp "$C/diag.mlir" "$C/diag_rot.mlir"
    for v in rot nokrot nowait nowaitnk nofwd nofwdnk; do
      mkdir -p "$C/d384/$v"
      "$BUILD/bin/weavec" "$C/diag_$v.mlir" --emit=bundle -o "$C/d384/$v/all_gather_matmul_bf16_d${d}_m384.wbundle"
    done
    rm -f "$C"/diag*.mlir
  done
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
run() { run_logged "$@"; } # gpu_libs.sh
MS=${MS:-384,640,1152,2176,3200,4096}
PARTS=${PARTS:-check mrs time models diag}
has() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
rows() { grep -hE '^\| *[0-9]' "$@" | awk -F'|' '{printf "%s|%s|%s|%s|%s|%s\n",$2,$3,$6,$8,$10,$14}'; }
set +e
nvidia-smi -L
if has diag; then
  for d in 2 4; do
    devs=0,1; [ $d = 4 ] && devs=0,1,2,3
    for r in 1 2; do for v in rot nokrot nowait nowaitnk nofwd nofwdnk; do
      TAIL=0 run 60 "d384 D$d $v" env CUDA_VISIBLE_DEVICES=$devs "$B" --bundles "$C/d384/$v" \
        --devices $d --dtype bf16 --iters 20 --rounds 2 --no-nccl
      rows "$O/$n-"*.log | sed "s/^/d384 D$d $v /" | tee -a "$S"
    done; done
  done
fi
# 1. Correctness: loopback (the rotated instances), near-wrap.
has check && for d in 2 4 8; do
  run 90 "loopback D=$d" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=$d "$B" \
    --bundles "$C/k4d$d/${CHECK_VARIANT:-rot}" --devices $d --m-shards 384,1152 --dtype bf16 --check-only --no-nccl
done
has check && run 60 "near-wrap D=2" env CUDA_VISIBLE_DEVICES=0,1 "$B" --bundles "$C/k4d2/rot" --devices 2 \
  --m-shards 384,4096 --dtype bf16 --near-wrap --iters 5 --warmup 2 --no-nccl
# 2. GEMM + RS smoke test: the example (real D = 2, loopback 4) and the bench.
X=$C/bin/matmul_reduce_scatter
has mrs && run 40 "mrs example D=2 m=384" env CUDA_VISIBLE_DEVICES=0,1 "$X" "$C/mrs-ex/matmul_reduce_scatter_bf16_d2_mdyn.wbundle" --m-shard 384
has mrs && run 40 "mrs example loopback D=4 m=384" env CUDA_VISIBLE_DEVICES=0 WEAVE_LOOPBACK_TEAM=4 "$X" "$C/mrs-ex/matmul_reduce_scatter_bf16_d4_mdyn.wbundle" --m-shard 384
has mrs && TAIL=8 run 90 "mrs bench D=2" env CUDA_VISIBLE_DEVICES=0,1 "$C/bin/weave_bench_matmul_reduce_scatter" \
  --bundles "$C/mrs" --devices 2 --m-shards 1024 --dtype bf16 --iters 10 --no-nccl
# 3. Timings.
has time && for d in 2 4; do
  devs=0,1; [ $d = 4 ] && devs=0,1,2,3
  i=0
  for v in ${TIME_VARIANTS:-rot nokrot nokrot rot}; do
    extra=--no-nccl; [ $i = 0 ] && extra=
    TAIL=0 run 150 "D=$d $v" env CUDA_VISIBLE_DEVICES=$devs "$B" --bundles "$C/k4d$d/$v" --devices $d \
      --m-shards "$MS" --dtype bf16 --iters 20 --rounds 2 $extra
    rows "$O/$n-"*.log | sed "s/^/D$d $v /" | tee -a "$S"
    i=$((i + 1))
  done
done
has models && for s in b70 b8; do
  for v in rot nokrot nokrot rot; do
    TAIL=0 run 120 "$s D=2 $v" env CUDA_VISIBLE_DEVICES=0,1 "$B" --bundles "$C/$s/$v" --devices 2 \
      --m-shards 4096 --dtype bf16 --iters 10 --rounds 2 --no-nccl
    rows "$O/$n-"*.log | sed "s/^/$s $v /" | tee -a "$S"
  done
done
echo "(rows: m_shard | D | ours ms | NCCL+cuBLAS ms | local cuBLAS ms | ours/local | check)"
