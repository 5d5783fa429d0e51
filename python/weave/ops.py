"""Weave's ready-made collectives on torch tensors, and as torch custom ops.

:class:`Collectives` runs the C++ ops (weave::ops: the dialect kernels of
ops/templates/, instantiated per dtype and size, cached) on a team:

    coll = weave.ops.Collectives(team, weave.SymmetricMemory(team, 256 << 20))
    out = coll.all_reduce(x)              # x: a tensor, or one per local member

and the fused matmuls, ``coll.all_gather_matmul(a, b)`` (AllGather(a) @ b)
and ``coll.matmul_reduce_scatter(a, b)`` (this member's rows of the sum
over the team of a @ b).

Every op of weave::ops' registry (:func:`op_specs`) is a method of
:class:`Collectives` (the collectives without a method of their own run
through :meth:`Collectives.run`) and a ``weave._cuda.<name>_op``.

With torch >= 2.4 the same ops are torch.library custom ops with fake
(meta) implementations, so they trace under torch.compile. They take a
group name registered with :func:`register_group` (one local member per
process, as under torchrun):

    weave.ops.register_group("tp", coll)
    y = torch.ops.weave.all_reduce(x, "tp")
    c = weave.ops.all_gather_matmul(a, b, "tp")   # torch.ops.weave.all_gather_matmul
"""

from . import _core
from .errors import WeaveError


def op_specs():
    """weave::ops' op registry (weave/ops/Registry.h): one dict per op with
    its name, title, family ("collective" or "fused_matmul"), count_name,
    reduces, dtypes, roles (param, written, member_block, extent),
    algorithms (name, template, kernel, per_team, offered, rank_order, owns)
    and Auto's choice rows."""
    return _core.op_specs()


def _spec(name, family):
    for spec in op_specs():
        if spec["name"] == name and spec["family"] == family:
            return spec
    names = ", ".join(s["name"] for s in op_specs() if s["family"] == family)
    raise WeaveError("InvalidArgument", f"unknown op '{name}' ({names})")


# The CUDA part (weave._cuda, weave.runtime) loads when an op is first made,
# so that this module, its shape checks and the custom ops' fake
# implementations also load on a machine without a driver.
def _runtime():
    from . import runtime
    return runtime


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _dtype_name(tensor):
    return _runtime()._dtype_name(tensor)


class Collectives:
    """The collectives of one team over one symmetric memory. ``kernels`` is
    "jit" (compile in-process; needs a build with the compiler) or the folder
    of the ops' bundles compiled ahead of time (``<kernel key>.wbundle``; a
    missing one is an error naming it)."""

    def __init__(self, team, memory, kernels="jit"):
        self.team = team
        self.memory = memory
        from . import _cuda
        self._cuda = _cuda
        self._comm = _cuda.Communicator(team, memory.heap, str(kernels))
        self._ops = {}
        self._streams = _runtime().MemberStreams(team)

    def _op(self, kind, dtype, count, *extra):
        # One op per kind, dtype and shape, kept: its workspace and
        # semaphores stay in the symmetric heap until release().
        key = (kind, dtype, count) + extra
        if key not in self._ops:
            create = getattr(self._cuda, f"{kind}_op")
            try:
                self._ops[key] = create(self._comm, dtype, count, *extra)
            except WeaveError as e:
                # The heap or its signal pad is full (the runtime's
                # Exhausted): the kept ops may be what fills it.
                if e.code != "Exhausted" or not self._ops:
                    raise
                shape = ", ".join(map(str, (dtype, count) + extra))
                raise WeaveError(e.code, f"{kind} ({shape}): {e.message}; "
                                 f"{len(self._ops)} op(s) made earlier by this "
                                 f"Collectives keep their workspace and semaphores "
                                 f"in the heap until Collectives.release()") from None
        return self._ops[key]

    def release(self):
        """Gives back to the symmetric heap the workspace and semaphores of
        every op this object has made. An op is made on its first call of
        each kind, dtype and shape and kept, so a process that calls many
        shapes fills the heap; after release() the next call of a shape
        makes its op again. Waits for the local members' GPUs first. Call
        it only when no CUDA graph captured with those ops will be replayed
        again: a graph keeps the addresses of their buffers."""
        torch = _torch()
        if torch is not None and self._ops:
            for i in range(self.team.local_count):
                torch.cuda.synchronize(self.team.device_ordinal(i))
        self._ops.clear()

    def _refs(self, name, arg):
        refs = _runtime().tensor_refs(self.team, name, arg)
        if refs is None:
            raise WeaveError("InvalidArgument", f"{name}: expected a CUDA tensor "
                             f"or a list of them (one per local member)")
        return refs

    def _outputs(self, like, numel):
        torch = _torch()
        inputs = like if isinstance(like, (list, tuple)) else [like]
        outs = [torch.empty(numel, dtype=t.dtype, device=t.device) for t in inputs]
        return outs if isinstance(like, (list, tuple)) else outs[0]

    def _run(self, kind, dtype, count, extra, *tensor_args):
        # The tensors are checked before the op is made: a wrong call must
        # not compile or load a kernel first.
        refs = [self._refs(f"{kind} tensor {i}", a) for i, a in enumerate(tensor_args)]
        op = self._op(kind, dtype, count, *extra)
        self._streams.run(lambda handles: op(*refs, handles))

    @staticmethod
    def _numel(x):
        return (x if not isinstance(x, (list, tuple)) else x[0]).numel()

    @staticmethod
    def _dtype(x):
        return _dtype_name(x if not isinstance(x, (list, tuple)) else x[0])

    def run(self, op, *tensors, out=None, algorithm="auto"):
        """Any collective of the registry by its name (:func:`op_specs`):
        the tensors of the roles it reads, in role order (each a tensor or
        one per local member); the roles it writes are allocated unless
        ``out`` gives them (a tuple when it writes several). The count is
        the first role's elements (over the team size when that role holds
        a block per member). Returns what it wrote."""
        spec = _spec(op, "collective")
        read = [r for r in spec["roles"] if not r["written"]]
        written = [r for r in spec["roles"] if r["written"]]
        if len(tensors) != len(read):
            raise WeaveError("InvalidArgument",
                             f"{op}: expected {len(read)} tensors "
                             f"({', '.join(r['param'] for r in read)}), got {len(tensors)}")
        d = self.team.size
        total = self._numel(tensors[0])
        if read[0]["extent"] == "team_times_count":
            if total % d:
                raise WeaveError("InvalidArgument",
                                 f"{op}: {total} elements do not split into {d} blocks")
            n = total // d
        else:
            n = total
        elements = {"count": n, "team_times_count": d * n, "team": d}
        if out is None:
            outs = [self._outputs(tensors[0], elements[r["extent"]]) for r in written]
        else:
            outs = list(out) if len(written) > 1 else [out]
        given = iter(tensors)
        made = iter(outs)
        args = [next(made) if r["written"] else next(given) for r in spec["roles"]]
        self._run(op, self._dtype(tensors[0]), n, (algorithm,), *args)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def all_reduce(self, x, out=None, algorithm="auto"):
        """The sum over the team (f32 or bf16, summed in f32 in rank order).
        ``algorithm``: "auto" (the ops' choice table by size and team size),
        "push" (a few blocks, one flag exchange: the latency path),
        "push_two_shot" (push reduce-scatter, then the sums stored into
        every member: the bandwidth path), "ll" (low-latency packets: data
        and flag in one store), "one_shot" or "two_shot". Every collective takes ``algorithm``
        ("auto" or one of the op's kernels: docs/OPS.md; an unknown name is
        an InvalidArgument naming the op's algorithms)."""
        n = self._numel(x)
        out = self._outputs(x, n) if out is None else out
        self._run("all_reduce", self._dtype(x), n, (algorithm,), x, out)
        return out

    def all_gather(self, x, out=None, algorithm="auto"):
        """Every member's ``x`` in rank order (team size x numel);
        ``algorithm``: "auto", "put", "push", "direct" or "ll" (low-latency
        packets)."""
        n = self._numel(x)
        out = self._outputs(x, n * self.team.size) if out is None else out
        self._run("all_gather", self._dtype(x), n, (algorithm,), x, out)
        return out

    def reduce_scatter(self, x, out=None, algorithm="auto"):
        """Block ``rank`` of the sum over the team of ``x`` (team size x n);
        ``algorithm``: "auto", "pull", "push" or "ll" (low-latency packets)."""
        total = self._numel(x)
        if total % self.team.size:
            raise WeaveError("InvalidArgument",
                             f"reduce_scatter: {total} elements do not split into "
                             f"{self.team.size} blocks")
        n = total // self.team.size
        out = self._outputs(x, n) if out is None else out
        self._run("reduce_scatter", self._dtype(x), n, (algorithm,), x, out)
        return out

    def all_to_all(self, x, out=None, algorithm="auto"):
        """Block j of ``x`` goes to member j, landing in block ``rank``;
        ``algorithm``: "auto", "put", "push", "direct" or "ll"."""
        total = self._numel(x)
        if total % self.team.size:
            raise WeaveError("InvalidArgument",
                             f"all_to_all: {total} elements do not split into "
                             f"{self.team.size} blocks")
        out = self._outputs(x, total) if out is None else out
        self._run("all_to_all", self._dtype(x), total // self.team.size,
                  (algorithm,), x, out)
        return out

    def all_to_all_v(self, x, counts, out=None, row_elements=1,
                     algorithm="auto"):
        """MoE dispatch: ``counts[j]`` (i32, on the GPU) elements of ``x`` go
        to member j, packed in destination order; ``out`` receives them packed
        in source order. ``x`` and ``out`` hold team size x capacity and may
        not share memory (nor ``counts`` with ``out``): the call is refused.
        ``row_elements`` > 1 is the token form: the counts and the capacity
        are in rows of that many elements (tokens of a hidden size, e.g. ``x``
        of shape [team size x capacity, hidden] with ``row_elements=hidden``).
        ``algorithm``: "auto", "put", "direct" or "ll" (low-latency
        packets)."""
        total = self._numel(x)
        if row_elements < 1 or total % (self.team.size * row_elements):
            raise WeaveError("InvalidArgument",
                             f"all_to_all_v: {total} elements do not split into "
                             f"{self.team.size} blocks of capacity in rows of "
                             f"{row_elements}")
        out = self._outputs(x, total) if out is None else out
        capacity = total // (self.team.size * row_elements)
        extra = ((algorithm,) if row_elements == 1
                 else (algorithm, row_elements))
        self._run("all_to_all_v", self._dtype(x), capacity, extra,
                  x, counts, out)
        return out

    def _matmul_operands(self, kind, a, b):
        a0 = a if not isinstance(a, (list, tuple)) else a[0]
        b0 = b if not isinstance(b, (list, tuple)) else b[0]
        _check_matmul_shapes(kind, tuple(a0.shape), tuple(b0.shape), a0.dtype, b0.dtype)
        return a0, b0

    def _matmul_outputs(self, like, rows, cols):
        torch = _torch()
        inputs = like if isinstance(like, (list, tuple)) else [like]
        outs = [torch.empty((rows, cols), dtype=t.dtype, device=t.device) for t in inputs]
        return outs if isinstance(like, (list, tuple)) else outs[0]

    def all_gather_matmul(self, a, b, out=None, algorithm="auto"):
        """``AllGather(a) @ b``, fused: ``a`` is this member's row shard
        (m_shard x k, m_shard a multiple of 128), ``b`` its k x n operand;
        the result has team size x m_shard rows. f16 or bf16, summed in
        f32. One kernel serves every m_shard.

        ``algorithm``: "auto" (the op's rule: "copy_engine" from 3 members
        and 512 rows where b is 96 MiB or more and the ring's groups would
        narrow to one row or its steps leave most of a round idle; else "gather" where one shard's plain matmul is
        at most one round of tiles or where b is 96 MiB or more and
        m_shard at most 512 (at 2 members with 2-4 row tiles a shard,
        only where b is that large and a shard more than one round, or
        both shards together one round); else the ring), "ring"
        (the fused kernel forwarding A's tiles around the ring; its own
        shard's tiles read ``a`` where it is: no staging copy),
        "gather" (the collectives' all-gather into the op's gathered rows
        and plain matmuls: for small shards one over every row after it,
        else the own shard's beside it and the peers' rows after: no
        staging copy) or "copy_engine" (the own shard pushed to the peers
        by the copy engines, one launch over every row whose tiles wait
        for their shard's copy).

        Without a copy: ``a`` may be a :class:`weave.SymmetricTensor` of this
        collective's memory with team size x m_shard rows (every member has
        written its shard into rows [rank x m_shard, (rank + 1) x m_shard)
        first), or this member's rows of one (``t[local][rank * m:(rank + 1)
        * m]``, also through ``SymmetricMemory.from_torch``): the kernel
        gathers into it in place. Every member must pass its rows of the same
        symmetric tensor, or none of them: the ring stores into the peers'
        copy at the sender's offset. Any other tensor is copied into the op's
        own symmetric rows first (one device copy of the shard per call)."""
        gathered = self._gathered_rows(a)
        if gathered is not None:
            return self._all_gather_matmul_in_place(gathered, b, out, algorithm)
        a0, b0 = self._matmul_operands("all_gather_matmul", a, b)
        m, k = a0.shape
        n = b0.shape[1]
        out = self._matmul_outputs(a, self.team.size * m, n) if out is None else out
        self._run("all_gather_matmul", _dtype_name(a0), m, (k, n, algorithm), a, b, out)
        return out

    def _gathered_rows(self, a):
        """The symmetric tensor ``a`` is, or whose member rows it is (on
        every local member), with team size x m_shard rows; else None."""
        runtime = _runtime()
        d = self.team.size
        if isinstance(a, runtime.SymmetricTensor):
            if a.memory.heap is not self.memory.heap:
                raise WeaveError("InvalidArgument",
                                 "all_gather_matmul: the symmetric tensor is not "
                                 "in this collective's symmetric memory")
            if len(a.shape) != 2 or a.shape[0] % d:
                raise WeaveError("InvalidArgument",
                                 f"all_gather_matmul: a symmetric `a` must have "
                                 f"team size ({d}) x m_shard rows and k columns, "
                                 f"got shape {a.shape}")
            return a
        tensors = a if isinstance(a, (list, tuple)) else [a]
        if len(tensors) != self.team.local_count or not all(
                runtime._is_tensor(t) and t.dim() == 2 and t.is_contiguous()
                for t in tensors):
            return None
        m = tensors[0].shape[0]
        for sym in self.memory.tensors():
            if (len(sym.shape) != 2 or sym.shape[0] != d * m
                    or sym.shape[1] != tensors[0].shape[1]
                    or sym.dtype != _dtype_name(tensors[0])):
                continue
            block = m * sym.shape[1] * tensors[0].element_size()
            if all(t.data_ptr() == sym.local_pointer(local)
                   + self.team.rank_of(local) * block
                   for local, t in enumerate(tensors)):
                return sym
        return None

    def _all_gather_matmul_in_place(self, a, b, out, algorithm="auto"):
        d = self.team.size
        b0 = b if not isinstance(b, (list, tuple)) else b[0]
        rows, k = a.shape
        m = rows // d
        _check_matmul_shapes("all_gather_matmul", (m, k), tuple(b0.shape),
                             a.dtype, _dtype_name(b0))
        n = b0.shape[1]
        if out is None:
            out = self._matmul_outputs(b, rows, n)
        refs_b = self._refs("all_gather_matmul tensor 1", b)
        refs_c = self._refs("all_gather_matmul tensor 2", out)
        op = self._op("all_gather_matmul", a.dtype, m, k, n, algorithm)
        self._streams.run(lambda handles: op.call_gathered(a.buffer, refs_b, refs_c,
                                                           handles))
        return out

    def matmul_reduce_scatter(self, a, b, out=None, algorithm="auto"):
        """Rows ``[rank * m, (rank + 1) * m)`` of the sum over the team of
        ``a @ b`` (``a``: team size x m rows by k, ``b``: k x n; m a multiple
        of 128). Each member's partial product, rounded to the dtype, goes
        into its slot on the owner of its rows; the owner sums the slots in
        f32 and rounds once (never less accurate than matmul + NCCL
        reduce-scatter). From 2 members the op computes the partial product
        one owner's chunk at a time and the copy engines move each chunk
        into its slot (weave::ops' algorithm "copy_engine", docs/OPS.md),
        or, where one owner's chunk is at most one round of tiles and at
        most 256 rows (D = 2) or 512 (from 3 members; past 256 only up to
        1.5M elements of m x n), the whole partial
        product in one matmul and then the collectives'
        reduce-scatter ("scatter"), or there the fused kernel where its one
        launch over every member's chunk fills its rounds of tiles
        ("owner_slots"); where the copy engines would run and k is at most
        1792 (2048 with at most 4 rounds of its tiles) the fused kernel too
        (a chunk's copy would not hide behind a chunk's matmul); at 2
        members, where k x (m + n) is at most 2 m x n (m at least 2048, m
        x n at least 2048 x 4096), the inputs gathered ("input_gather"); a
        team of one runs the fused kernel.
        Each algorithm's bundle serves every m ("input_gather" has two:
        b moved in one block, or in two column blocks where n is at least
        4 m and the copies outlast the own product; "scatter" also loads
        the reduce-scatter of m x n elements; "auto" picks by m and k, so
        a folder of bundles wants those of the shapes it will see:
        weave.compile_op); ``a`` is read where it is (no staging copy).
        f16 or bf16.

        ``algorithm``: "auto" (the op's rule above), "copy_engine",
        "scatter", "owner_slots" (the fused kernel: every tile stored
        into its slot on the owner by the SMs, then the owner's sum) or
        "input_gather" (the copy engines move each member's rows of ``a``
        for the owner and its ``b`` to the owner, which multiplies them
        beside its own product: fewer bytes than the partial products
        where k is short against m and n; docs/OPS.md)."""
        a0, b0 = self._matmul_operands("matmul_reduce_scatter", a, b)
        rows, k = a0.shape
        n = b0.shape[1]
        if rows % self.team.size:
            raise WeaveError("InvalidArgument",
                             f"matmul_reduce_scatter: {rows} rows of a do not split "
                             f"into {self.team.size} shards")
        m = rows // self.team.size
        out = self._matmul_outputs(a, m, n) if out is None else out
        self._run("matmul_reduce_scatter", _dtype_name(a0), m, (k, n, algorithm),
                  a, b, out)
        return out


def _install_registered_collectives():
    """A method for every registered collective that has none of its own
    above (Collectives.run with the op's name), so that an op added to the
    registry is a method here without a line of Python."""
    for spec in op_specs():
        name = spec["name"]
        if spec["family"] != "collective" or hasattr(Collectives, name):
            continue

        def method(self, *tensors, out=None, algorithm="auto", _op=name):
            return self.run(_op, *tensors, out=out, algorithm=algorithm)
        method.__name__ = name
        method.__doc__ = f"The {spec['title']} (Collectives.run('{name}', ...))."
        setattr(Collectives, name, method)


_install_registered_collectives()


def _check_matmul_shapes(kind, a_shape, b_shape, a_dtype, b_dtype):
    """What a fused matmul op needs of its operands, checked before a kernel
    is made (and by the fake implementations, so torch.compile sees it)."""
    if len(a_shape) != 2 or len(b_shape) != 2:
        raise WeaveError("InvalidArgument",
                         f"{kind}: expected 2-D a and b, got a {list(a_shape)} "
                         f"and b {list(b_shape)}")
    if a_shape[1] != b_shape[0]:
        raise WeaveError("InvalidArgument",
                         f"{kind}: a is {a_shape[0]}x{a_shape[1]} and b "
                         f"{b_shape[0]}x{b_shape[1]}: a's columns must be b's rows")
    if a_dtype != b_dtype:
        raise WeaveError("InvalidArgument",
                         f"{kind}: a is {a_dtype} and b {b_dtype}: expected one dtype")


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
        return _group(group).all_reduce(x.contiguous()).view(x.shape)

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

    @torch.library.custom_op("weave::all_gather_matmul", mutates_args=())
    def all_gather_matmul(a: torch.Tensor, b: torch.Tensor, group: str,
                          algorithm: str) -> torch.Tensor:
        return _group(group).all_gather_matmul(a.contiguous(), b.contiguous(),
                                               algorithm=algorithm)

    @all_gather_matmul.register_fake
    def _(a, b, group, algorithm):
        _check_matmul_shapes("all_gather_matmul", tuple(a.shape), tuple(b.shape),
                             a.dtype, b.dtype)
        size = _group(group).team.size
        return a.new_empty((size * a.shape[0], b.shape[1]))

    @torch.library.custom_op("weave::matmul_reduce_scatter", mutates_args=())
    def matmul_reduce_scatter(a: torch.Tensor, b: torch.Tensor, group: str,
                              algorithm: str) -> torch.Tensor:
        return _group(group).matmul_reduce_scatter(a.contiguous(), b.contiguous(),
                                                   algorithm=algorithm)

    @matmul_reduce_scatter.register_fake
    def _(a, b, group, algorithm):
        _check_matmul_shapes("matmul_reduce_scatter", tuple(a.shape), tuple(b.shape),
                             a.dtype, b.dtype)
        size = _group(group).team.size
        if a.shape[0] % size:
            raise WeaveError("InvalidArgument",
                             f"matmul_reduce_scatter: {a.shape[0]} rows of a do not "
                             f"split into {size} shards")
        return a.new_empty((a.shape[0] // size, b.shape[1]))

    return True


#: True when the torch custom ops (torch.ops.weave.*) are registered.
custom_ops_registered = _register_custom_ops()


def _custom_op(name):
    if not custom_ops_registered:
        raise WeaveError("NotFound",
                         f"weave.ops.{name} is a torch custom op and needs torch >= 2.4 "
                         f"(torch.library.custom_op); use Collectives.{name}")
    return getattr(_torch().ops.weave, name)


def all_gather_matmul(a, b, group, algorithm="auto"):
    """``AllGather(a) @ b`` over the registered group ``group``:
    torch.ops.weave.all_gather_matmul (a custom op with a fake
    implementation: it traces under torch.compile). ``algorithm``: "auto",
    "ring", "gather" or "copy_engine" (:meth:`Collectives.all_gather_matmul`)."""
    return _custom_op("all_gather_matmul")(a, b, group, algorithm)


def matmul_reduce_scatter(a, b, group, algorithm="auto"):
    """This member's rows of the sum over the group of ``a @ b``:
    torch.ops.weave.matmul_reduce_scatter. ``algorithm``: "auto",
    "copy_engine", "scatter", "owner_slots" or "input_gather"
    (:meth:`Collectives.matmul_reduce_scatter`)."""
    return _custom_op("matmul_reduce_scatter")(a, b, group, algorithm)
