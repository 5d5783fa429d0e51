//===- WeaveTypes.td - weave types and attributes -----------*- tablegen -*-===//

#ifndef WEAVE_DIALECT_WEAVE_IR_WEAVETYPES_TD
#define WEAVE_DIALECT_WEAVE_IR_WEAVETYPES_TD

include "weave/Dialect/Weave/IR/WeaveDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Weave_SemaphoreType : TypeDef<Weave_Dialect, "Semaphore"> {
  let mnemonic = "semaphore";
  let summary = "an array of 32-bit counters in the symmetric signal pad";
  let description = [{
    `!weave.semaphore<N>` names `N` unsigned 32-bit counters that live at the
    same offset of every device's signal pad, so that a peer can signal them.
    `!weave.semaphore` is short for `!weave.semaphore<1>`. Counters start at
    zero and the runtime never resets them between launches: each protocol
    leaves them in a state the next launch (or graph replay) starts from:
    zero (waits with `decrement` consume what was signalled), a monotonic
    count the kernel's targets follow, the last epoch of a `set` flag, or a
    `weave.barrier`'s flipping top bit (docs/Rationale.md, Semaphores).
  }];
  let parameters = (ins "unsigned":$count);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Weave_SymmetricMemorySpaceAttr
    : AttrDef<Weave_Dialect, "SymmetricMemorySpace"> {
  let mnemonic = "symmetric";
  let summary = "memory space of buffers in the symmetric heap";
  let description = [{
    A memref in `#weave.symmetric` memory lives at the same offset of every
    device's symmetric heap, so `weave.remote_ref` can name the copy on any
    peer. Physically it is global memory (address space 1).

    ```mlir
    memref<1024xf32, #weave.symmetric>
    ```
  }];
}

def Weave_MeshAttr : AttrDef<Weave_Dialect, "Mesh"> {
  let mnemonic = "mesh";
  let summary = "the device axis a kernel runs over";
  let description = [{
    A one-dimensional mesh of devices: `#weave.mesh<axis = "x", size = 2>`
    for a team of exactly two, `#weave.mesh<axis = "x", size = ?>` for a team
    size chosen at launch.

    A static size is at most 65536 (2^16). Every device keeps a table of
    all its peers' heap bases and maps every peer's heap, and the largest
    NVLink domains hold hundreds of GPUs, so 65536 leaves ample room while
    keeping the size, and every device index, well inside the 32-bit
    fields that carry them (the manifest's team size, the kernel's `rank`
    and `team_size` parameters), which a larger value would silently
    truncate.
  }];
  let parameters = (ins "::mlir::StringAttr":$axis, "int64_t":$size);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isDynamic() const { return getSize() == ::mlir::ShapedType::kDynamic; }
    /// The largest static mesh size (see the description).
    static constexpr int64_t kMaxSize = 1 << 16;
  }];
}

def Weave_KernelAttr : AttrDef<Weave_Dialect, "Kernel"> {
  let mnemonic = "kernel";
  let summary = "launch configuration of a weave kernel";
  let description = [{
    Attached as `weave.kernel` to a `gpu.func ... kernel`. Gives the device
    mesh the kernel runs over and its launch shape on every device:

    ```mlir
    gpu.func @k(...) kernel attributes {
      weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>,
                                   grid = [1, 1, 1], block = [128, 1, 1]>}
    ```

    Optional fields: `cluster = [x, y, z]` (default `[1, 1, 1]`) and
    `smem = N`, the dynamic shared memory in bytes (default 0). The number of
    warpgroups is `block / 128`.

    `block = auto`, `cluster = auto` and `smem = auto` leave those fields to
    the kernel's one `weave.matmul_pipeline` with `tile(auto)`:
    `weave-configure-pipelines` chooses its configuration and sets them to
    what it needs (`128 * (1 + consumers)` threads, `[cluster_m, 1, 1]`,
    its shared memory). The fields given explicitly constrain the choice.
    A kernel with an `auto` field and no such pipeline, or several, is
    rejected.

    `grid = [persistent, 1, 1]` makes the grid persistent: the runtime sizes
    its x dimension at launch to the blocks (clusters, with a cluster) that
    can be resident at once on the device, divided among the team members
    sharing that device (loopback teams), and launches the same grid on
    every member. The kernel reads its size with `gpu.grid_dim x`.
    `grid = [persistent(N), 1, 1]` caps it: at most N blocks (a multiple of
    the cluster's x), and fewer where fewer are resident; a kernel whose
    work is split over `gpu.grid_dim x` blocks then runs as on a fixed grid
    of N on a GPU of its own, with no idle block, and still fits a loopback
    team. Only x can be persistent; y and z are then 1. A fixed grid stays possible; the
    runtime refuses to launch a team kernel whose blocks cannot all be
    resident (blocks that wait on a peer would deadlock).
  }];
  let parameters = (ins
    "MeshAttr":$mesh,
    ArrayRefParameter<"int32_t">:$grid,
    ArrayRefParameter<"int32_t">:$block,
    ArrayRefParameter<"int32_t">:$cluster,
    "int64_t":$smem);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The value of a persistent grid dimension (`persistent` in the
    /// assembly, 0 in the bundle's manifest).
    static constexpr int32_t kPersistent = 0;
    /// The value of `smem = auto` (block and cluster: empty arrays).
    static constexpr int64_t kAutoSmem = -1;
    bool isBlockAuto() const { return getBlock().empty(); }
    bool isClusterAuto() const { return getCluster().empty(); }
    bool isSmemAuto() const { return getSmem() == kAutoSmem; }
    bool hasAutoFields() const {
      return isBlockAuto() || isClusterAuto() || isSmemAuto();
    }
    /// Threads per block (0 while the block is `auto`).
    int64_t getNumThreads() const;
    /// True when the grid's x dimension is sized at launch.
    bool isPersistent() const { return getGrid()[0] <= kPersistent; }
    /// A persistent grid's cap, `persistent(N)` (stored as -N in grid x);
    /// 0 for none, and for a fixed grid.
    int32_t getPersistentCap() const {
      return getGrid()[0] < kPersistent ? -getGrid()[0] : 0;
    }
  }];
}

def Weave_ConsumerSplit : I32EnumAttr<"ConsumerSplit",
    "how the consumer warpgroups divide an output tile", [
      I32EnumAttrCase<"M", 0, "m">,
      I32EnumAttrCase<"N", 1, "n">
    ]> {
  let cppNamespace = "::mlir::weave";
  let genSpecializedAttr = 0;
}
def Weave_ConsumerSplitAttr : EnumAttr<Weave_Dialect, Weave_ConsumerSplit, "split">;

#endif // WEAVE_DIALECT_WEAVE_IR_WEAVETYPES_TD
