//===- CudaModule.cpp - weave._cuda: teams, heaps, launches ---------------===//
//
// The part of the Python package that drives GPUs: teams (in-process,
// loopback, or one process per GPU from torchrun's environment), symmetric
// heaps, loaded programs and kernel launches on the caller's streams, and
// symmetric buffers exported as DLPack tensors (torch.from_dlpack). It links
// the runtime, hence libcuda.so.1: `weave` imports it lazily, so that a
// machine without a driver still imports the package.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "DLPack.h"

#include "weave/ops/Collectives.h"
#include "weave/ops/FusedMatmul.h"
#ifdef WEAVE_PYTHON_WITH_JIT
#include "weave/ops/JitSource.h"
#endif
#include "weave/runtime/Kernel.h"
#include "weave/runtime/Store.h"
#include "weave/runtime/SymmetricHeap.h"
#include "weave/runtime/Team.h"

#include <pybind11/stl.h>

#include <cuda.h>

#include <memory>

namespace py = pybind11;
using namespace weave;
using weave::python::raise;
using weave::python::unwrap;
using weave::python::withoutGil;
namespace dl = weave::python::dlpack;

namespace {

std::vector<CUstream> toStreams(const std::vector<uint64_t> &handles) {
  std::vector<CUstream> streams;
  for (uint64_t h : handles)
    streams.push_back(reinterpret_cast<CUstream>(h));
  return streams;
}

using TeamPtr = std::shared_ptr<Team>;
using HeapPtr = std::shared_ptr<SymmetricHeap>;

/// A Python key-value store with torch.distributed.Store's methods (set,
/// get, wait, check, add, delete_key: TCPStore, FileStore, PrefixStore, or
/// any object that has them) as a weave::Store, so StoreBootstrap runs
/// over the store the launcher already has. Called without the GIL (team
/// creation releases it); each call takes it.
class PythonStore final : public Store {
public:
  explicit PythonStore(py::object store) : store_(std::move(store)) {}
  ~PythonStore() override {
    py::gil_scoped_acquire gil;
    store_ = py::object();
  }

  Status set(const std::string &key,
             const std::vector<uint8_t> &value) override {
    return call("set", [&] {
      store_.attr("set")(key, py::bytes(reinterpret_cast<const char *>(
                                            value.data()),
                                        value.size()));
    });
  }
  Expected<std::vector<uint8_t>>
  get(const std::string &key, std::chrono::milliseconds timeout) override {
    std::vector<uint8_t> value;
    bool present = true;
    Status status = call("get", [&] {
      py::list keys;
      keys.append(key);
      // check() answers at once; wait() raises when the timeout passes.
      if (timeout.count() == 0)
        present = store_.attr("check")(keys).cast<bool>();
      else
        store_.attr("wait")(keys, py::module_::import("datetime")
                                      .attr("timedelta")(
                                          py::arg("milliseconds") =
                                              timeout.count()));
      if (present) {
        std::string bytes = store_.attr("get")(key).cast<std::string>();
        value.assign(bytes.begin(), bytes.end());
      }
    });
    if (!status)
      return std::move(status).takeError();
    if (!present)
      return Error(ErrorCode::Timeout, "python store: key '" + key +
                                           "' not set within 0 ms");
    return value;
  }
  Expected<int64_t> add(const std::string &key, int64_t delta) override {
    int64_t value = 0;
    Status status = call("add", [&] {
      value = store_.attr("add")(key, delta).cast<int64_t>();
    });
    if (!status)
      return std::move(status).takeError();
    return value;
  }
  Expected<bool> erase(const std::string &key) override {
    bool erased = false;
    Status status = call("delete_key", [&] {
      // delete_key's result says whether the key was there; what matters
      // here is that the store can remove keys at all.
      if (py::hasattr(store_, "delete_key")) {
        store_.attr("delete_key")(key);
        erased = true;
      }
    });
    if (!status)
      return std::move(status).takeError();
    return erased;
  }

private:
  /// Runs `body` with the GIL; a Python exception becomes an Error
  /// (Timeout when its text says so, as torch's DistStoreError does).
  template <typename Body> Status call(const char *method, Body &&body) {
    py::gil_scoped_acquire gil;
    try {
      body();
      return ok();
    } catch (py::error_already_set &error) {
      std::string what = error.what();
      bool timeout = what.find("imeout") != std::string::npos ||
                     what.find("timed out") != std::string::npos;
      return Error(timeout ? ErrorCode::Timeout : ErrorCode::System,
                   std::string("python store: ") + method + ": " + what);
    } catch (py::cast_error &error) {
      return Error(ErrorCode::System, std::string("python store: ") + method +
                                          " returned an unexpected type: " +
                                          error.what());
    }
  }
  py::object store_;
};

void checkLocal(const Team &team, size_t local) {
  if (local >= team.localCount())
    raise(Error(ErrorCode::InvalidArgument,
                "local member " + std::to_string(local) +
                    " out of range: this process drives " +
                    std::to_string(team.localCount()) + " member(s)"));
}

/// A stream on one local member's device (non-blocking, so it never waits
/// on the legacy default stream). Loopback members on one GPU each need
/// their own: a protocol whose members wait on each other deadlocks when
/// they share a stream.
class Stream {
public:
  Stream(const TeamPtr &team, size_t local) : team_(team) {
    checkLocal(*team, local);
    unwrap([&]() -> Status {
      WEAVE_TRY(team->device(local).makeCurrent());
      WEAVE_CU_TRY(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
                   "creating a stream");
      return ok();
    }());
  }
  ~Stream() {
    if (stream_)
      cuStreamDestroy(stream_);
  }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  uint64_t handle() const { return reinterpret_cast<uint64_t>(stream_); }
  void synchronize() const {
    unwrap([&]() -> Status {
      WEAVE_CU_TRY(cuStreamSynchronize(stream_), "synchronizing a stream");
      return ok();
    }());
  }

private:
  TeamPtr team_; ///< keeps the device's context alive
  CUstream stream_ = nullptr;
};

/// Device memory on one local member's device (cuMemAlloc), for programs
/// and tests that do not use PyTorch's allocator.
class DeviceMemory {
public:
  DeviceMemory(const TeamPtr &team, size_t local, size_t bytes)
      : team_(team), local_(local), bytes_(bytes) {
    checkLocal(*team, local);
    unwrap([&]() -> Status {
      WEAVE_TRY(team->device(local).makeCurrent());
      WEAVE_CU_TRY(cuMemAlloc(&pointer_, bytes ? bytes : 1),
                   "allocating device memory");
      return ok();
    }());
  }
  ~DeviceMemory() {
    if (pointer_)
      cuMemFree(pointer_);
  }
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  uint64_t pointer() const { return pointer_; }
  size_t bytes() const { return bytes_; }
  size_t local() const { return local_; }

private:
  TeamPtr team_;
  size_t local_;
  size_t bytes_;
  CUdeviceptr pointer_ = 0;
};

/// Copies between host bytes and device memory of local member `local`
/// (synchronous; for tests and small set-up).
void copyToDevice(const Team &team, size_t local, uint64_t pointer,
                  const py::bytes &data) {
  checkLocal(team, local);
  std::string bytes = data;
  unwrap([&]() -> Status {
    WEAVE_TRY(team.device(local).makeCurrent());
    WEAVE_CU_TRY(cuMemcpyHtoD(pointer, bytes.data(), bytes.size()),
                 "copying to the device");
    return ok();
  }());
}
py::bytes copyFromDevice(const Team &team, size_t local, uint64_t pointer,
                         size_t size) {
  checkLocal(team, local);
  std::string bytes(size, '\0');
  unwrap([&]() -> Status {
    WEAVE_TRY(team.device(local).makeCurrent());
    WEAVE_CU_TRY(cuMemcpyDtoH(bytes.data(), pointer, size),
                 "copying from the device");
    return ok();
  }());
  return py::bytes(bytes);
}

/// The DLPack type of a dtype, from the dtype table (its DLPack code and
/// width).
dl::DataType dlType(const std::string &dtype) {
  Expected<DType> known = parseDType(dtype);
  if (!known)
    raise(std::move(known).takeError().addContext(
        "a symmetric buffer cannot be exported (allocate it with "
        "allocate_tensor and a dtype)"));
  const DTypeTraits &t = traitsOf(*known);
  return {static_cast<uint8_t>(t.dlpack), static_cast<uint8_t>(8 * t.bytes),
          1};
}
static_assert(uint8_t(DLPackCode::Int) == dl::kInt &&
                  uint8_t(DLPackCode::UInt) == dl::kUInt &&
                  uint8_t(DLPackCode::Float) == dl::kFloat &&
                  uint8_t(DLPackCode::Bfloat) == dl::kBfloat,
              "DType.h's DLPack codes are dlpack.h's");

/// What a DLPack tensor of a symmetric buffer owns: the heap (so that the
/// mapping outlives the tensor) and the shape array DLPack points into.
struct DlContext {
  HeapPtr heap;
  std::vector<int64_t> shape;
  dl::ManagedTensor managed;
};

/// A "dltensor" capsule viewing member `peer`'s copy of `buffer` as mapped
/// on local member `local` (peer = that member's own rank: its own copy).
/// `deviceOrdinal` is local member `local`'s device: the tensor lives there
/// for its consumer, also when it views a peer's copy (mapped on it).
py::capsule exportBuffer(const HeapPtr &heap, const SymmetricBuffer &buffer,
                         size_t local, std::optional<uint32_t> peer,
                         int deviceOrdinal) {
  if (local >= heap->localCount())
    raise(Error(ErrorCode::InvalidArgument,
                "local member " + std::to_string(local) + " out of range"));
  if (buffer.heapId != heap->id())
    raise(Error(ErrorCode::InvalidArgument,
                "the buffer was not allocated from this heap"));
  if (peer && *peer >= heap->teamSize())
    raise(Error(ErrorCode::InvalidArgument,
                "peer " + std::to_string(*peer) + " out of range: the team has " +
                    std::to_string(heap->teamSize()) + " members"));
  auto context = std::make_unique<DlContext>();
  context->heap = heap;
  context->shape = buffer.shape;
  if (context->shape.empty()) { // untyped: bytes
    context->shape = {static_cast<int64_t>(buffer.bytes)};
  }
  CUdeviceptr address = peer ? heap->peerPointer(buffer, local, *peer)
                              : heap->localPointer(buffer, local);
  dl::Tensor &t = context->managed.tensor;
  t.data = reinterpret_cast<void *>(address);
  t.device = {dl::kCUDA, deviceOrdinal};
  t.ndim = static_cast<int32_t>(context->shape.size());
  t.dtype = buffer.dtype.empty() ? dl::DataType{dl::kUInt, 8, 1}
                                 : dlType(buffer.dtype);
  t.shape = context->shape.data();
  t.strides = nullptr;
  t.byteOffset = 0;
  context->managed.managerContext = context.get();
  context->managed.deleter = [](dl::ManagedTensor *self) {
    delete static_cast<DlContext *>(self->managerContext);
  };
  dl::ManagedTensor *managed = &context.release()->managed;
  // A capsule that no consumer took still owns the tensor.
  return py::capsule(managed, dl::kCapsuleName, [](PyObject *capsule) {
    if (PyCapsule_IsValid(capsule, dl::kCapsuleName)) {
      auto *m = static_cast<dl::ManagedTensor *>(
          PyCapsule_GetPointer(capsule, dl::kCapsuleName));
      m->deleter(m);
    }
  });
}

/// One TensorRef per local member from (pointer, dtype, shape) tuples.
std::vector<ops::TensorRef>
toRefs(const std::vector<std::tuple<uint64_t, std::string, std::vector<int64_t>>>
           &tensors) {
  std::vector<ops::TensorRef> refs;
  for (const auto &[data, dtype, shape] : tensors)
    refs.push_back({data, dtype, shape});
  return refs;
}
using PyTensors =
    std::vector<std::tuple<uint64_t, std::string, std::vector<int64_t>>>;

/// A Communicator that keeps its team and heap alive (the C++ one refers
/// to them).
struct PyCommunicator {
  TeamPtr team;
  HeapPtr heap;
  ops::Communicator comm;
};

std::shared_ptr<ops::KernelSource> kernelSource(const std::string &kernels) {
  if (kernels != "jit")
    return ops::bundleFolder(kernels);
#ifdef WEAVE_PYTHON_WITH_JIT
  return std::make_shared<ops::JitSource>();
#else
  raise(Error(ErrorCode::InvalidArgument,
              "kernels='jit' needs a weave build with the compiler; pass the "
              "folder of the ops' bundles compiled ahead of time"));
#endif
}

/// An op of the registry (ops::RegisteredOp) and the communicator it was
/// made on: the op refers to the communicator (and through it to the heap
/// it gives its buffers back to), so it must go first, whatever order
/// Python drops them in.
struct PyOp {
  std::shared_ptr<PyCommunicator> comm;
  ops::RegisteredOp op;
};

/// The tensors of an op's call: one list of (pointer, dtype, shape) per
/// role, then the streams; the role `skip` (a role bound in place) is not
/// passed.
std::pair<std::vector<std::vector<ops::TensorRef>>, std::vector<CUstream>>
callArguments(const ops::OpSpec &spec, const py::args &args,
              size_t skip = SIZE_MAX) {
  size_t roles = spec.roles.size() - (skip < spec.roles.size() ? 1 : 0);
  if (args.size() != roles + 1)
    raise(Error(ErrorCode::InvalidArgument,
                spec.name + ": expected " + std::to_string(roles) +
                    " tensor lists and the streams, got " +
                    std::to_string(args.size()) + " arguments"));
  std::vector<std::vector<ops::TensorRef>> tensors;
  size_t next = 0;
  for (size_t r = 0; r < spec.roles.size(); ++r)
    tensors.push_back(r == skip ? std::vector<ops::TensorRef>{}
                                : toRefs(args[next++].cast<PyTensors>()));
  return {std::move(tensors),
          toStreams(args[next].cast<std::vector<uint64_t>>())};
}

/// The ops: one class for every op of the registry, and one
/// `<name>_op(comm, dtype, ...)` per registered op (a collective takes a
/// count and an algorithm, a fused matmul m_shard, k and n), so an op added
/// to the registry is callable here with no binding of its own.
void bindOps(py::module_ &m) {
  py::class_<PyOp, std::shared_ptr<PyOp>>(
      m, "Op", "an op of weave::ops' registry on a communicator")
      .def_property_readonly("name",
                             [](const PyOp &h) { return h.op.spec().name; })
      .def_property_readonly(
          "kernel_key", [](const PyOp &h) { return h.op.instance().key(); })
      .def("__call__",
           [](PyOp &h, py::args args) {
             auto [tensors, streams] = callArguments(h.op.spec(), args);
             unwrap(h.op(tensors, streams));
           },
           "op(role_0_tensors, ..., streams): one list of (pointer, dtype, "
           "shape) per local member for each role, in the op's role order")
      .def("call_gathered",
           [](PyOp &h, const SymmetricBuffer &buffer, py::args args) {
             // The role whose tensor is a member's block of a symmetric
             // parameter (the all-gather matmul's `a`), bound in place.
             const ops::OpSpec &spec = h.op.spec();
             size_t role = 0;
             while (role < spec.roles.size() && !spec.roles[role].memberBlock)
               ++role;
             if (role == spec.roles.size())
               raise(Error(ErrorCode::InvalidArgument,
                           spec.name + " has no role a symmetric buffer "
                                       "gathers in place"));
             auto [tensors, streams] = callArguments(spec, args, role);
             unwrap(h.op.inPlace(role, buffer, tensors, streams));
           },
           "op.call_gathered(buffer, other roles' tensors..., streams)");
  // pybind11 keeps the names it is given.
  static std::vector<std::string> names;
  names.reserve(ops::opRegistry().size());
  for (const ops::OpSpec &spec : ops::opRegistry()) {
    names.push_back(spec.name + "_op");
    std::string name = spec.name;
    if (spec.family == ops::OpFamily::Collective)
      m.def(
          names.back().c_str(),
          [name](const std::shared_ptr<PyCommunicator> &c,
                 const std::string &dtype, int64_t count,
                 const std::string &algorithm, int64_t rowElements) {
            // May compile: without the GIL.
            Expected<ops::RegisteredOp> op = withoutGil([&] {
              return ops::RegisteredOp::create(c->comm, name, dtype, count,
                                               algorithm, rowElements);
            });
            return std::make_shared<PyOp>(PyOp{c, unwrap(std::move(op))});
          },
          py::arg("comm"), py::arg("dtype"), py::arg("count"),
          py::arg("algorithm") = "auto", py::arg("row_elements") = 1,
          spec.title.c_str());
    else
      m.def(
          names.back().c_str(),
          [name](const std::shared_ptr<PyCommunicator> &c,
                 const std::string &dtype, int64_t mShard, int64_t k,
                 int64_t n, const std::string &algorithm) {
            Expected<ops::RegisteredOp> op = withoutGil([&] {
              return ops::RegisteredOp::createMatmul(c->comm, name, dtype,
                                                     {mShard, k, n}, algorithm);
            });
            return std::make_shared<PyOp>(PyOp{c, unwrap(std::move(op))});
          },
          py::arg("comm"), py::arg("dtype"), py::arg("m_shard"), py::arg("k"),
          py::arg("n"), py::arg("algorithm") = "auto", spec.title.c_str());
  }
}

} // namespace

PYBIND11_MODULE(_cuda, m) {
  m.doc() = "Weave teams, symmetric heaps and kernel launches (CUDA)";
  py::module_::import("weave._core"); // the argument and manifest types

  py::class_<Team, TeamPtr>(m, "Team", "The GPUs running one kernel together")
      .def_static(
          "in_process",
          [](std::vector<int> devices) {
            return std::make_shared<Team>(
                unwrap(Team::createInProcess(std::move(devices))));
          },
          py::arg("devices"), "one process, member i on devices[i]")
      .def_static(
          "loopback",
          [](uint32_t members, std::vector<int> devices) {
            return std::make_shared<Team>(
                unwrap(Team::createLoopback(members, std::move(devices))));
          },
          py::arg("members"), py::arg("devices") = std::vector<int>{0},
          "`members` members in this process over `devices` (correctness "
          "tests of multi-GPU protocols on one GPU)")
      .def_static(
          "from_environment",
          [](uint32_t loopbackMembers, uint64_t timeoutMs,
             const std::string &rendezvousDir) {
            TeamOptions options;
            options.loopbackMembers = loopbackMembers;
            options.timeout = std::chrono::milliseconds(timeoutMs);
            options.rendezvousDir = rendezvousDir;
            // The rendezvous blocks: without the GIL.
            return std::make_shared<Team>(unwrap(withoutGil(
                [&] { return Team::createFromEnvironment(options); })));
          },
          py::arg("loopback_members") = 0, py::arg("timeout_ms") = 60000,
          py::arg("rendezvous_dir") = "",
          "torchrun's RANK / WORLD_SIZE / LOCAL_RANK (one GPU per process), "
          "or WEAVE_LOOPBACK_TEAM / loopback_members")
      .def_static(
          "multi_process",
          [](int rank, int worldSize, int localRank,
             const std::string &rendezvousDir, uint64_t timeoutMs) {
            LaunchEnvironment launch;
            launch.rank = rank;
            launch.worldSize = worldSize;
            launch.localRank = localRank;
            TeamOptions options;
            options.rendezvousDir = rendezvousDir;
            options.timeout = std::chrono::milliseconds(timeoutMs);
            // The rendezvous blocks: without the GIL.
            return std::make_shared<Team>(unwrap(withoutGil(
                [&] { return Team::createMultiProcess(launch, options); })));
          },
          py::arg("rank"), py::arg("world_size"), py::arg("local_rank"),
          py::arg("rendezvous_dir"), py::arg("timeout_ms") = 60000,
          "one GPU per process (device `local_rank`), joined through Weave's "
          "bootstrap in `rendezvous_dir` (a folder every process sees)")
      .def_static(
          "multi_process_with_store",
          [](py::object store, int rank, int worldSize, int localRank,
             uint64_t timeoutMs, const std::string &prefix) {
            auto pythonStore = std::make_shared<PythonStore>(std::move(store));
            StoreBootstrapOptions boot;
            boot.rank = rank;
            boot.worldSize = worldSize;
            boot.timeout = std::chrono::milliseconds(timeoutMs);
            boot.prefix = prefix;
            TeamOptions options;
            options.timeout = boot.timeout;
            // The rendezvous blocks: without the GIL (the store takes it
            // for each of its calls).
            return std::make_shared<Team>(unwrap(withoutGil([&]() -> Expected<Team> {
              WEAVE_ASSIGN_OR_RETURN(
                  std::unique_ptr<StoreBootstrap> bootstrap,
                  StoreBootstrap::connect(pythonStore, boot));
              return Team::createMultiProcess(
                  std::shared_ptr<Bootstrap>(std::move(bootstrap)), localRank,
                  options);
            })));
          },
          py::arg("store"), py::arg("rank"), py::arg("world_size"),
          py::arg("local_rank"), py::arg("timeout_ms") = 60000,
          py::arg("prefix") = "weave",
          "one GPU per process (device `local_rank`), joined through a "
          "key-value store with torch.distributed.Store's methods (set, "
          "get, wait, check, add, delete_key), e.g. the default group's; "
          "heap handles travel over Unix datagram sockets (one host)")
      .def_property_readonly("size", &Team::size)
      .def_property_readonly("local_count", &Team::localCount)
      .def("rank_of", &Team::rankOf, py::arg("local"))
      .def(
          "device_ordinal",
          [](const Team &t, size_t local) {
            checkLocal(t, local);
            return t.device(local).ordinal();
          },
          py::arg("local"))
      .def_property_readonly("is_loopback", &Team::isLoopback)
      .def_property_readonly("is_multi_process", &Team::isMultiProcess)
      .def("synchronize",
           [](Team &t) {
             unwrap(withoutGil([&] { return t.synchronize(); }));
           })
      .def("__repr__", [](const Team &t) {
        return "<weave.Team of " + std::to_string(t.size()) + ", " +
               std::to_string(t.localCount()) + " local>";
      });

  py::class_<Stream, std::shared_ptr<Stream>>(m, "Stream")
      .def(py::init<const TeamPtr &, size_t>(), py::arg("team"),
           py::arg("local"))
      .def_property_readonly("handle", &Stream::handle)
      .def("synchronize", &Stream::synchronize);
  py::class_<DeviceMemory, std::shared_ptr<DeviceMemory>>(m, "DeviceMemory")
      .def(py::init<const TeamPtr &, size_t, size_t>(), py::arg("team"),
           py::arg("local"), py::arg("bytes"))
      .def_property_readonly("pointer", &DeviceMemory::pointer)
      .def_property_readonly("bytes", &DeviceMemory::bytes)
      .def_property_readonly("local", &DeviceMemory::local);
  m.def("copy_to_device", &copyToDevice, py::arg("team"), py::arg("local"),
        py::arg("pointer"), py::arg("data"));
  m.def("copy_from_device", &copyFromDevice, py::arg("team"),
        py::arg("local"), py::arg("pointer"), py::arg("size"));

  py::class_<SymmetricHeap, HeapPtr>(m, "SymmetricHeap")
      .def_static(
          "create",
          [](Team &team, size_t bytes, size_t signalPadBytes) {
            // Collective across processes: without the GIL.
            return std::make_shared<SymmetricHeap>(unwrap(withoutGil([&] {
              return SymmetricHeap::create(team, bytes, signalPadBytes);
            })));
          },
          py::arg("team"), py::arg("bytes"),
          py::arg("signal_pad_bytes") = SymmetricHeap::kDefaultSignalPadBytes)
      .def_readonly_static("DEFAULT_SIGNAL_PAD_BYTES",
                           &SymmetricHeap::kDefaultSignalPadBytes)
      .def_static(
          "from_external",
          [](Team &team, std::vector<std::vector<uint64_t>> peerBases,
             uint64_t bytes, std::vector<std::vector<uint64_t>> signalPads,
             uint64_t signalPadBytes) {
            ExternalSymmetricMemory memory;
            memory.peerBases = std::move(peerBases);
            memory.bytes = bytes;
            memory.signalPads = std::move(signalPads);
            memory.signalPadBytes = signalPadBytes;
            return std::make_shared<SymmetricHeap>(unwrap(withoutGil(
                [&] { return SymmetricHeap::fromExternal(team, memory); })));
          },
          py::arg("team"), py::arg("peer_bases"), py::arg("bytes"),
          py::arg("signal_pads") = std::vector<std::vector<uint64_t>>{},
          py::arg("signal_pad_bytes") = 0,
          "a heap over memory another library mapped on every member: "
          "peer_bases[local][rank] is member rank's copy as mapped on local "
          "member `local` (docs/RUNTIME.md, external symmetric memory)")
      .def(
          "free",
          [](SymmetricHeap &h, const SymmetricBuffer &b) { unwrap(h.free(b)); },
          py::arg("buffer"))
      .def(
          "allocate",
          [](SymmetricHeap &h, size_t bytes, size_t alignment) {
            return unwrap(h.allocate(bytes, alignment));
          },
          py::arg("bytes"), py::arg("alignment") = 256)
      .def(
          "allocate_tensor",
          [](SymmetricHeap &h, const std::string &dtype,
             std::vector<int64_t> shape, size_t alignment) {
            return unwrap(h.allocateTensor(dtype, std::move(shape), alignment));
          },
          py::arg("dtype"), py::arg("shape"), py::arg("alignment") = 256)
      .def(
          "allocate_semaphores",
          [](SymmetricHeap &h, uint32_t count) {
            return unwrap(h.allocateSemaphores(count));
          },
          py::arg("count"))
      .def("reset_semaphores",
           [](SymmetricHeap &h) {
             unwrap(withoutGil([&] { return h.resetSemaphores(); }));
           })
      .def_property_readonly("id", &SymmetricHeap::id)
      .def_property_readonly("bytes_per_device", &SymmetricHeap::bytesPerDevice)
      .def_property_readonly("team_size", &SymmetricHeap::teamSize)
      .def_property_readonly("local_count", &SymmetricHeap::localCount)
      .def(
          "pointer",
          [](const SymmetricHeap &h, const SymmetricBuffer &b, size_t local,
             std::optional<uint32_t> peer) -> uint64_t {
            if (local >= h.localCount() || (peer && *peer >= h.teamSize()))
              raise(Error(ErrorCode::InvalidArgument,
                          "local member or peer out of range"));
            return peer ? h.peerPointer(b, local, *peer)
                        : h.localPointer(b, local);
          },
          py::arg("buffer"), py::arg("local"), py::arg("peer") = py::none(),
          "the address, on local member `local`, of its own copy of the "
          "buffer or of member `peer`'s")
      .def(
          "dlpack",
          [](const HeapPtr &h, const Team &team, const SymmetricBuffer &b,
             size_t local, std::optional<uint32_t> peer) {
            checkLocal(team, local);
            return exportBuffer(h, b, local, peer, team.device(local).ordinal());
          },
          py::arg("team"), py::arg("buffer"), py::arg("local"),
          py::arg("peer") = py::none(),
          "a DLPack capsule of the buffer as local member `local` sees it "
          "(its own copy, or member `peer`'s); it keeps the heap alive");

  py::class_<Program, std::shared_ptr<Program>>(m, "Program")
      .def_static(
          "load",
          [](Team &team, Bundle bundle) {
            return std::make_shared<Program>(
                unwrap(Program::load(team, std::move(bundle))));
          },
          py::arg("team"), py::arg("bundle"),
          "verifies the bundle and loads its cubin on every local device")
      .def_property_readonly("bundle", &Program::bundle);

  py::class_<Kernel, std::shared_ptr<Kernel>>(m, "Kernel")
      .def_static(
          "get",
          [](const Program &program, const std::string &name) {
            return std::make_shared<Kernel>(
                unwrap(Kernel::get(program, name)));
          },
          py::arg("program"), py::arg("name"))
      .def_property_readonly("info", &Kernel::info)
      .def_property_readonly("launch_grid", &Kernel::launchGrid)
      .def(
          "prepare",
          [](Kernel &k, const SymmetricHeap &heap,
             const std::vector<KernelArg> &args) {
            unwrap(k.prepare(heap, args));
          },
          py::arg("heap"), py::arg("args"),
          "checks the arguments and launch limits and builds the TMA "
          "descriptors; call before capturing a CUDA graph")
      .def(
          "launch",
          [](Kernel &k, const SymmetricHeap &heap,
             const std::vector<KernelArg> &args,
             const std::vector<uint64_t> &streams) {
            if (streams.size() != heap.localCount())
              raise(Error(ErrorCode::InvalidArgument,
                          "expected one stream per local member (" +
                              std::to_string(heap.localCount()) + "), got " +
                              std::to_string(streams.size())));
            unwrap(k.launch(heap, args, toStreams(streams)));
          },
          py::arg("heap"), py::arg("args"), py::arg("streams"),
          "launches on every local member, member i on streams[i] (raw "
          "CUstream handles); no synchronization, so it can be captured "
          "in a CUDA graph");

  // The ready-made ops (weave::ops); weave/ops.py wraps them for torch.
  py::class_<PyCommunicator, std::shared_ptr<PyCommunicator>>(
      m, "Communicator",
      "a team, its symmetric heap and where the ops' kernels come from "
      "('jit', or a folder of bundles compiled ahead of time)")
      .def(py::init([](const TeamPtr &team, const HeapPtr &heap,
                       const std::string &kernels) {
             auto source = kernelSource(kernels);
             return std::shared_ptr<PyCommunicator>(new PyCommunicator{
                 team, heap, ops::Communicator(*team, *heap, source)});
           }),
           py::arg("team"), py::arg("heap"), py::arg("kernels") = "jit");
  bindOps(m);
}
