"""GPU tests: a loopback team on GPU 0 launches kernels on torch tensors.

They skip, with the reason, where there is no GPU or no torch."""

import pytest

import weave
from conftest import op_kernel_bundle, torch_or_skip

N = 1001  # not a multiple of 16 bytes of f32


@pytest.fixture
def all_reduce(gpu_team_factory):
    torch = torch_or_skip()
    team = gpu_team_factory(2)
    bundle, _ = op_kernel_bundle("all_reduce", 2, "f32", N, "one_shot")
    memory = weave.SymmetricMemory(team, 16 << 20)
    kernel = weave.load(team, bundle, memory).kernel("one_shot_all_reduce")
    return torch, team, memory, kernel


def fill(torch, memory, x, team):
    inputs = [torch.randn(N, device="cuda:0", dtype=torch.float32)
              for _ in range(team.local_count)]
    for local, value in enumerate(inputs):
        x[local].copy_(value)
    return inputs


def test_symmetric_tensors_view_each_members_copy(all_reduce):
    torch, team, memory, _ = all_reduce
    x = memory.empty((N,), torch.float32)
    assert x[0].shape == (N,) and x[0].dtype == torch.float32
    x[0].fill_(1.0)
    x[1].fill_(2.0)
    torch.cuda.synchronize()
    # Member 0 sees member 1's copy through the peer mapping.
    assert torch.equal(x.peer(0, 1), torch.full((N,), 2.0, device="cuda:0"))
    assert x[0].data_ptr() != x[1].data_ptr()


def test_all_reduce_on_torch_tensors_matches_torch(all_reduce):
    torch, team, memory, kernel = all_reduce
    x = memory.empty((N,), torch.float32)
    sem = memory.semaphores(2)
    outs = [torch.full((N,), float("nan"), device="cuda:0") for _ in range(team.local_count)]
    for _ in range(2):  # two launches, no host synchronization between them
        inputs = fill(torch, memory, x, team)
        kernel(x, outs, sem)
        expected = inputs[0].double() + inputs[1].double()
        torch.cuda.current_stream().synchronize()
        for out in outs:
            assert not torch.isnan(out).any()
            torch.testing.assert_close(out.double(), expected, rtol=1e-6, atol=1e-6)


def test_all_reduce_replays_in_a_cuda_graph(all_reduce):
    torch, team, memory, kernel = all_reduce
    x = memory.empty((N,), torch.float32)
    sem = memory.semaphores(2)
    outs = [torch.zeros(N, device="cuda:0") for _ in range(team.local_count)]
    kernel.prepare(x, outs, sem)
    fill(torch, memory, x, team)
    kernel(x, outs, sem)  # warm-up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        with torch.cuda.graph(graph, stream=side):
            kernel(x, outs, sem)
    for _ in range(3):
        inputs = fill(torch, memory, x, team)
        for out in outs:
            out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        expected = inputs[0].double() + inputs[1].double()
        for out in outs:
            torch.testing.assert_close(out.double(), expected, rtol=1e-6, atol=1e-6)


def test_wrong_tensors_are_errors_before_launch(all_reduce):
    torch, team, memory, kernel = all_reduce
    x = memory.empty((N,), torch.float32)
    sem = memory.semaphores(2)
    halfs = [torch.zeros(N, device="cuda:0", dtype=torch.float16) for _ in range(2)]
    with pytest.raises(weave.WeaveError, match=r"argument 1 \('output'\)"):
        kernel(x, halfs, sem)
    short = [torch.zeros(N - 1, device="cuda:0") for _ in range(2)]
    with pytest.raises(weave.WeaveError, match=r"argument 1 \('output'\)"):
        kernel(x, short, sem)
    with pytest.raises(weave.WeaveError, match="one per local member"):
        kernel(x, [torch.zeros(N, device="cuda:0")], sem)
    with pytest.raises(weave.WeaveError, match="takes 3 arguments"):
        kernel(x, short)
