# Sourced by the GPU-machine scripts (bench/run_on_gpu.sh,
# bench/collective_matmul/gpu_checks.sh, bench/matmul_reduce_scatter/gpu/gpu.sh,
# the Python op scripts):
# puts the directories of the shared libraries the benchmarks need besides
# libcuda (cuBLAS, NCCL) on LD_LIBRARY_PATH, from the CUDA toolkit or
# PyTorch's nvidia-* wheels. `export_gpu_libs -v` says where each came from.
# The staging sides of those scripts and of test/gpu's (here, with LLVM)
# source it for op_bundle, the one way they compile an op's bundle.

# Candidate directories, the wheels' first.
gpu_lib_dirs() {
  python3 - <<'PY' 2>/dev/null
import glob, importlib, os
seen = []
for name in ("nvidia.nccl", "nvidia.cublas", "nvidia.cu13", "nvidia"):
    try:
        module = importlib.import_module(name)
    except Exception:
        continue
    for path in list(getattr(module, "__path__", [])):
        for d in [os.path.join(path, "lib")] + glob.glob(os.path.join(path, "*", "lib")):
            if os.path.isdir(d) and d not in seen:
                seen.append(d)
print("\n".join(seen))
PY
  for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -d "$d" ] && echo "$d"
  done
}

export_gpu_libs() {
  local verbose=0 candidates lib d found
  [ "${1:-}" = "-v" ] && verbose=1
  candidates=$(gpu_lib_dirs)
  for lib in libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
    if ldconfig -p 2>/dev/null | grep -q "$lib"; then
      [ $verbose = 1 ] && echo "$lib: system"
      continue
    fi
    found=""
    for d in $candidates; do
      if [ -e "$d/$lib" ]; then found=$d; break; fi
    done
    if [ -n "$found" ]; then
      case ":${LD_LIBRARY_PATH:-}:" in *":$found:"*) ;; *) export LD_LIBRARY_PATH=$found${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ;; esac
      [ $verbose = 1 ] && echo "$lib: $found"
    else
      [ $verbose = 1 ] && echo "$lib: not found (the benches that need it will not start)"
    fi
  done
  return 0
}

# op_bundle BUILD DIR OP ARGS...: at staging (the machine with LLVM), the
# bundle of weave::ops' op OP for `weave-ops` ARGS, compiled with BUILD's
# weave-ops and weavec into DIR/<its kernel key>.wbundle, the name an op
# looks for in a bundle folder; prints "staged <key>". A key this shell
# made already is not made again (ops share kernels: the all-gather
# matmul's "gather" runs the GEMM + RS's copy-engine bundle; "auto" is
# one of the named algorithms); one made by an earlier staging is (it may
# be stale). A fused op's companions (`weave-ops companions`: the
# all-gather matmul's "gather", by name or chosen by "auto", also loads the
# all-gather of m_shard x k elements) are staged with it. Returns non-zero
# on a failed step.
op_bundle() {
  local build=$1 dir=$2 key; shift 2
  key=$("$build/bin/weave-ops" key "$@") || return 1
  case "$1" in all_gather_matmul | matmul_reduce_scatter)
    # The other ops the fused op loads at this shape (the gather's
    # all-gather): `weave-ops companions`, one argument list a line.
    local companions line
    companions=$("$build/bin/weave-ops" companions "$@") || return 1
    while read -r line; do
      [ -n "$line" ] || continue
      # shellcheck disable=SC2086 # the line is an argument list
      op_bundle "$build" "$dir" $line || return 1
    done <<<"$companions"
    ;;
  esac
  case " ${OP_BUNDLES_MADE:-} " in *" $dir/$key "*) return 0 ;; esac
  mkdir -p "$dir" &&
    "$build/bin/weave-ops" source "$@" -o "$dir/$key.mlir" &&
    "$build/bin/weavec" "$dir/$key.mlir" --emit=bundle -o "$dir/$key.wbundle" &&
    rm -f "$dir/$key.mlir" && OP_BUNDLES_MADE="${OP_BUNDLES_MADE:-} $dir/$key" &&
    echo "staged $key"
}

# fused_op_bundles BUILD DIR [D...]: at staging, every bundle
# examples/fused_ops runs from `--bundles DIR`: both fused matmul ops with
# each of their algorithms, bf16 and f16, k 256, n 320 (a last column tile
# past the edge), at team sizes D (default 2, 4 and 8): one bundle of each
# op serves every m_shard; "gather"'s all-gather at the all-gather
# matmul's m_shard 128 and 256, "scatter"'s reduce-scatter at the GEMM +
# RS's 128 and 384. FUSED_K, FUSED_N, FUSED_AGM_M and FUSED_MRS_M (space-
# separated) stage other shapes, for fused_ops --k, --n, --agm-m-shards
# and --mrs-m-shards.
fused_op_bundles() {
  local build=$1 dir=$2 d t a m; shift 2
  local teams=("$@") k=${FUSED_K:-256} n=${FUSED_N:-320}
  [ ${#teams[@]} -eq 0 ] && teams=(2 4 8)
  for d in "${teams[@]}"; do for t in bf16 f16; do
    for a in ring gather copy_engine; do for m in ${FUSED_AGM_M:-128 256}; do
      op_bundle "$build" "$dir" all_gather_matmul --team-size "$d" --dtype $t \
        --m-shard $m --k $k --n $n --algorithm $a || return 1
    done; done
    for a in owner_slots copy_engine input_gather; do
      op_bundle "$build" "$dir" matmul_reduce_scatter --team-size "$d" --dtype $t \
        --m-shard 128 --k $k --n $n --algorithm $a || return 1
    done
    for m in ${FUSED_MRS_M:-128 384}; do # "scatter" (bf16): its reduce-scatter per m_shard
      [ $t = bf16 ] || continue
      op_bundle "$build" "$dir" matmul_reduce_scatter --team-size "$d" --dtype $t \
        --m-shard $m --k $k --n $n --algorithm scatter || return 1
    done
  done; done
}

# Builds the Python module (runtime only: no LLVM on the GPU machines) from
# the repository root into $1, logging to $2; returns ninja's status.
build_weave_python() {
  local pyb=$1 log=$2
  cmake -S . -B "$pyb" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEAVE_ENABLE_COMPILER=OFF \
    -DPython3_EXECUTABLE="$(command -v python3)" >"$log" 2>&1 &&
    ninja -C "$pyb" weave_python >>"$log" 2>&1
}

# start_torch_bench OUTDIR: what a torch benchmark on a GPU machine does
# first, from the repository root: NVLink multicast off (NCCL, PyTorch's
# symmetric memory, NVSHMEM), the CUDA libraries' paths, the Python module
# built into ${PYB:-/tmp/weave-pyb} (log OUTDIR/pyb.log; prints its exit
# status and seconds). Sets PYB and GPUS (the machine's GPU count).
start_torch_bench() {
  local outdir=$1 t0=$SECONDS
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
    PYTHONUNBUFFERED=1
  export_gpu_libs
  PYB=${PYB:-/tmp/weave-pyb}
  build_weave_python "$PYB" "$outdir/pyb.log"
  echo "python module: exit $? ($((SECONDS - t0)) s)"
  GPUS=$(nvidia-smi -L | grep -c '^GPU')
}

# run_logged TIMEOUT NAME CMD...: CMD under `timeout TIMEOUT`, its output in
# $O/<n>-<NAME, made a file name>.log (n counts the calls: the caller's
# global, so that it can find the log after); appends "== NAME: exit RC,
# S s" to the summary file $S and prints it, then the log's last ${TAIL:-3}
# lines.
run_logged() {
  local t=$1 name=$2; shift 2; n=$((n + 1))
  local log=$O/$n-$(echo "$name" | tr -c 'A-Za-z0-9_.\n-' _).log t0=$SECONDS rc=0
  timeout "$t" "$@" > "$log" 2>&1 || rc=$?
  echo "== $name: exit $rc, $((SECONDS - t0)) s" | tee -a "$S"
  tail -n "${TAIL:-3}" "$log"
}
