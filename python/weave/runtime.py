"""Teams, symmetric memory and kernel launches on torch tensors.

Loaded by ``weave`` on first use of one of these names (it needs the CUDA
driver). PyTorch is optional: launch arguments may be torch tensors, or the
runtime's own values (:class:`weave.DeviceBuffers`, symmetric buffers,
semaphores, numbers).
"""

import weakref

from . import _core, _cuda
from .errors import WeaveError

Team = _cuda.Team


def team_from_process_group(group=None, timeout_ms=60000):
    """The team of a torch.distributed process group (one GPU per process,
    on one host): rank and size from the group, the device from
    torch.cuda.current_device(). Rank 0 picks a rendezvous folder and the
    group broadcasts it; the processes then join through Weave's bootstrap
    there (Unix sockets). Collective over the group."""
    torch = _torch()
    if torch is None:
        raise WeaveError("NotFound", "team_from_process_group needs torch")
    import os
    import tempfile
    import torch.distributed as dist
    rank = dist.get_rank(group)
    size = dist.get_world_size(group)
    folder = [tempfile.mkdtemp(prefix="weave-rendezvous-") if rank == 0 else None]
    dist.broadcast_object_list(folder, src=dist.get_global_rank(group, 0)
                               if group is not None else 0, group=group)
    os.makedirs(folder[0], exist_ok=True)
    return Team.multi_process(rank, size, torch.cuda.current_device(), folder[0],
                              timeout_ms)
Stream = _cuda.Stream
DeviceMemory = _cuda.DeviceMemory

# torch dtype name -> weave dtype name, from the dtype table (weave/runtime/DType.h).
_TORCH_DTYPES = {row["torch"]: row["name"] for row in _core.dtypes() if row["torch"]}


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _is_tensor(value):
    torch = _torch()
    return torch is not None and isinstance(value, torch.Tensor)


def _weave_dtype(dtype):
    """The weave name of a torch dtype (torch.bfloat16 -> "bf16")."""
    name = str(dtype).replace("torch.", "")
    if name not in _TORCH_DTYPES:
        raise WeaveError("InvalidArgument",
                         f"torch dtype {dtype} has no weave dtype "
                         f"(supported: {', '.join(_TORCH_DTYPES)})")
    return _TORCH_DTYPES[name]


def _dtype_name(tensor):
    return _weave_dtype(tensor.dtype)


def tensor_refs(team, where, arg):
    """(pointer, dtype, shape) of each local member's tensor in ``arg`` (a
    tensor, or a list with one per local member), checked against the team's
    devices; None when ``arg`` holds no tensor."""
    tensors = None
    if _is_tensor(arg):
        tensors = [arg]
    elif isinstance(arg, (list, tuple)) and arg and all(_is_tensor(t) for t in arg):
        tensors = list(arg)
    if tensors is None:
        return None
    if len(tensors) != team.local_count:
        raise WeaveError(
            "InvalidArgument",
            f"{where}: expected {team.local_count} tensor(s), one per local "
            f"member, got {len(tensors)}")
    refs = []
    for local, t in enumerate(tensors):
        if not t.is_cuda or t.device.index != team.device_ordinal(local):
            raise WeaveError(
                "InvalidArgument",
                f"{where}: local member {local} runs on cuda:{team.device_ordinal(local)}, "
                f"the tensor is on {t.device}")
        if not t.is_contiguous():
            raise WeaveError("InvalidArgument", f"{where}: the tensor must be contiguous")
        if _dtype_name(t) != _dtype_name(tensors[0]) or t.shape != tensors[0].shape:
            raise WeaveError("InvalidArgument",
                             f"{where}: the tensors of the local members differ in dtype or shape")
        refs.append((t.data_ptr(), _dtype_name(t), list(t.shape)))
    return refs


class MemberStreams:
    """Where a launch on every local member runs. With one local member: the
    current torch stream. With several (a loopback team), members that wait
    on each other cannot share a stream, so each runs on a side stream
    forked from the current stream of its GPU and joined back into it. Both
    capture in a CUDA graph."""

    def __init__(self, team):
        self.team = team
        self._side = None

    def run(self, launch):
        """Calls ``launch(handles)`` with one raw stream handle per member."""
        torch = _torch()
        if torch is None:
            raise WeaveError("InvalidArgument",
                             "without torch, pass streams= (one per local member)")
        team = self.team
        current = [torch.cuda.current_stream(team.device_ordinal(i))
                   for i in range(team.local_count)]
        if team.local_count == 1:
            launch([current[0].cuda_stream])
            return
        if self._side is None:
            self._side = [torch.cuda.Stream(team.device_ordinal(i))
                          for i in range(team.local_count)]
        for side, cur in zip(self._side, current):
            side.wait_stream(cur)
        launch([s.cuda_stream for s in self._side])
        for side, cur in zip(self._side, current):
            cur.wait_stream(side)


class SymmetricTensor:
    """A buffer at the same offset of every member's symmetric heap. Index
    it with a local member to get that member's copy as a torch tensor
    (``x[0]``), or view a peer's copy with :meth:`peer`."""

    def __init__(self, memory, buffer):
        self.memory = memory
        self.buffer = buffer
        self._pointers = None

    @property
    def shape(self):
        return tuple(self.buffer.shape)

    @property
    def dtype(self):
        return self.buffer.dtype

    def __getitem__(self, local):
        return self._tensor(local, None)

    def local_pointer(self, local):
        """The device address of local member ``local``'s copy."""
        if self._pointers is None:
            self._pointers = [self._tensor(i, None).data_ptr()
                              for i in range(self.memory.team.local_count)]
        return self._pointers[local]

    def peer(self, local, rank):
        """Member ``rank``'s copy, as mapped on local member ``local``."""
        return self._tensor(local, rank)

    def _tensor(self, local, rank):
        torch = _torch()
        if torch is None:
            raise WeaveError("NotFound", "viewing symmetric memory as a tensor needs torch")
        capsule = self.memory.heap.dlpack(self.memory.team, self.buffer, local, rank)
        return torch.utils.dlpack.from_dlpack(capsule)

    def __repr__(self):
        return f"<weave.SymmetricTensor {self.dtype} {self.shape}>"


class SymmetricMemory:
    """A symmetric heap of ``bytes`` per member (collective: every process of
    the team creates it with the same size and makes the same allocations in
    the same order)."""

    def __init__(self, team, bytes, signal_pad_bytes=_cuda.SymmetricHeap.DEFAULT_SIGNAL_PAD_BYTES,
                 *, heap=None):
        self.team = team
        self.heap = heap if heap is not None else _cuda.SymmetricHeap.create(
            team, int(bytes), int(signal_pad_bytes))
        self._owner = None  # memory another library owns, kept alive
        # The tensors of empty(), weakly: ops find a tensor's symmetric home
        # by address (weave.ops' all_gather_matmul takes one in place).
        self._tensors = weakref.WeakSet()

    @classmethod
    def from_torch(cls, team, group, bytes,
                   signal_pad_bytes=_cuda.SymmetricHeap.DEFAULT_SIGNAL_PAD_BYTES):
        """Symmetric memory that PyTorch allocates and maps
        (torch.distributed._symmetric_memory: empty + rendezvous over
        ``group``, a process group or its name), wrapped without a second
        mapping: weave's kernels and ops run on it. One local member per
        process (torchrun); the first ``signal_pad_bytes`` of the buffer are
        weave's signal pad (PyTorch's own pads stay PyTorch's)."""
        torch = _torch()
        if torch is None:
            raise WeaveError("NotFound", "SymmetricMemory.from_torch needs torch")
        import torch.distributed._symmetric_memory as symm_mem
        if team.local_count != 1:
            raise WeaveError("InvalidArgument",
                             "from_torch takes a team with one local member per process")
        device = torch.device("cuda", team.device_ordinal(0))
        owner = symm_mem.empty(int(bytes), dtype=torch.uint8, device=device)
        name = group if isinstance(group, str) else group.group_name
        handle = symm_mem.rendezvous(owner, name)
        if handle.world_size != team.size:
            raise WeaveError("InvalidArgument",
                             f"the process group has {handle.world_size} ranks, "
                             f"the team {team.size} members")
        heap = _cuda.SymmetricHeap.from_external(
            team, [list(handle.buffer_ptrs)], int(bytes), [], int(signal_pad_bytes))
        memory = cls(team, bytes, heap=heap)
        memory._owner = (owner, handle)
        return memory

    def empty(self, shape, dtype):
        """A typed symmetric buffer (dtype: a torch dtype or a weave name)."""
        if not isinstance(dtype, str):
            dtype = _weave_dtype(dtype)
        if isinstance(shape, int):
            shape = (shape,)
        tensor = SymmetricTensor(self, self.heap.allocate_tensor(dtype, list(shape)))
        self._tensors.add(tensor)
        return tensor

    def tensors(self):
        """The live symmetric tensors made by :meth:`empty`."""
        return list(self._tensors)

    def semaphores(self, count=1):
        """``count`` zeroed u32 counters in the signal pad."""
        return self.heap.allocate_semaphores(int(count))


def load(team, bundle, memory):
    """Loads a bundle (a :class:`weave.Bundle` or a path) on every local
    member of ``team``, for launches over ``memory``."""
    if not isinstance(bundle, _core.Bundle):
        bundle = _core.Bundle.load(str(bundle))
    return Program(team, bundle, memory)


class Program:
    def __init__(self, team, bundle, memory):
        self.team = team
        self.memory = memory
        self.bundle = bundle
        self._program = _cuda.Program.load(team, bundle)
        self._kernels = {}

    def kernel(self, name):
        if name not in self._kernels:
            self._kernels[name] = KernelLauncher(self, _cuda.Kernel.get(self._program, name))
        return self._kernels[name]


class KernelLauncher:
    """Calls a kernel on every local member. Arguments follow the kernel's
    user parameters in order:

    * buffer: a torch tensor on the member's GPU (a list of tensors, one per
      local member, when this process drives several), or DeviceBuffers;
    * symmetric: a :class:`SymmetricTensor` (or a SymmetricBuffer);
    * semaphore: what ``SymmetricMemory.semaphores`` returned;
    * scalar: a Python number (converted to the manifest's dtype).

    The manifest's dtype, shape and the device are checked before anything
    launches (WeaveError naming the parameter). With one local member the
    kernel runs on the current torch stream; with several (a loopback team)
    each runs on a side stream forked from and joined back into the current
    stream, since members that wait on each other cannot share a stream.
    Both are capturable in a CUDA graph (call :meth:`prepare` first)."""

    def __init__(self, program, kernel):
        self.program = program
        self._kernel = kernel
        self.info = kernel.info
        self._streams = MemberStreams(program.team)

    def bind(self, args):
        """The runtime values for ``args`` (checked by the runtime)."""
        params = self.info.user_params
        if len(args) != len(params):
            raise WeaveError(
                "InvalidArgument",
                f"kernel '{self.info.name}' takes {len(params)} arguments "
                f"({', '.join(p.name for p in params)}), got {len(args)}")
        return [self._bind_one(i, p, a) for i, (p, a) in enumerate(zip(params, args))]

    def _bind_one(self, index, param, arg):
        team = self.program.team
        where = f"kernel '{self.info.name}': argument {index} ('{param.name}')"
        if isinstance(arg, SymmetricTensor):
            return arg.buffer
        if param.kind == "scalar" and isinstance(arg, (int, float)):
            try:
                return _core.ScalarValue.of(param.dtype, arg)
            except WeaveError as error:
                message = error.message.removeprefix(f"{error.code}: ")
                raise WeaveError(error.code, f"{where}: {message}") from None
        refs = tensor_refs(team, where, arg)
        if refs is None:
            return arg  # a runtime value; the runtime checks its kind
        t = arg if _is_tensor(arg) else arg[0]
        return _core.DeviceBuffers([r[0] for r in refs], refs[0][1], list(refs[0][2]),
                                   t.numel() * t.element_size())

    def prepare(self, *args):
        """Checks the arguments and builds the TMA descriptors they need, so
        that a later call can be captured in a CUDA graph."""
        self._kernel.prepare(self.program.memory.heap, self.bind(args))

    def __call__(self, *args, streams=None):
        values = self.bind(args)
        heap = self.program.memory.heap
        if streams is not None:
            handles = [s if isinstance(s, int) else
                       getattr(s, "cuda_stream", getattr(s, "handle", s)) for s in streams]
            self._kernel.launch(heap, values, handles)
            return
        self._streams.run(lambda handles: self._kernel.launch(heap, values, handles))
