"""Weave's ready-made collectives on torch tensors, and as torch custom ops.

:class:`Collectives` runs the C++ ops (weave::ops: the dialect kernels of
examples/, instantiated per dtype and size, cached) on a team:

    coll = weave.ops.Collectives(team, weave.SymmetricMemory(team, 256 << 20))
    out = coll.all_reduce(x)              # x: a tensor, or one per local member

With torch >= 2.4 the same collectives are torch.library custom ops with
fake (meta) implementations, so they trace under torch.compile. They take a
group name registered with :func:`register_group` (one local member per
process, as under torchrun):

    weave.ops.register_group("tp", coll)
    y = torch.ops.weave.all_reduce(x, "tp")
"""

from . import _cuda
from .errors import WeaveError
from .runtime import MemberStreams, _dtype_name, _torch, tensor_refs


class Collectives:
    """The collectives of one team over one symmetric memory. ``kernels`` is
    "jit" (compile in-process; needs a build with the compiler) or the folder
    of the ops' bundles compiled ahead of time (``<kernel key>.wbundle``; a
    missing one is an error naming it)."""

    def __init__(self, team, memory, kernels="jit"):
        self.team = team
        self.memory = memory
        self._comm = _cuda.Communicator(team, memory.heap, str(kernels))
        self._ops = {}
        self._streams = MemberStreams(team)

    def _op(self, kind, dtype, count, *extra):
        key = (kind, dtype, count) + extra
        if key not in self._ops:
            create = getattr(_cuda, f"{kind}_op")
            self._ops[key] = create(self._comm, dtype, count, *extra)
        return self._ops[key]

    def _refs(self, name, arg):
        refs = tensor_refs(self.team, name, arg)
        if refs is None:
            raise WeaveError("InvalidArgument", f"{name}: expected a CUDA tensor "
                             f"or a list of them (one per local member)")
        return refs

    def _outputs(self, like, numel):
        torch = _torch()
        inputs = like if isinstance(like, (list, tuple)) else [like]
        outs = [torch.empty(numel, dtype=t.dtype, device=t.device) for t in inputs]
        return outs if isinstance(like, (list, tuple)) else outs[0]

    def _run(self, op, *tensor_args):
        refs = [self._refs(f"'{op.kernel_key}' tensor {i}", a)
                for i, a in enumerate(tensor_args)]
        self._streams.run(lambda handles: op(*refs, handles))

    @staticmethod
    def _numel(x):
        return (x if not isinstance(x, (list, tuple)) else x[0]).numel()

    @staticmethod
    def _dtype(x):
        return _dtype_name(x if not isinstance(x, (list, tuple)) else x[0])

    def all_reduce(self, x, out=None, algorithm="auto"):
        """The sum over the team (f32 or bf16, summed in f32 in rank order)."""
        n = self._numel(x)
        out = self._outputs(x, n) if out is None else out
        self._run(self._op("all_reduce", self._dtype(x), n, algorithm), x, out)
        return out

    def all_gather(self, x, out=None):
        """Every member's ``x`` in rank order (team size x numel)."""
        n = self._numel(x)
        out = self._outputs(x, n * self.team.size) if out is None else out
        self._run(self._op("all_gather", self._dtype(x), n), x, out)
        return out

    def reduce_scatter(self, x, out=None):
        """Block ``rank`` of the sum over the team of ``x`` (team size x n)."""
        total = self._numel(x)
        if total % self.team.size:
            raise WeaveError("InvalidArgument",
                             f"reduce_scatter: {total} elements do not split into "
                             f"{self.team.size} blocks")
        n = total // self.team.size
        out = self._outputs(x, n) if out is None else out
        self._run(self._op("reduce_scatter", self._dtype(x), n), x, out)
        return out

    def all_to_all(self, x, out=None):
        """Block j of ``x`` goes to member j, landing in block ``rank``."""
        total = self._numel(x)
        if total % self.team.size:
            raise WeaveError("InvalidArgument",
                             f"all_to_all: {total} elements do not split into "
                             f"{self.team.size} blocks")
        out = self._outputs(x, total) if out is None else out
        self._run(self._op("all_to_all", self._dtype(x), total // self.team.size), x, out)
        return out

    def all_to_all_v(self, x, counts, out=None):
        """MoE dispatch: ``counts[j]`` (i32, on the GPU) elements of ``x`` go
        to member j, packed in destination order; ``out`` receives them packed
        in source order. ``x`` and ``out`` hold team size x capacity."""
        total = self._numel(x)
        if total % self.team.size:
            raise WeaveError("InvalidArgument",
                             f"all_to_all_v: {total} elements do not split into "
                             f"{self.team.size} blocks of capacity")
        out = self._outputs(x, total) if out is None else out
        self._run(self._op("all_to_all_v", self._dtype(x), total // self.team.size),
                  x, counts, out)
        return out


_GROUPS = {}


def register_group(name, collectives):
    """Names a :class:`Collectives` for the torch custom ops (one local
    member: one process per GPU)."""
    if collectives.team.local_count != 1:
        raise WeaveError("InvalidArgument",
                         "the torch custom ops take one tensor per process: register "
                         "a team with one local member (a loopback team calls "
                         "Collectives directly with a tensor per member)")
    _GROUPS[name] = collectives


def _group(name):
    if name not in _GROUPS:
        raise WeaveError("NotFound", f"no weave group '{name}' (register_group first; "
                         f"registered: {', '.join(_GROUPS) or 'none'})")
    return _GROUPS[name]


def _register_custom_ops():
    torch = _torch()
    if torch is None or not hasattr(torch, "library") or not hasattr(torch.library, "custom_op"):
        return False

    @torch.library.custom_op("weave::all_reduce", mutates_args=())
    def all_reduce(x: torch.Tensor, group: str) -> torch.Tensor:
        return _group(group).all_reduce(x.contiguous())

    @all_reduce.register_fake
    def _(x, group):
        return torch.empty_like(x)

    @torch.library.custom_op("weave::all_gather", mutates_args=())
    def all_gather(x: torch.Tensor, group: str) -> torch.Tensor:
        g = _group(group)
        return g.all_gather(x.contiguous()).view(g.team.size * x.shape[0], *x.shape[1:])

    @all_gather.register_fake
    def _(x, group):
        size = _group(group).team.size
        return x.new_empty((size * x.shape[0],) + tuple(x.shape[1:]))

    @torch.library.custom_op("weave::reduce_scatter", mutates_args=())
    def reduce_scatter(x: torch.Tensor, group: str) -> torch.Tensor:
        g = _group(group)
        return g.reduce_scatter(x.contiguous()).view(x.shape[0] // g.team.size, *x.shape[1:])

    @reduce_scatter.register_fake
    def _(x, group):
        size = _group(group).team.size
        return x.new_empty((x.shape[0] // size,) + tuple(x.shape[1:]))

    @torch.library.custom_op("weave::all_to_all_v", mutates_args=())
    def all_to_all_v(x: torch.Tensor, counts: torch.Tensor, group: str) -> torch.Tensor:
        return _group(group).all_to_all_v(x.contiguous(), counts).view(x.shape)

    @all_to_all_v.register_fake
    def _(x, counts, group):
        return torch.empty_like(x)

    return True


#: True when the torch custom ops (torch.ops.weave.*) are registered.
custom_ops_registered = _register_custom_ops()
