# Sourced by the GPU-side scripts of the round-5 calls (rs.sh, rs4.sh, owner.sh,
# next.sh), from the carry that variants.sh stages at .carry-rs: the
# environment (multicast off, the GPU libraries), the logs under $OUT, and
# `run TIMEOUT NAME CMD...`, which appends CMD's output to $OUT/log.txt
# under "=== NAME" and a PASS / FAIL line with its seconds to
# $OUT/summary.txt.
C=.carry-rs; export OUT; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
. bench/gpu_libs.sh; export_gpu_libs
SUM=$OUT/summary.txt; LOG=$OUT/log.txt
run() { # TIMEOUT NAME CMD...
  local to=$1 name=$2; shift 2; local t0=$(date +%s.%N) r
  echo "=== $name" >> "$LOG"
  if timeout "$to" "$@" >> "$LOG" 2>&1; then r=PASS; else r="FAIL($?)"; fi
  printf "%s %6.1fs %s\n" "$r" "$(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN{print b-a}')" "$name" | tee -a "$SUM"
}
