"""The ready-made collectives (weave.ops) on torch tensors, in loopback on
GPU 0, against torch; and the torch custom ops with a team of one. They skip,
with the reason, without a GPU or torch. Without the compiler the kernels
come from $WEAVE_TEST_BUNDLES (weave.compile_op writes them)."""

import os

import pytest

import weave
from conftest import torch_or_skip

N = 1001  # not a multiple of 16 bytes


def kernels_or_skip():
    if weave.has_compiler:
        return "jit"
    folder = os.environ.get("WEAVE_TEST_BUNDLES")
    if not folder:
        pytest.skip("no compiler in this build and $WEAVE_TEST_BUNDLES unset")
    return folder


@pytest.fixture(scope="module")
def loopback(gpu_team_factory):
    torch = torch_or_skip()
    import weave.ops
    team = gpu_team_factory(2)
    memory = weave.SymmetricMemory(team, 64 << 20)
    return torch, team, weave.ops.Collectives(team, memory, kernels_or_skip())


def inputs(torch, team, n, dtype):
    return [torch.randn(n, device="cuda:0").to(dtype) for _ in range(team.local_count)]


@pytest.mark.parametrize("dtype_name", ["float32", "bfloat16"])
@pytest.mark.parametrize("algorithm", ["one_shot", "two_shot", "push",
                                       "push_two_shot", "ll"])
def test_all_reduce(loopback, dtype_name, algorithm):
    torch, team, coll = loopback
    dtype = getattr(torch, dtype_name)
    for _ in range(2):  # two calls, no host synchronization between them
        xs = inputs(torch, team, N, dtype)
        outs = coll.all_reduce(xs, algorithm=algorithm)
        expected = sum(x.double() for x in xs)
        torch.cuda.synchronize()
        tol = 1e-6 if dtype == torch.float32 else 1e-2
        for out in outs:
            # one rounding of the f32 sum to the output dtype
            torch.testing.assert_close(out.double(), expected, rtol=tol, atol=tol)
        assert torch.equal(outs[0], outs[1])  # same bits on every member


@pytest.mark.parametrize("dtype_name", ["float32", "bfloat16"])
@pytest.mark.parametrize("gather,scatter", [("auto", "auto"), ("put", "pull"),
                                            ("push", "push"), ("direct", "push"),
                                            ("ll", "ll")])
def test_all_gather_and_reduce_scatter(loopback, dtype_name, gather, scatter):
    torch, team, coll = loopback
    dtype = getattr(torch, dtype_name)
    xs = inputs(torch, team, N, dtype)
    gathered = coll.all_gather(xs, algorithm=gather)
    blocks = inputs(torch, team, N * team.size, dtype)
    scattered = coll.reduce_scatter(blocks, algorithm=scatter)
    torch.cuda.synchronize()
    for out in gathered:
        assert torch.equal(out, torch.cat(xs))
    total = sum(b.double() for b in blocks)
    tol = 1e-6 if dtype == torch.float32 else 1e-2
    for rank, out in enumerate(scattered):
        torch.testing.assert_close(out.double(), total[rank * N:(rank + 1) * N],
                                   rtol=tol, atol=tol)


@pytest.mark.parametrize("algorithm", ["auto", "put", "push", "direct", "ll"])
def test_all_to_all_and_v(loopback, algorithm):
    torch, team, coll = loopback
    d = team.size
    xs = inputs(torch, team, N * d, torch.bfloat16)
    outs = coll.all_to_all(xs, algorithm=algorithm)
    counts = [torch.tensor([0, N], dtype=torch.int32, device="cuda:0"),
              torch.tensor([7, 1], dtype=torch.int32, device="cuda:0")]
    outs_v = [torch.full((N * d,), float("nan"), device="cuda:0").to(torch.bfloat16)
              for _ in range(d)]
    # The all-to-all-v by the same algorithm where it has one (the
    # all-to-all's push has no all-to-all-v form).
    coll.all_to_all_v(xs, counts, outs_v,
                      algorithm=algorithm if algorithm != "push" else "auto")
    torch.cuda.synchronize()
    for j in range(d):
        for i in range(d):
            assert torch.equal(outs[j][i * N:(i + 1) * N], xs[i][j * N:(j + 1) * N])
    # Member j receives counts_i[j] from each i, packed in source order.
    for j in range(d):
        at = 0
        for i in range(d):
            c = int(counts[i][j])
            start = int(counts[i][:j].sum())
            assert torch.equal(outs_v[j][at:at + c], xs[i][start:start + c])
            at += c


@pytest.mark.parametrize("dtype_name", ["float32", "bfloat16"])
def test_all_to_all_v_tokens(loopback, dtype_name):
    """The token form: counts and capacity in rows of a hidden size."""
    torch, team, coll = loopback
    dtype = getattr(torch, dtype_name)
    d, cap, hidden = team.size, 5, 24
    xs = [torch.randn(d * cap, hidden, device="cuda:0").to(dtype)
          for _ in range(d)]
    counts = [torch.tensor([cap, 2], dtype=torch.int32, device="cuda:0"),
              torch.tensor([0, 3], dtype=torch.int32, device="cuda:0")]
    for _ in range(2):  # two calls, no host synchronization between them
        outs = [torch.full((d * cap, hidden), float("nan"), device="cuda:0").to(dtype)
                for _ in range(d)]
        coll.all_to_all_v(xs, counts, outs, row_elements=hidden)
        torch.cuda.synchronize()
        for j in range(d):
            at = 0
            for i in range(d):
                c = int(counts[i][j])
                start = int(counts[i][:j].sum())
                assert torch.equal(outs[j][at:at + c], xs[i][start:start + c])
                at += c
    with pytest.raises(weave.WeaveError, match="rows of"):
        coll.all_to_all_v(xs, counts, row_elements=7)
    # In place (out = x) is refused: no algorithm can run it.
    with pytest.raises(weave.WeaveError, match="does not run in place"):
        coll.all_to_all_v(xs, counts, xs, row_elements=hidden)


def test_wrong_inputs_are_errors(loopback):
    torch, team, coll = loopback
    with pytest.raises(weave.WeaveError, match="one per local member"):
        coll.all_reduce([torch.zeros(8, device="cuda:0")])
    with pytest.raises(weave.WeaveError, match="not supported"):
        coll.all_reduce([torch.zeros(8, device="cuda:0", dtype=torch.float64)] * 2)
    with pytest.raises(weave.WeaveError, match="do not split"):
        coll.reduce_scatter([torch.zeros(9, device="cuda:0")] * 2)
    with pytest.raises(weave.WeaveError, match="algorithm"):
        coll.all_gather([torch.zeros(8, device="cuda:0")] * 2, algorithm="ring")


def test_torch_custom_ops_trace_and_match(gpu_team_factory):
    torch = torch_or_skip((2, 4))
    import weave.ops
    assert weave.ops.custom_ops_registered
    team = gpu_team_factory(1)
    memory = weave.SymmetricMemory(team, 16 << 20)
    weave.ops.register_group("solo", weave.ops.Collectives(team, memory, kernels_or_skip()))
    x = torch.randn(4, 256, device="cuda:0")
    torch.testing.assert_close(torch.ops.weave.all_reduce(x, "solo"), x)
    assert torch.ops.weave.all_gather(x, "solo").shape == (4, 256)

    def f(t):
        return torch.ops.weave.all_reduce(t * 2, "solo") + 1
    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(x), x * 2 + 1)
    # The fake implementation gives shapes without running the kernel.
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        fake = torch.empty(4, 256, device="cuda:0")
        assert torch.ops.weave.all_gather(fake, "solo").shape == (4, 256)


def test_ops_on_torch_symmetric_memory(gpu_team_factory, tmp_path):
    """A team from a torch.distributed process group and a heap over memory
    PyTorch allocated and mapped (symm_mem empty + rendezvous), no second
    mapping: a world of one process on GPU 0."""
    torch = torch_or_skip((2, 4))
    import torch.distributed as dist
    import weave.ops
    if not dist.is_available():
        pytest.skip("torch.distributed is not available")
    dist.init_process_group("nccl", init_method=f"file://{tmp_path}/store",
                            rank=0, world_size=1, device_id=torch.device("cuda", 0))
    try:
        gpu_team_factory(1)  # skips without a GPU
        torch.cuda.set_device(0)
        team = weave.team_from_process_group()
        assert team.size == 1 and team.is_multi_process
        memory = weave.SymmetricMemory.from_torch(team, dist.group.WORLD, 8 << 20)
        coll = weave.ops.Collectives(team, memory, kernels_or_skip())
        x = torch.randn(1024, device="cuda:0")
        torch.testing.assert_close(coll.all_reduce(x), x)
        gathered = coll.all_gather(x)
        torch.cuda.synchronize()
        assert torch.equal(gathered, x)
        # The staging buffers live in PyTorch's allocation.
        base = memory._owner[1].buffer_ptrs[0]
        staged = memory.empty((16,), torch.float32)
        assert base <= staged[0].data_ptr() < base + (8 << 20)
    finally:
        dist.destroy_process_group()


# The fused matmuls. Shapes: a member's shard of 128 rows (the row tile), k =
# 256 and n = 320 (a ragged column tile): the ahead-of-time bundles of
# test/gpu/run_loopback.sh are made for these.
M, K, NCOLS = 128, 256, 320
MRS_M = 384  # matmul reduce-scatter: three row tiles per shard


def test_matmul_shape_errors_without_a_gpu():
    """The operand checks of the fused matmuls need neither a GPU nor torch."""
    import weave.ops
    check = weave.ops._check_matmul_shapes
    check("all_gather_matmul", (128, 64), (64, 32), "bf16", "bf16")
    with pytest.raises(weave.WeaveError, match="a is 128x64 and b 32x32: a's columns must be b's rows"):
        check("all_gather_matmul", (128, 64), (32, 32), "bf16", "bf16")
    with pytest.raises(weave.WeaveError, match="expected 2-D a and b, got a \\[128\\]"):
        check("matmul_reduce_scatter", (128,), (64, 32), "bf16", "bf16")
    with pytest.raises(weave.WeaveError, match="expected one dtype"):
        check("all_gather_matmul", (128, 64), (64, 32), "bf16", "f16")


def test_kept_ops_name_release_when_the_heap_or_pad_is_full():
    """An Exhausted error (the heap's or the signal pad's) from making an op
    names the ops this Collectives keeps and release(); other errors, or an
    Exhausted with no kept ops, pass through as the runtime wrote them. No
    GPU: the op factory is a stand-in."""
    import types
    import weave.ops
    raised = []

    def make(comm, dtype, count, *extra):
        if raised:
            raise raised.pop()
        return object()

    coll = object.__new__(weave.ops.Collectives)
    coll._cuda = types.SimpleNamespace(all_reduce_op=make)
    coll._comm, coll._ops = None, {}
    raised.append(weave.WeaveError("Exhausted", "signal pad exhausted: 8 semaphores"))
    with pytest.raises(weave.WeaveError, match="^signal pad exhausted: 8 semaphores$"):
        coll._op("all_reduce", "bf16", 64)
    coll._op("all_reduce", "bf16", 128)
    raised.append(weave.WeaveError("Exhausted", "signal pad exhausted: 8 semaphores"))
    with pytest.raises(weave.WeaveError) as caught:
        coll._op("all_reduce", "bf16", 256)
    assert caught.value.code == "Exhausted"
    assert str(caught.value).startswith("all_reduce (bf16, 256): signal pad exhausted")
    assert "1 op(s)" in str(caught.value) and "Collectives.release()" in str(caught.value)
    raised.append(weave.WeaveError("InvalidArgument", "count must be positive"))
    with pytest.raises(weave.WeaveError, match="^count must be positive$"):
        coll._op("all_reduce", "bf16", 512)


def test_matmul_op_instances():
    """One all-gather matmul kernel and one GEMM + RS kernel for every
    m_shard; bad shapes are errors naming what was expected."""
    key = weave._core.matmul_op_instance("all_gather_matmul", 2, "bf16", 128, K, NCOLS,
                                         "ring")[0]
    assert key == f"all_gather_matmul_bf16_d2_mdyn_k{K}_n{NCOLS}"
    assert weave._core.matmul_op_instance("all_gather_matmul", 2, "bf16", 1024, K, NCOLS,
                                          "ring")[0] == key
    # "auto" at products this small (one shard's matmul at most one round
    # of tiles): "gather", whose matmul is the GEMM + RS's copy-engine bundle.
    assert weave._core.matmul_op_instance("all_gather_matmul", 2, "bf16", 128, K,
                                          NCOLS)[0] == f"ce_matmul_bf16_d2_mdyn_k{K}_n{NCOLS}"
    # From 2 members the copy engines' bundle ("copy_engine": the chunk
    # matmul and the owner's sum; "scatter", "auto" for bf16 at 128 rows,
    # runs its chunk matmul once over every row); the fused kernel by name,
    # and for "auto" elsewhere at a k this short (kOwnerSlotsMaxK).
    key, kernel, source = weave._core.matmul_op_instance("matmul_reduce_scatter", 2, "f16",
                                                         MRS_M, K, NCOLS, "copy_engine")
    assert (key, kernel) == (f"ce_matmul_f16_d2_mdyn_k{K}_n{NCOLS}", "ce_matmul")
    assert "gpu.func @ce_sum(" in source
    assert weave._core.matmul_op_instance("matmul_reduce_scatter", 2, "bf16", 128, K,
                                          NCOLS)[0] == f"ce_matmul_bf16_d2_mdyn_k{K}_n{NCOLS}"
    key, kernel, source = weave._core.matmul_op_instance(
        "matmul_reduce_scatter", 2, "f16", MRS_M, K, NCOLS, "owner_slots")
    assert (key, kernel) == (f"matmul_reduce_scatter_f16_d2_mdyn_k{K}_n{NCOLS}",
                             "matmul_reduce_scatter")
    assert f"memref<?x{K}xf16>" in source
    for m, dtype in ((MRS_M, "f16"), (MRS_M, "bf16"), (128, "f16")):
        assert weave._core.matmul_op_instance("matmul_reduce_scatter", 2, dtype, m, K,
                                              NCOLS)[0] == \
            f"matmul_reduce_scatter_{dtype}_d2_mdyn_k{K}_n{NCOLS}"
    with pytest.raises(weave.WeaveError, match="'owner_slots', 'copy_engine'"):
        weave._core.matmul_op_instance("matmul_reduce_scatter", 2, "f16", 128, K, NCOLS,
                                       "owner_combine")
    with pytest.raises(weave.WeaveError, match="m_shard must be a multiple of 128"):
        weave._core.matmul_op_instance("all_gather_matmul", 2, "bf16", 100, K, NCOLS)
    with pytest.raises(weave.WeaveError, match="m_shard must be a multiple of 128"):
        weave._core.matmul_op_instance("matmul_reduce_scatter", 2, "bf16", 200, K, NCOLS)
    # No team limit past 8 (the per-member tensor-map table).
    key16 = weave._core.matmul_op_instance("matmul_reduce_scatter", 16, "bf16", 128, K,
                                           NCOLS, "owner_slots")[0]
    assert key16 == f"matmul_reduce_scatter_bf16_d16_mdyn_k{K}_n{NCOLS}"
    with pytest.raises(weave.WeaveError, match="unknown fused matmul op"):
        weave._core.matmul_op_instance("matmul_all_reduce", 2, "bf16", 128, K, NCOLS)


def test_fused_matmul_fake_shapes():
    """The fake implementations give the output shapes (and reject wrong
    operands) without a GPU: what torch.compile traces with."""
    torch = torch_or_skip((2, 4))
    import types
    import weave.ops
    assert weave.ops.custom_ops_registered
    # A group of 4 members as far as the fake implementations can tell.
    weave.ops._GROUPS["fake4"] = types.SimpleNamespace(
        team=types.SimpleNamespace(size=4, local_count=1))
    from torch._subclasses.fake_tensor import FakeTensorMode
    try:
        with FakeTensorMode():
            a = torch.empty(M, K, dtype=torch.bfloat16)
            b = torch.empty(K, NCOLS, dtype=torch.bfloat16)
            assert weave.ops.all_gather_matmul(a, b, "fake4").shape == (4 * M, NCOLS)
            tall = torch.empty(4 * M, K, dtype=torch.bfloat16)
            assert weave.ops.matmul_reduce_scatter(tall, b, "fake4").shape == (M, NCOLS)
            with pytest.raises(Exception, match="a's columns must be b's rows"):
                weave.ops.all_gather_matmul(a, torch.empty(K + 8, NCOLS, dtype=torch.bfloat16),
                                            "fake4")
            with pytest.raises(Exception, match="do not split into 4 shards"):
                weave.ops.matmul_reduce_scatter(torch.empty(M + 1, K, dtype=torch.bfloat16),
                                                b, "fake4")
    finally:
        del weave.ops._GROUPS["fake4"]


def _randn16(torch, shape, dtype, seed):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(shape, generator=g).to(dtype).to("cuda:0")


def _matmul_tolerance(torch, dtype):
    """assert_close's bounds for a fused matmul's 16-bit output against
    float64: bf16 keeps 8 significant bits, f16 11."""
    if dtype == torch.bfloat16:
        return dict(rtol=1e-2, atol=1e-2)
    return dict(rtol=2e-3, atol=2e-3)


def _assert_sum_of_rounded_partials(torch, out, partials, dtype):
    """The GEMM + reduce-scatter's numerics (ops/templates/
    matmul_reduce_scatter): each member's partial product is rounded to the
    dtype once (as cuBLAS's partials on the NCCL path are), the partials are
    summed in f32 and the sum rounded once. So the reference is the float64
    partials each rounded to the dtype, summed; the bound is one ulp of each
    partial (the kernel's f32 accumulation may round a partial the other way
    near a boundary: 2^-7 relative for bf16's 8 significant bits, 2^-10 for
    f16's 11) plus half an ulp of the result."""
    ulp = 2.0 ** -7 if dtype == torch.bfloat16 else 2.0 ** -10
    model = sum(p.to(dtype).double() for p in partials)
    bound = ulp * sum(p.abs() for p in partials) + ulp / 2 * model.abs()
    excess = (out.double() - model).abs() - bound
    assert not torch.isnan(out).any(), "NaN in the output"
    assert float(excess.max()) <= 0, (
        f"{int((excess > 0).sum())} elements past the bound, worst by "
        f"{float(excess.max()):.3g}")


def _assert_scattered(torch, outs, tall, b, m, dtype):
    """Member r's output against rows [r * m, (r + 1) * m) of the sum over
    the members of tall @ b (_assert_sum_of_rounded_partials)."""
    for r, out in enumerate(outs):
        rows = slice(r * m, (r + 1) * m)
        _assert_sum_of_rounded_partials(
            torch, out, [t[rows].double() @ bb.double() for t, bb in zip(tall, b)], dtype)


@pytest.mark.parametrize("mrs_algorithm",
                         ["auto", "owner_slots", "copy_engine", "input_gather"])
@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_fused_matmuls_match_torch(loopback, dtype_name, mrs_algorithm):
    """Loopback D = 2: each op called twice with new inputs and no host
    synchronization, against float64 products of the same inputs; the GEMM
    + reduce-scatter by its rule (the copy engines on a loopback team), by
    the fused kernel, by the copy engines and by gathering the inputs (at D
    = 2 its rounding is the others': each partial rounded, the sum rounded
    once)."""
    torch, team, coll = loopback
    dtype = getattr(torch, dtype_name)
    d = team.size
    tol = _matmul_tolerance(torch, dtype)
    results = []
    for call in range(2):
        a = [_randn16(torch, (M, K), dtype, 10 * call + r) for r in range(d)]
        b = [_randn16(torch, (K, NCOLS), dtype, 100 + 10 * call + r) for r in range(d)]
        tall = [_randn16(torch, (d * MRS_M, K), dtype, 200 + 10 * call + r) for r in range(d)]
        results.append((a, b, tall, coll.all_gather_matmul(a, b),
                        coll.matmul_reduce_scatter(tall, b, algorithm=mrs_algorithm)))
    torch.cuda.synchronize()
    for a, b, tall, gathered, scattered in results:
        whole = torch.cat(a).double()
        for r in range(d):
            assert gathered[r].shape == (d * M, NCOLS)
            torch.testing.assert_close(gathered[r].double(), whole @ b[r].double(), **tol)
        _assert_scattered(torch, scattered, tall, b, MRS_M, dtype)


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_all_gather_matmul_gather(loopback, dtype_name):
    """The collectives' all-gather and the plain matmul (algorithm="gather",
    by name; "auto" runs it too at this shape): three calls with new inputs
    and no host synchronization, NaN-poisoned outputs, against float64."""
    torch, team, coll = loopback
    dtype = getattr(torch, dtype_name)
    d = team.size
    tol = _matmul_tolerance(torch, dtype)
    results = []
    for call in range(3):
        a = [_randn16(torch, (M, K), dtype, 700 + 10 * call + r) for r in range(d)]
        b = [_randn16(torch, (K, NCOLS), dtype, 800 + 10 * call + r) for r in range(d)]
        out = [torch.full((d * M, NCOLS), float("nan"), device="cuda:0", dtype=dtype)
               for _ in range(d)]
        coll.all_gather_matmul(a, b, out=out, algorithm="gather")
        results.append((a, b, out))
    torch.cuda.synchronize()
    for a, b, out in results:
        whole = torch.cat(a).double()
        for r in range(d):
            assert not torch.isnan(out[r]).any()
            torch.testing.assert_close(out[r].double(), whole @ b[r].double(), **tol)
    keys = {op.kernel_key for key, op in coll._ops.items() if key[0] == "all_gather_matmul"}
    assert any(k.startswith("ce_matmul_") for k in keys), keys
    # An algorithm the op does not have names the ones it has ("copy_engine",
    # the copy engines in one launch, came back after "gather" replaced the
    # first of that name: this line expected it refused until then).
    with pytest.raises(weave.WeaveError, match="'ring', 'gather', 'copy_engine', got 'push'"):
        coll.all_gather_matmul(a, b, algorithm="push")


@pytest.mark.parametrize("algorithm", ["ring", "gather"])
def test_all_gather_matmul_in_place(loopback, algorithm):
    """`a` already in symmetric memory: a weave.SymmetricTensor of all the
    rows, or each member's rows of one, is used in place (the kernel gathers
    into it: the other members' rows appear there, which a staged copy would
    not do); two calls with new rows, no host synchronization; a symmetric
    tensor of the wrong shape is an error. Both algorithms ("gather"'s
    all-gather stores each member's rows into the same rows of the peers'
    copies)."""
    torch, team, coll = loopback
    d, dtype = team.size, torch.bfloat16
    tol = dict(rtol=1e-2, atol=1e-2)
    sym = coll.memory.empty((d * M, K), dtype)
    results = []
    for call, form in enumerate(["symmetric tensor", "member rows"]):
        rows = [_randn16(torch, (M, K), dtype, 500 + 10 * call + r) for r in range(d)]
        b = [_randn16(torch, (K, NCOLS), dtype, 600 + 10 * call + r) for r in range(d)]
        for local in range(team.local_count):
            r = team.rank_of(local)
            sym[local][r * M:(r + 1) * M].copy_(rows[r])
        a = sym if form == "symmetric tensor" else [
            sym[local][team.rank_of(local) * M:(team.rank_of(local) + 1) * M]
            for local in range(team.local_count)]
        assert coll._gathered_rows(a) is sym
        results.append((rows, b, coll.all_gather_matmul(a, b, algorithm=algorithm)))
        torch.cuda.synchronize()
        whole = torch.cat(rows)
        for local in range(team.local_count):
            # Gathered in place: every member's copy holds every member's rows.
            torch.testing.assert_close(sym[local], whole, rtol=0, atol=0)
    for rows, b, out in results:
        whole = torch.cat(rows).double()
        for local in range(team.local_count):
            torch.testing.assert_close(out[local].double(),
                                       whole @ b[local].double(), **tol)
    # An ordinary tensor is not taken in place.
    assert coll._gathered_rows([torch.empty((M, K), device="cuda:0", dtype=dtype)
                                for _ in range(team.local_count)]) is None
    odd = coll.memory.empty((d * M + 1, K), dtype)
    with pytest.raises(weave.WeaveError, match="team size"):
        coll.all_gather_matmul(odd, [torch.empty((K, NCOLS), device="cuda:0", dtype=dtype)
                                     for _ in range(team.local_count)],
                               algorithm=algorithm)


def test_matmul_reduce_scatter_first_call_in_a_cuda_graph(gpu_team_factory):
    """A fresh op whose first call is captured (torch.cuda.graph captures in
    global mode): the kernel's per-member TMA table is written during that
    first binding, outside the graph. Three replays with new inputs, against
    float64."""
    torch = torch_or_skip()
    import weave.ops
    team = gpu_team_factory(2)
    coll = weave.ops.Collectives(team, weave.SymmetricMemory(team, 64 << 20),
                                 kernels_or_skip())
    dtype, d = torch.bfloat16, team.size
    tall = [torch.empty((d * MRS_M, K), device="cuda:0", dtype=dtype) for _ in range(d)]
    b = [torch.empty((K, NCOLS), device="cuda:0", dtype=dtype) for _ in range(d)]
    # Made (kernel loaded, workspace allocated) before the capture; its
    # first binding, which writes the table, is inside it.
    coll._op("matmul_reduce_scatter", "bf16", MRS_M, K, NCOLS, "auto")
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        with torch.cuda.graph(graph, stream=side):
            outs = coll.matmul_reduce_scatter(tall, b)
    for replay in range(3):
        for r in range(d):
            tall[r].copy_(_randn16(torch, (d * MRS_M, K), dtype, 300 + 10 * replay + r))
            b[r].copy_(_randn16(torch, (K, NCOLS), dtype, 400 + 10 * replay + r))
        for out in outs:
            out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        _assert_scattered(torch, outs, tall, b, MRS_M, dtype)


def test_release_gives_the_heap_back(gpu_team_factory):
    """Each shape's op keeps its workspace: calls of growing m_shard on a
    small heap run out of it with an error that names release(); after
    release() the same call runs, against float64."""
    torch = torch_or_skip()
    import weave.ops
    team = gpu_team_factory(2)
    coll = weave.ops.Collectives(team, weave.SymmetricMemory(team, 8 << 20),
                                 kernels_or_skip())
    dtype, d = torch.bfloat16, team.size
    b = [_randn16(torch, (K, NCOLS), dtype, 500 + r) for r in range(d)]
    error = None
    for tiles in range(1, 65):
        m = 128 * tiles
        tall = [_randn16(torch, (d * m, K), dtype, 600 + r) for r in range(d)]
        try:
            coll.matmul_reduce_scatter(tall, b, algorithm="copy_engine")
        except weave.WeaveError as e:
            error = e
            break
    assert error is not None, "64 shapes' ops fit in an 8 MiB heap"
    assert error.code == "Exhausted", error
    assert "heap exhausted" in str(error) and "Collectives.release()" in str(error)
    coll.release()
    outs = coll.matmul_reduce_scatter(tall, b, algorithm="copy_engine")
    torch.cuda.synchronize()
    _assert_scattered(torch, outs, tall, b, m, dtype)


def test_fused_matmul_custom_ops(gpu_team_factory):
    """torch.ops.weave.matmul_reduce_scatter with a team of one: a plain
    matmul, eager and under torch.compile(fullgraph=True); the all-gather
    matmul needs a ring of 2 and says so."""
    torch = torch_or_skip((2, 4))
    import weave.ops
    team = gpu_team_factory(1)
    memory = weave.SymmetricMemory(team, 16 << 20)
    weave.ops.register_group("solo_mm", weave.ops.Collectives(team, memory, kernels_or_skip()))
    a = _randn16(torch, (M, K), torch.bfloat16, 1)
    b = _randn16(torch, (K, NCOLS), torch.bfloat16, 2)
    expected = (a.double() @ b.double())
    tol = dict(rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(weave.ops.matmul_reduce_scatter(a, b, "solo_mm").double(),
                               expected, **tol)

    def f(x, y):
        return weave.ops.matmul_reduce_scatter(x, y, "solo_mm") * 2
    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(a, b).double(), expected * 2, **tol)
    with pytest.raises(weave.WeaveError, match="team size must be at least 2"):
        weave.ops.all_gather_matmul(a, b, "solo_mm")


def test_matmul_reduce_scatter_matches_torch_symm_mem(gpu_team_factory, tmp_path):
    """weave.ops.matmul_reduce_scatter against
    torch.ops.symm_mem.fused_matmul_reduce_scatter on a process group of one
    (PyTorch's symmetric memory under both; the all-gather matmul needs two
    GPUs: bench/collective_matmul/torch_weave_vs_fused.py)."""
    torch = torch_or_skip((2, 4))
    import torch.distributed as dist
    import weave.ops
    if not dist.is_available():
        pytest.skip("torch.distributed is not available")
    gpu_team_factory(1)  # skips without a GPU
    dist.init_process_group("nccl", init_method=f"file://{tmp_path}/store",
                            rank=0, world_size=1, device_id=torch.device("cuda", 0))
    try:
        torch.cuda.set_device(0)
        team = weave.team_from_process_group()
        memory = weave.SymmetricMemory.from_torch(team, dist.group.WORLD, 16 << 20)
        weave.ops.register_group("pg1", weave.ops.Collectives(team, memory, kernels_or_skip()))
        a = _randn16(torch, (M, K), torch.bfloat16, 3)
        b = _randn16(torch, (K, NCOLS), torch.bfloat16, 4)
        ours = weave.ops.matmul_reduce_scatter(a, b, "pg1")
        try:
            import torch.distributed._symmetric_memory as symm_mem
            group_name = dist.group.WORLD.group_name
            if hasattr(symm_mem, "enable_symm_mem_for_group"):
                symm_mem.enable_symm_mem_for_group(group_name)
            theirs = torch.ops.symm_mem.fused_matmul_reduce_scatter(
                a, b, "sum", scatter_dim=0, group_name=group_name)
        except Exception as error:  # noqa: BLE001 - torch says why it cannot
            pytest.skip(f"torch.ops.symm_mem.fused_matmul_reduce_scatter does not run "
                        f"on one GPU here: {error}")
        torch.testing.assert_close(ours.double(), theirs.double(), rtol=1e-2, atol=1e-2)
        torch.testing.assert_close(ours.double(), a.double() @ b.double(),
                                   rtol=1e-2, atol=1e-2)
    finally:
        # The op gives its workspace back to PyTorch's memory: before the
        # group (and that memory) goes.
        torch.cuda.synchronize()
        weave.ops._GROUPS.pop("pg1", None)
        import gc
        gc.collect()
        dist.destroy_process_group()
