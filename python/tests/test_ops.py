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
@pytest.mark.parametrize("algorithm", ["one_shot", "two_shot"])
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
def test_all_gather_and_reduce_scatter(loopback, dtype_name):
    torch, team, coll = loopback
    dtype = getattr(torch, dtype_name)
    xs = inputs(torch, team, N, dtype)
    gathered = coll.all_gather(xs)
    blocks = inputs(torch, team, N * team.size, dtype)
    scattered = coll.reduce_scatter(blocks)
    torch.cuda.synchronize()
    for out in gathered:
        assert torch.equal(out, torch.cat(xs))
    total = sum(b.double() for b in blocks)
    tol = 1e-6 if dtype == torch.float32 else 1e-2
    for rank, out in enumerate(scattered):
        torch.testing.assert_close(out.double(), total[rank * N:(rank + 1) * N],
                                   rtol=tol, atol=tol)


def test_all_to_all_and_v(loopback):
    torch, team, coll = loopback
    d = team.size
    xs = inputs(torch, team, N * d, torch.bfloat16)
    outs = coll.all_to_all(xs)
    counts = [torch.tensor([0, N], dtype=torch.int32, device="cuda:0"),
              torch.tensor([7, 1], dtype=torch.int32, device="cuda:0")]
    outs_v = [torch.full((N * d,), float("nan"), device="cuda:0").to(torch.bfloat16)
              for _ in range(d)]
    coll.all_to_all_v(xs, counts, outs_v)
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


def test_wrong_inputs_are_errors(loopback):
    torch, team, coll = loopback
    with pytest.raises(weave.WeaveError, match="one per local member"):
        coll.all_reduce([torch.zeros(8, device="cuda:0")])
    with pytest.raises(weave.WeaveError, match="not supported"):
        coll.all_reduce([torch.zeros(8, device="cuda:0", dtype=torch.float64)] * 2)
    with pytest.raises(weave.WeaveError, match="do not split"):
        coll.reduce_scatter([torch.zeros(9, device="cuda:0")] * 2)


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
