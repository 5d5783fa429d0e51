"""CPU tests: import, the JIT, bundles, manifests and argument checks."""

import re

import pytest

import weave

RING = """
gpu.module @kernels {
  gpu.func @scale(%x: memref<256xf32> {weave.name = "x"},
                  %y: memref<256xf32, #weave.symmetric> {weave.name = "y"},
                  %sem: !weave.semaphore<2> {weave.name = "sem"},
                  %factor: f32 {weave.name = "factor"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [256, 1, 1]>} {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<256xf32>
    %s = arith.mulf %v, %factor : f32
    memref.store %s, %y[%i] : memref<256xf32, #weave.symmetric>
    gpu.return
  }
}
"""

needs_compiler = pytest.mark.skipif(
    not weave.has_compiler, reason="this build has no compiler (WEAVE_ENABLE_COMPILER=OFF)")


def test_import_without_a_gpu_names_the_error_type():
    assert issubclass(weave.WeaveError, RuntimeError)
    error = weave.WeaveError("InvalidArgument", "parameter 0 ('x'): bad")
    assert error.code == "InvalidArgument"
    assert str(error) == "parameter 0 ('x'): bad"


@needs_compiler
def test_compile_gives_a_bundle_with_the_manifest():
    bundle = weave.compile(RING, name="scale.mlir", use_cache=False)
    assert bundle.arch == "sm_90a"
    assert bundle.cubin_bytes > 0
    kernel = bundle.kernel("scale")
    assert [p.name for p in kernel.user_params] == ["x", "y", "sem", "factor"]
    assert [p.kind for p in kernel.user_params] == ["buffer", "symmetric", "semaphore", "scalar"]
    assert kernel.user_params[0].dtype == "f32"
    assert list(kernel.user_params[0].shape) == [256]
    assert kernel.user_params[2].semaphore_count == 2
    # The runtime fills these itself.
    assert [p.kind for p in kernel.params[4:]] == ["rank", "team_size", "peer_bases"]
    assert list(kernel.block) == [256, 1, 1]
    assert kernel.team_size == 0
    assert "kernel scale" in bundle.manifest


@needs_compiler
def test_compile_error_is_located():
    broken = RING.replace("arith.mulf %v, %factor", "arith.mulf %v, %nothing")
    with pytest.raises(weave.WeaveError) as caught:
        weave.compile(broken, name="broken.mlir", use_cache=False)
    assert caught.value.code == "CompileError"
    assert "broken.mlir:" in str(caught.value)
    assert "nothing" in str(caught.value)


# A ring exchange whose next launch overwrites the neighbour's inbox before
# the neighbour's host has read it (examples/ring_exchange, issue #29), and
# the same with the team barrier that fixes it.
RACY_RING = """
gpu.module @ring {
  gpu.func @ring(%src: memref<1024xf32> {weave.name = "src"},
                 %inbox: memref<1024xf32, #weave.symmetric> {weave.name = "inbox"},
                 %ready: !weave.semaphore {weave.name = "ready"},
                 %bar: !weave.semaphore {weave.name = "barrier"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    // BARRIER
    weave.put %src, %inbox on %right : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
    gpu.barrier
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      weave.semaphore_signal %ready, %one on %right : !weave.semaphore
      weave.semaphore_wait %ready, %one decrement : !weave.semaphore
    }
    gpu.barrier
    gpu.return
  }
}
"""
SAFE_RING = RACY_RING.replace(
    "// BARRIER", "weave.barrier %bar scope(team) : !weave.semaphore")


@needs_compiler
def test_check_protocol_passes_a_safe_kernel_and_says_what_it_explored():
    summary = weave.check_protocol(SAFE_RING, name="ring.mlir", team_sizes=(2, 3))
    assert summary.startswith("protocol check passed: 1 kernel, team sizes 2,3,")
    assert "2 launches" in summary


@needs_compiler
def test_check_protocol_reports_a_race_with_locations():
    with pytest.raises(weave.WeaveError) as caught:
        weave.check_protocol(RACY_RING, name="ring.mlir", team_sizes=(2,))
    assert caught.value.code == "CompileError"
    message = str(caught.value)
    assert "ring.mlir:18:5: error: race: a put (remote write)" in message
    assert "(reading the output after launch 0)" in message
    assert "note: the other access" in message


@needs_compiler
def test_compile_with_check_raises_on_a_race_and_compiles_a_safe_kernel():
    with pytest.raises(weave.WeaveError) as caught:
        weave.compile(RACY_RING, name="ring.mlir", use_cache=False, check=True,
                      check_options={"team_sizes": (2,)})
    assert "error: race:" in str(caught.value)
    bundle = weave.compile(SAFE_RING, name="ring.mlir", use_cache=False,
                           check=True, check_options={"team_sizes": (2,)})
    assert bundle.kernel("ring").name == "ring"


@needs_compiler
def test_compile_reads_a_path(tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text(RING)
    bundle = weave.compile(path, use_cache=False)
    assert bundle.kernel("scale").name == "scale"


@needs_compiler
def test_bundle_round_trip_and_file(tmp_path):
    bundle = weave.compile(RING, use_cache=False)
    again = weave.Bundle.from_bytes(bundle.to_bytes())
    assert again.manifest == bundle.manifest
    bundle.save(str(tmp_path / "k.wbundle"))
    assert weave.load_bundle(tmp_path / "k.wbundle").manifest == bundle.manifest


def test_bad_bundles_are_errors(tmp_path):
    with pytest.raises(weave.WeaveError) as caught:
        weave.Bundle.from_bytes(b"WEAVEBND" + b"\0" * 10)
    assert caught.value.code == "InvalidBundle"
    with pytest.raises(weave.WeaveError) as caught:
        weave.load_bundle(tmp_path / "missing.wbundle")
    assert caught.value.code == "NotFound"


AUTO_MATMUL = """
gpu.module @m {
  gpu.func @mm(%a: memref<?x4096xf16> {weave.name = "a"},
               %b: memref<4096x4096xf16> {weave.name = "b"},
               %c: memref<?x4096xf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto)
        : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
    gpu.return
  }
}
"""


@needs_compiler
def test_dynamic_rows_compile_to_variants_covering_every_m():
    bundle = weave.compile(AUTO_MATMUL, use_cache=False)
    kernels = bundle.kernels
    assert len(kernels) > 1
    assert all(k.variant_of == "mm" for k in kernels)
    ranges = [k.params[0].ranges[0] for k in kernels]
    assert ranges[0][0] == 1
    assert ranges[-1][1] == 2**63 - 1
    for (_, hi), (lo, _) in zip(ranges, ranges[1:]):
        assert lo == hi + 1
    # The other dimension's range is its static size; `c` has none.
    assert kernels[0].params[0].ranges[1] == (4096, 4096)
    assert kernels[0].params[2].ranges == []
    assert "variant_of mm" in bundle.manifest
    # A configuration chosen for several ranges is one function: the later
    # ranges' entries name the first's (`function`), which is an entry of
    # the bundle that launches its own code.
    names = {k.name for k in kernels}
    shared = [k for k in kernels if k.function]
    assert shared, [k.name for k in kernels]
    for k in shared:
        assert k.function in names and k.function != k.name
        owner = next(o for o in kernels if o.name == k.function)
        assert owner.function == ""


@needs_compiler
def test_unknown_kernel_names_the_ones_there():
    bundle = weave.compile(RING, use_cache=False)
    with pytest.raises(weave.WeaveError, match="no kernel 'nope'.*scale"):
        bundle.kernel("nope")


@needs_compiler
def test_argument_checks_name_the_parameter():
    kernel = weave.compile(RING, use_cache=False).kernel("scale")
    good = weave.DeviceBuffers([0x10000], "f32", [256], 1024)
    wrong_dtype = weave.DeviceBuffers([0x10000], "f16", [256], 512)
    wrong_shape = weave.DeviceBuffers([0x10000], "f32", [255], 1020)
    scalar = weave.ScalarValue.f32(2.0)
    with pytest.raises(weave.WeaveError, match="expected 4"):
        weave.check_args(kernel, [good], heap_id=1, local_count=1, team_size=2)
    with pytest.raises(weave.WeaveError, match=r"argument 0 \('x'\).*f32"):
        weave.check_args(kernel, [wrong_dtype, good, good, scalar], 1, 1, 2)
    with pytest.raises(weave.WeaveError, match=r"argument 0 \('x'\)"):
        weave.check_args(kernel, [wrong_shape, good, good, scalar], 1, 1, 2)
    # A plain buffer where the kernel takes symmetric memory.
    with pytest.raises(weave.WeaveError, match=r"argument 1 \('y'\): expected a symmetric"):
        weave.check_args(kernel, [good, good, good, scalar], 1, 1, 2)


def test_op_instances_name_their_kernels():
    key, kernel, source = weave._core.op_instance("all_gather", 4, "bf16", 1001, "put")
    assert key == "all_gather_bf16_d4_n1001" and kernel == "all_gather"
    assert "memref<4004xbf16, #weave.symmetric>" in source
    # "auto": the ops' choice table (2 KB per peer on 4 members: packets).
    key, kernel, source = weave._core.op_instance("all_gather", 4, "bf16", 1001)
    assert key == "ll_all_gather_bf16_d4_n1001" and kernel == "ll_all_gather"
    # 2 halves x 4 source slots x 501 packets (1001 bf16 in 32-bit words).
    assert "memref<4008xi64, #weave.symmetric>" in source
    with pytest.raises(weave.WeaveError, match="not supported"):
        weave._core.op_instance("all_reduce", 2, "f64", 8)
    with pytest.raises(weave.WeaveError, match="unknown op"):
        weave._core.op_instance("broadcast", 2, "f32", 8)


def test_every_registered_op_is_exposed():
    """weave::ops' registry, as Python reads it: every op makes its kernel
    through _core, and every collective is a method of weave.ops.Collectives
    (a registered op Python does not expose fails here)."""
    import weave.ops
    specs = weave.ops.op_specs()
    names = [s["name"] for s in specs]
    assert len(names) == len(set(names))
    assert {"all_reduce", "all_to_all_v", "all_gather_matmul"} <= set(names)
    for spec in specs:
        for algorithm in spec["algorithms"]:
            if not algorithm["offered"]:
                continue
            # An algorithm may take fewer dtypes than its op ("scatter": bf16).
            assert set(algorithm["dtypes"]) <= set(spec["dtypes"])
            dtype = algorithm["dtypes"][0]
            if spec["family"] == "collective":
                _, kernel, source = weave._core.op_instance(
                    spec["name"], 2, dtype, 8, algorithm["name"])
                assert hasattr(weave.ops.Collectives, spec["name"]), spec["name"]
                assert spec["roles"][0]["param"] == "input"
            else:
                _, kernel, source = weave._core.matmul_op_instance(
                    spec["name"], 2, dtype, 128, 256, 320, algorithm["name"])
            assert kernel == algorithm["kernel"]
            # The kernel, or its variants <kernel>__m<first>_<last|up>_n<cols>
            # (the all-gather matmul's column tile per range of m_shard).
            assert re.search(rf"gpu\.func @{kernel}(__m\d+_\w+_n\d+)?\(", source), kernel
        for row in spec["choices"]:
            assert row[3] in [a["name"] for a in spec["algorithms"] if a["offered"]]
    with pytest.raises(weave.WeaveError, match="unknown op 'broadcast'"):
        weave.ops._spec("broadcast", "collective")


@needs_compiler
def test_op_kernel_compiles():
    _, _, source = weave._core.op_instance("all_reduce", 2, "bf16", 1001, "one_shot")
    bundle = weave.compile(source, use_cache=False)
    assert bundle.kernel("one_shot_all_reduce").persistent_grid


@needs_compiler
def test_compile_op_writes_the_bundle_the_ops_read(tmp_path):
    path = weave.compile_op("reduce_scatter", 2, "f32", 64, tmp_path)
    # "auto": the ops' choice table (256 B per peer at D = 2: the packet
    # kernel).
    assert path.endswith("ll_reduce_scatter_f32_d2_n64.wbundle")
    kernel = weave.load_bundle(path).kernel("ll_reduce_scatter")
    assert kernel.name == "ll_reduce_scatter"
    forced = weave.compile_op("reduce_scatter", 2, "f32", 64, tmp_path, "pull")
    assert forced.endswith("/reduce_scatter_f32_d2_n64.wbundle")
    assert weave.load_bundle(forced).kernel("reduce_scatter").name == "reduce_scatter"


@needs_compiler
def test_compile_op_writes_the_gathers_all_gather_too(tmp_path):
    # The all-gather matmul's "gather" (what "auto" runs at this small
    # shape) needs its matmul's bundle and its all-gather's.
    path = weave.compile_op("all_gather_matmul", 2, "bf16", folder=tmp_path,
                            shape=(128, 256, 320))
    assert path.endswith("/ce_matmul_bf16_d2_mdyn_k256_n320.wbundle")
    assert weave._core.matmul_op_companions("all_gather_matmul", 2, "bf16", 128, 256,
                                            320) == [("all_gather", 128 * 256, "auto")]
    gather_key = weave._core.op_instance("all_gather", 2, "bf16", 128 * 256)[0]
    assert (tmp_path / f"{gather_key}.wbundle").exists()
    assert weave._core.matmul_op_companions("all_gather_matmul", 2, "bf16", 128, 256,
                                            320, "ring") == []
    # The GEMM + RS's "scatter" ("auto" here: one owner's chunk is a part of
    # a round) runs the reduce-scatter of m_shard x n; the copy engines none.
    assert weave._core.matmul_op_companions("matmul_reduce_scatter", 2, "bf16", 128,
                                            256, 320) == [("reduce_scatter", 128 * 320, "auto")]
    assert weave._core.matmul_op_companions("matmul_reduce_scatter", 2, "bf16", 128,
                                            256, 320, "copy_engine") == []
    ring = weave.compile_op("all_gather_matmul", 2, "bf16", folder=tmp_path / "ring",
                            algorithm="ring", shape=(128, 256, 320))
    assert ring.endswith("/all_gather_matmul_bf16_d2_mdyn_k256_n320.wbundle")
    assert sorted(p.name for p in (tmp_path / "ring").iterdir()) == [
        "all_gather_matmul_bf16_d2_mdyn_k256_n320.wbundle"]


def test_matmul_op_algorithm_resolves_auto_by_the_rules():
    # The GEMM + RS: "scatter" for bf16 where an owner's chunk is at most a
    # round, up to 256 rows at D = 2 and 512 from 3 members (past 256 rows
    # only up to 1.5M elements of m_shard x n: what the reduce-scatter
    # moves after the matmul); the copy engines past that (640 and 768
    # rows of 3584 x 4096, one round of 128 x 192 tiles; 512 x 3584 x 4096:
    # measured faster), for f16 and beyond a round.
    algo = weave._core.matmul_op_algorithm
    assert algo("matmul_reduce_scatter", 4, "bf16", 512, 3584, 3072) == "scatter"
    assert algo("matmul_reduce_scatter", 4, "bf16", 512, 3584, 4096) == "copy_engine"
    assert algo("matmul_reduce_scatter", 3, "bf16", 256, 7168, 8192) == "scatter"
    # ... unless the fused kernel's one launch over every member's chunk
    # fills its rounds (4 x 256 rows of 8192 columns: two rounds of 128 x
    # 256 tiles on 132 SMs, 0.97).
    assert algo("matmul_reduce_scatter", 4, "bf16", 256, 7168, 8192) == "owner_slots"
    assert algo("matmul_reduce_scatter", 4, "bf16", 768, 3584, 4096) == "copy_engine"
    assert algo("matmul_reduce_scatter", 3, "bf16", 640, 3584, 4096) == "copy_engine"
    assert algo("matmul_reduce_scatter", 2, "bf16", 256, 4096, 4096) == "scatter"
    assert algo("matmul_reduce_scatter", 2, "bf16", 512, 4096, 4096) == "copy_engine"
    assert algo("matmul_reduce_scatter", 4, "f16", 128, 7168, 4096) == "copy_engine"
    assert algo("matmul_reduce_scatter", 1, "bf16", 1024, 4096, 4096) == "owner_slots"
    # At D = 2 the inputs gathered where they are at most the partials'
    # bytes (k 1024 with m_shard and n 4096; docs/PERF.md "The inputs
    # gathered"); the fused kernel at k 1024 where they are not.
    assert algo("matmul_reduce_scatter", 2, "bf16", 4096, 1024, 8192) == "input_gather"
    assert algo("matmul_reduce_scatter", 2, "f16", 4096, 1024, 4096) == "input_gather"
    assert algo("matmul_reduce_scatter", 2, "bf16", 1024, 1024, 8192) == "owner_slots"
    assert algo("matmul_reduce_scatter", 4, "bf16", 4096, 1024, 8192) == "owner_slots"
    # The all-gather matmul: the copy engines from 3 members where b is 96
    # MiB or more and the ring's last round is mostly idle, "gather" for
    # shards of at most a round, the ring elsewhere.
    assert algo("all_gather_matmul", 4, "bf16", 640, 8192, 8192) == "copy_engine"
    assert algo("all_gather_matmul", 4, "bf16", 384, 4096, 4096) == "gather"
    assert algo("all_gather_matmul", 4, "bf16", 1024, 8192, 8192) == "ring"
    # A name is kept as it is.
    assert algo("all_gather_matmul", 4, "bf16", 384, 4096, 4096, "ring") == "ring"


def test_gather_beside_a_streamed_b_takes_the_narrow_all_gather():
    # From 3 members, where b (k x n) is streamed and the shard past one
    # round, the gather runs its all-gather on few blocks beside the own
    # shard's matmul: the companion names "narrow", a bundle of its own.
    m, k, n = 384, 6144, 10240  # b 120 MiB, 3 x 80 tiles
    for d in (3, 4, 8):
        assert weave._core.matmul_op_companions("all_gather_matmul", d, "f16", m, k,
                                                n) == [("all_gather", m * k, "narrow")]
    # At D = 2 the gather there runs After, with the plain all-gather,
    # where b is past 128 MiB (k 6144 x n 12288: 144 MiB); at 120 MiB a
    # short shard takes the ring (AllGatherMatmul::ringStreamsShortShard),
    # which has no companion.
    assert weave._core.matmul_op_companions("all_gather_matmul", 2, "f16", m, k,
                                            12288) == [("all_gather", m * k, "auto")]
    assert weave._core.matmul_op_companions("all_gather_matmul", 2, "f16", m, k, n) == []
    narrow = weave._core.op_instance("all_gather", 4, "f16", m * k, "narrow")
    direct = weave._core.op_instance("all_gather", 4, "f16", m * k, "direct")
    assert narrow[0] == f"direct_all_gather_f16_d4_n{m * k}_narrow"
    assert direct[0] == f"direct_all_gather_f16_d4_n{m * k}"
    assert narrow[1] == direct[1] == "direct_all_gather"
    assert "persistent(8)" in narrow[2] and "persistent(64)" in direct[2]


def test_cuda_part_loads_or_says_why():
    ok, reason = weave.cuda_available()
    if ok:
        assert weave.Team is not None
    else:
        assert "weave._cuda" in reason
        with pytest.raises(weave.WeaveError) as caught:
            weave.Team
        assert caught.value.code == "DriverError"


def test_version_is_the_projects():
    # One version: CMakeLists.txt's project(), which setup.py reads too (it
    # said 0.2.0 while the CMake package said 0.1).
    import pathlib
    import re
    root = pathlib.Path(__file__).resolve().parents[2]
    cmake = re.search(r"project\(weave VERSION ([0-9.]+)",
                      (root / "CMakeLists.txt").read_text()).group(1)
    assert weave.__version__ == cmake
    assert "version=project_version()" in (root / "setup.py").read_text()


def test_the_dtype_table_is_exposed():
    rows = weave._core.dtypes()
    names = [r["name"] for r in rows]
    assert names[:8] == ["f16", "bf16", "f32", "f64", "i8", "i32", "i64", "u32"]
    for r in rows:
        assert weave._core.dtype_bytes(r["name"]) == r["bytes"]
        assert weave._core.parse_dtype(r["name"]) == r["name"]
        assert r["kind"] in ("float", "int", "uint")
    # weave.runtime maps torch dtypes through these names.
    torch_names = {r["torch"]: r["name"] for r in rows if r["torch"]}
    assert {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
            "int8": "i8", "int32": "i32", "int64": "i64"}.items() <= torch_names.items()
    assert "u32" not in torch_names.values()
    assert [r["name"] for r in rows if r["reduces"]][:2] == ["bf16", "f32"]
    assert [r["name"] for r in rows if r["matmul_operand"]][:2] == ["f16", "bf16"]
    with pytest.raises(weave.WeaveError,
                       match=r"unknown dtype 'x16' \(expected f16, bf16, f32, f64, i8, i32, i64"):
        weave._core.parse_dtype("x16")
    assert weave._core.dtype_bytes("x16") == 0


def test_scalars_from_the_dtype_table():
    import struct
    of, sv = weave._core.ScalarValue.of, weave._core.ScalarValue
    assert of("f32", 1.5).bits == struct.unpack("<I", struct.pack("<f", 1.5))[0] == sv.f32(1.5).bits
    assert of("f32", 2).bits == sv.f32(2.0).bits  # an int for a float
    assert of("f64", -0.25).bits == sv.f64(-0.25).bits
    assert of("i32", -1).bits == sv.i32(-1).bits == 0xFFFFFFFF
    assert of("i32", 2.7).bits == 2  # a float for an int: truncated, as int() does
    assert of("u32", 2**32 - 1).bits == sv.u32(2**32 - 1).bits
    assert of("i64", -2).bits == sv.i64(-2).bits == 2**64 - 2
    assert of("i64", 5).dtype == "i64"
    with pytest.raises(weave.WeaveError, match="no scalar of dtype i8 .scalars are f32, f64, i32, i64 or u32."):
        of("i8", 1)
    with pytest.raises(weave.WeaveError, match="unknown dtype 'x16'"):
        of("x16", 1)
