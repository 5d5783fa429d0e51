#!/usr/bin/env bash
# Issue #32: weave.ops.all_gather_matmul (the Python op, from prebuilt op
# bundles) against torch.ops.symm_mem.fused_all_gather_matmul and local
# cuBLAS of the whole product, D = 2 and D = 4, bf16, every algorithm of
# ALGORITHMS (default "auto,gather": the op's default, the ring, beside
# "gather", the all-gather beside the own shard's matmul) in one run
# (torch_weave_vs_fused.py: eager and CUDA graphs, every output checked
# against NCCL all-gather + matmul).
#
#   bench/collective_matmul/gpu/ops_vs_torch.sh --stage BUILD CARRY
#   OUT=... bash CARRY/ops_vs_torch.sh CARRY     (on the GPU machine, from the
#       repository root: the Python module is built there, runtime only)
# M_SHARDS (default 128,256,...,1024; at staging too: "gather" needs an
# all-gather bundle per m_shard), K and N (default 4096), TEAMS (the team
# sizes of a run, default "2 4") and SECONDS_EACH (the limit per D,
# default 300).
set -uo pipefail
if [ "${1:-}" = --stage ]; then
  BUILD=$(cd "$2" && pwd); C=$3; HERE=$(cd "$(dirname "$0")" && pwd)
  . "$HERE/../../gpu_libs.sh" # op_bundle
  for d in 2 4; do
    # The ring (one bundle for every m_shard), and "gather" (the GEMM + RS's
    # copy-engine bundle, and the all-gather's at each m_shard).
    for m in $(echo "${M_SHARDS:-128,256,384,512,640,768,896,1024}" | tr , ' '); do
      for a in ring gather; do
        op_bundle "$BUILD" "$C/ops" all_gather_matmul --team-size $d --dtype bf16 \
          --m-shard $m --k "${K:-4096}" --n "${N:-4096}" --algorithm $a || exit 1
      done
    done
  done
  cp "$HERE/ops_vs_torch.sh" "$C/"
  exit 0
fi
C=$(cd "${1:?usage: $0 CARRY}" && pwd)
O=${OUT:-/tmp/ops-vs-torch}; mkdir -p "$O"
. bench/gpu_libs.sh
start=$SECONDS
start_torch_bench "$O"
for d in ${TEAMS:-2 4}; do
  CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((d - 1))) PYTHONPATH=$PYB/python timeout "${SECONDS_EACH:-300}" \
    python3 bench/collective_matmul/torch_weave_vs_fused.py --nproc $d --kernels "$C/ops" \
    --m-shards "${M_SHARDS:-128,256,384,512,640,768,896,1024}" --k "${K:-4096}" --n-shard "${N:-4096}" \
    --algorithms "${ALGORITHMS:-auto,gather}" --dtype bf16 >"$O/d$d.log" 2>&1
  echo "D = $d: exit $? ($((SECONDS - start)) s)"
  grep -E '^\||rror|differ' "$O/d$d.log" | tail -14
done
