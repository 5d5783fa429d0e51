//===- WeaveOps.td - weave operations -----------------------*- tablegen -*-===//

#ifndef WEAVE_DIALECT_WEAVE_IR_WEAVEOPS_TD
#define WEAVE_DIALECT_WEAVE_IR_WEAVEOPS_TD

include "weave/Dialect/Weave/IR/WeaveDialect.td"
include "weave/Dialect/Weave/IR/WeaveTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Device identity
//===----------------------------------------------------------------------===//

def Weave_DeviceIdOp : Weave_Op<"device_id", [Pure]> {
  let summary = "index of this device along a mesh axis";
  let description = [{
    Returns the index of the executing device in the team, along mesh axis
    `axis`, which must be the axis of the enclosing kernel's
    `#weave.kernel<mesh = ...>`.

    ```mlir
    %me = weave.device_id "x"
    ```
  }];
  let arguments = (ins StrAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
  let hasVerifier = 1;
}

def Weave_NumDevicesOp : Weave_Op<"num_devices", [Pure]> {
  let summary = "number of devices along a mesh axis";
  let description = [{
    Returns the team size along mesh axis `axis`. When the kernel's mesh has
    a static size, this folds to that constant.

    ```mlir
    %n = weave.num_devices "x"
    ```
  }];
  let arguments = (ins StrAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Remote references
//===----------------------------------------------------------------------===//

def Weave_RemoteRefOp : Weave_Op<"remote_ref",
    [Pure, AllTypesMatch<["buffer", "result"]>]> {
  let summary = "the same symmetric buffer on another device";
  let description = [{
    Returns a reference to the copy of the symmetric buffer `buffer` that
    lives on device `device`. Loads and stores through the result travel
    over NVLink. The address is
    `peer_bases[device] + (address(buffer) - peer_bases[device_id])`.

    ```mlir
    %right = weave.remote_ref %buf on %next : memref<1024xf32, #weave.symmetric>
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer, Index:$device);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$buffer `on` $device attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Semaphores
//===----------------------------------------------------------------------===//

def Weave_CopyScope : I32EnumAttr<"CopyScope",
    "the threads that take part in a cooperative op (a one-sided copy, a wait)", [
      I32EnumAttrCase<"Block", 0, "block">,
      I32EnumAttrCase<"Warp", 1, "warp">,
      I32EnumAttrCase<"Thread", 2, "thread">
    ]> {
  let cppNamespace = "::mlir::weave";
}

def Weave_SemaphoreSignalMode : I32EnumAttr<"SemaphoreSignalMode",
    "how weave.semaphore_signal updates the counter", [
      I32EnumAttrCase<"Add", 0, "add">,
      I32EnumAttrCase<"Set", 1, "set">
    ]> {
  let cppNamespace = "::mlir::weave";
}

def Weave_SemaphoreCmp : I32EnumAttr<"SemaphoreCmp",
    "the comparison weave.semaphore_wait waits for", [
      I32EnumAttrCase<"GE", 0, "ge">,
      I32EnumAttrCase<"EQ", 1, "eq">,
      I32EnumAttrCase<"GEWrap", 2, "ge_wrap">
    ]> {
  let cppNamespace = "::mlir::weave";
}

def Weave_BarrierScope : I32EnumAttr<"BarrierScope",
    "who takes part in a weave.barrier", [
      I32EnumAttrCase<"Team", 0, "team">,
      I32EnumAttrCase<"TeamBlocks", 1, "team_blocks">
    ]> {
  let cppNamespace = "::mlir::weave";
}

def Weave_SemaphoreSignalOp : Weave_Op<"semaphore_signal",
    [AttrSizedOperandSegments]> {
  let summary = "update a semaphore counter with release semantics at system scope";
  let description = [{
    Updates counter `index` of `semaphore` on device `device` (this device
    when `on` is absent) with `value`: `mode(add)` (the default) adds it
    atomically, `mode(set)` stores it. Every write this thread made before
    the signal, including completed bulk (TMA) stores, is visible to a
    thread on any device that observes the new value with
    `weave.semaphore_wait`. The index may be omitted for a single counter.

    `set` publishes a value rather than counting events: a flag holding an
    epoch or sequence number, which the receiver waits for with `cmp(eq)`
    (or `ge` while it grows). Only one device should `set` a given counter
    per step; concurrent `add`s to a counter that is also `set` lose
    updates.

    ```mlir
    weave.semaphore_signal %sem[%c0], %c1_i32 on %peer : !weave.semaphore<2>
    weave.semaphore_signal %done, %c1_i32 : !weave.semaphore
    weave.semaphore_signal %flag[%me], %epoch on %peer mode(set) : !weave.semaphore<8>
    ```
  }];
  let arguments = (ins Weave_SemaphoreType:$semaphore, Optional<Index>:$index,
                       I32:$value, Optional<Index>:$device,
                       DefaultValuedAttr<Weave_SemaphoreSignalMode,
                         "::mlir::weave::SemaphoreSignalMode::Add">:$mode);
  let assemblyFormat = [{
    $semaphore (`[` $index^ `]`)? `,` $value (`on` $device^)?
    (`mode` `(` $mode^ `)`)? attr-dict `:` qualified(type($semaphore))
  }];
  let hasVerifier = 1;
}

def Weave_SemaphoreWaitOp : Weave_Op<"semaphore_wait"> {
  let summary = "wait until a local semaphore counter reaches a value";
  let description = [{
    Spins until counter `index` of this device's `semaphore` compares to
    `value`, with acquire semantics at system scope: `cmp(ge)` (the
    default) waits until the counter is at least `value` (unsigned),
    `cmp(eq)` until it equals `value`, `cmp(ge_wrap)` until it is at least
    `value` in serial-number arithmetic (`(int32)(counter - value) >= 0`):
    for a monotonic counter that may wrap past 2^32 over many launches,
    whose value at the wait lies within 2^31 of the target. With
    `decrement`, `value` is then
    subtracted atomically, which returns the counter to zero for the next
    use; without it the counter is left alone (cheaper, for monotonic
    counters and for flags written with `mode(set)`).

    With `cmp(eq)`, `decrement` subtracts `value` after the wait saw exactly
    `value`: the counter drops to zero, or to what was signalled after the
    observation (nothing signalled is lost). A counter that is also written
    with `mode(set)` must not be decremented.

    `scope` says who waits. `thread` (the default): every thread that
    reaches the op spins, and with `decrement` each one subtracts `value`,
    so a decrementing wait that every thread of a block runs is rejected.
    `block`: thread 0 of the block waits (and decrements once), then the
    block synchronizes (`bar.sync 0`), so every thread of the block must
    reach it; what the signaller released is then visible to all of them.
    `warp`: lane 0 of each warp waits (and decrements once per warp), then
    the warp synchronizes.

    ```mlir
    weave.semaphore_wait %sem[%c0], %c1_i32 decrement : !weave.semaphore<2>
    weave.semaphore_wait %flag[%peer], %epoch cmp(eq) : !weave.semaphore<8>
    weave.semaphore_wait %ready, %c1_i32 decrement scope(block) : !weave.semaphore
    ```
  }];
  let arguments = (ins Weave_SemaphoreType:$semaphore, Optional<Index>:$index,
                       I32:$value,
                       DefaultValuedAttr<Weave_SemaphoreCmp,
                         "::mlir::weave::SemaphoreCmp::GE">:$cmp,
                       UnitAttr:$decrement,
                       DefaultValuedAttr<Weave_CopyScope,
                         "::mlir::weave::CopyScope::Thread">:$scope);
  let assemblyFormat = [{
    $semaphore (`[` $index^ `]`)? `,` $value (`cmp` `(` $cmp^ `)`)?
    (`decrement` $decrement^)? (`scope` `(` $scope^ `)`)? attr-dict
    `:` qualified(type($semaphore))
  }];
  let hasVerifier = 1;
}

def Weave_BarrierOp : Weave_Op<"barrier"> {
  let summary = "barrier across the team, on monotonic counters";
  let description = [{
    Every thread of the block takes part. Returns once every participant
    has reached the barrier; every write a participant made before the
    barrier (to its own memory or a peer's) is then visible to every thread
    of every participant, at system scope.

    - `scope(team)`: one block on each device of the team (any block; pick
      it with a condition on `gpu.block_id`). Uses counter 0.
    - `scope(team_blocks)`: every block of the grid on each device. Uses
      counter 0 (the team counter) and counter 1 (this device's grid
      counter); the grid size is read at run time, so persistent grids
      work. Block 0 of each device takes part in the team step for its
      device.

    The counters are never reset: each barrier adds exactly 2^31 to every
    device's team counter (and grid counter), so their top bit flips once
    per barrier and a participant waits for the flip. Repeated launches and
    CUDA graph replays need no host reset. The counters belong to the
    barrier: no other op may signal or wait on them; both scopes may share
    one array. docs/Rationale.md has the argument.

    ```mlir
    weave.barrier %bar scope(team_blocks) : !weave.semaphore<2>
    ```
  }];
  let arguments = (ins Weave_SemaphoreType:$semaphore,
                       Weave_BarrierScope:$scope);
  let assemblyFormat = [{
    $semaphore `scope` `(` $scope `)` attr-dict `:` qualified(type($semaphore))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Counters the barrier uses: 1 for scope(team), 2 for scope(team_blocks).
    unsigned getNumCounters();
  }];
}

//===----------------------------------------------------------------------===//
// One-sided copies
//===----------------------------------------------------------------------===//


def Weave_PutOp : Weave_Op<"put", [AttrSizedOperandSegments]> {
  let summary = "cooperative copy from local memory into a peer's symmetric buffer";
  let description = [{
    Copies `source` (global memory of this device) into the copy of the
    symmetric buffer `target` on device `device`, element by element in
    row-major order. Either side may be a view at any offset (a
    `memref.subview` with a static or dynamic offset) and may have sizes
    known only at run time; both must be contiguous (unit innermost stride,
    each outer stride the product of the inner sizes, as far as the type
    says) and hold the same number of elements of the same integer or float
    type. Static element counts must match; dynamic ones are compared at
    run time, and a mismatch prints both counts and traps.

    `scope` says which threads execute the op together and share the work:
    `block` (the default: every thread of the block), `warp` (every thread
    of the executing warp) or `thread` (the executing thread alone copies
    everything). The copy moves 16-byte vectors where both addresses allow
    it, with scalar head and tail elements, so any size and offset works.

    Without `signal`, the op does not synchronise the threads; signal a
    semaphore after a barrier to publish the data. With `signal %sem[%i],
    %v`, once every cooperating thread has stored its part (a `bar.sync` for
    `block`, a `bar.warp.sync` for `warp`), one thread executes a
    system-scope fence and adds `%v` to counter `%i` of `%sem` on `device`
    with a system-scope release, so a `weave.semaphore_wait` on that device
    that observes it sees the data. The regions of a
    `weave.matmul_pipeline` run on one thread, so only `thread` is allowed
    there.

    With `packets(%flag)` the target is instead a packet buffer of `i64`
    elements, one per 32-bit word of the source or part of one (a source of
    1- or 2-byte elements may end in a partial word, sent with zeros above
    its data): each packet holds a word in its low half and `%flag`
    in its high half and is stored with one 64-bit `st.relaxed.sys`, so the
    data is visible at the destination as soon as its flag is, with no
    fence, barrier or signal (NCCL's LL and MSCCL++'s LL8 protocols). The
    destination reads them with `weave.read_packets`, which waits for each
    packet's flag. Choose a flag the buffer does not already hold (an epoch
    that changes every use) and do not reuse the buffer before its reader
    has read it (double-buffer by epoch parity). No `signal` with packets.
    ```mlir
    weave.put %src, %dst on %right : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
    weave.put %src, %lines on %right scope(warp) packets(%epoch)
        : memref<1024xf32> -> memref<1024xi64, #weave.symmetric>
    weave.put %a, %b on %peer scope(warp) signal %sem[%me], %c1_i32
        : memref<?xbf16, strided<[1], offset: ?>>
        -> memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric>, !weave.semaphore<8>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, AnyMemRef:$target, Index:$device,
                       DefaultValuedAttr<Weave_CopyScope, "CopyScope::Block">:$scope,
                       Optional<AnyType>:$signal, Optional<Index>:$signal_index,
                       Optional<I32>:$signal_value,
                       Optional<I32>:$packet_flag);
  let assemblyFormat = [{
    $source `,` $target `on` $device (`scope` `(` $scope^ `)`)?
    (`signal` $signal^ (`[` $signal_index^ `]`)? `,` $signal_value)?
    (`packets` `(` $packet_flag^ `)`)? attr-dict
    `:` type($source) `->` type($target) (`,` qualified(type($signal))^)?
  }];
  let hasVerifier = 1;
}

def Weave_GetOp : Weave_Op<"get", [AttrSizedOperandSegments]> {
  let summary = "cooperative copy from a peer's symmetric buffer into local memory";
  let description = [{
    The mirror of `weave.put`: reads the copy of the symmetric buffer
    `source` on device `device` into `target` in this device's global
    memory, under the same rules (views at any offset, run-time sizes,
    `scope`). With `signal %sem[%i], %v`, one thread signals counter `%i`
    of `%sem` on this device (where the data went) once every cooperating
    thread has stored its part.

    ```mlir
    weave.get %src on %left, %dst : memref<1024xf32, #weave.symmetric> -> memref<1024xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, Index:$device, AnyMemRef:$target,
                       DefaultValuedAttr<Weave_CopyScope, "CopyScope::Block">:$scope,
                       Optional<AnyType>:$signal, Optional<Index>:$signal_index,
                       Optional<I32>:$signal_value);
  let assemblyFormat = [{
    $source `on` $device `,` $target (`scope` `(` $scope^ `)`)?
    (`signal` $signal^ (`[` $signal_index^ `]`)? `,` $signal_value)? attr-dict
    `:` type($source) `->` type($target) (`,` qualified(type($signal))^)?
  }];
  let hasVerifier = 1;
}

def Weave_ReadPacketsOp : Weave_Op<"read_packets"> {
  let summary = "wait for low-latency packets and unpack their data";
  let description = [{
    Reads this device's packet buffer `packets` (symmetric, `i64` elements,
    written by peers with `weave.put ... packets(%flag)`) into `target`
    (global memory of this device, one packet per 32-bit word or part of
    one): each cooperating thread spins on its packets with 64-bit
    `ld.relaxed.sys` until the high half equals `flag`, then stores the low
    half (of a partial last word, only the target's bytes). `scope` is as
    for `weave.put`. The op orders nothing for the other threads:
    `gpu.barrier` before they read `target`. With
    `weavec --wait-timeout-ms` a spin that lasts too long prints the packet,
    the flag it waited for and the one it saw, then traps.
    ```mlir
    weave.read_packets %lines, %epoch into %dst
        : memref<1024xi64, #weave.symmetric> -> memref<1024xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$packets, I32:$flag, AnyMemRef:$target,
                       DefaultValuedAttr<Weave_CopyScope, "CopyScope::Block">:$scope);
  let assemblyFormat = [{
    $packets `,` $flag `into` $target (`scope` `(` $scope^ `)`)? attr-dict
    `:` type($packets) `->` type($target)
  }];
  let hasVerifier = 1;
}

def Weave_TmaReduceKind : I32EnumAttr<"TmaReduceKind",
    "how a TMA reduction combines a tile with the data it lands on", [
      I32EnumAttrCase<"Add", 0, "add">,
      I32EnumAttrCase<"Min", 1, "min">,
      I32EnumAttrCase<"Max", 2, "max">
    ]> {
  let cppNamespace = "::mlir::weave";
}

def Weave_L2Policy : I32EnumAttr<"L2Policy",
    "the L2 eviction priority a TMA copy gives the lines it touches", [
      I32EnumAttrCase<"EvictFirst", 0, "evict_first">,
      I32EnumAttrCase<"EvictLast", 1, "evict_last">
    ]> {
  let cppNamespace = "::mlir::weave";
}

def Weave_CopySmemToGmemOp : Weave_Op<"copy_smem_to_gmem",
    [AttrSizedOperandSegments]> {
  let summary = "asynchronous bulk (TMA) store of a shared-memory tile";
  let description = [{
    Issued by one thread: stores the shared-memory tile `source` into
    `target` at element offsets `indices` with the tensor memory accelerator,
    as one bulk group. With `on %device`, `target` must be symmetric and the
    store goes to that device's copy over NVLink. The tensor maps are built
    on the host: for `(device_id + c) mod num_devices` with a constant `c`
    the kernel gets one tensor map of that peer's copy; for any other device
    (known only at run time, `0 <= %device < num_devices`) it gets a table
    of one tensor map per member in global memory and reads entry `%device`
    (docs/ABI.md, "Per-member tables"), except in a kernel of a static team:
    there the compiler (weave-peer-view-stores) stores through a by-value
    peer view per distance `(%device - device_id) mod D` below 8 and keeps
    the table only for distances of 8 and more. Wait for completion with
    `weave.wait_smem_to_gmem` before reusing `source` or signalling.

    Elements are f16, bf16 or f32: the tensor map types the runtime encodes
    (f64 and integers are not, yet).

    With `reduce(add|min|max)` the tile is combined element-wise with what
    is in `target` (`cp.reduce.async.bulk.tensor`, atomic per element
    against other reductions into the same place, performed at L2 of the
    device that holds `target`): `add` on f16, bf16 and f32, `min` and
    `max` on f16 and bf16 only (PTX has no f32 min/max for this
    instruction). Completion and visibility are those of the store.

    With `l2(evict_first|evict_last)` the store carries an L2 cache policy
    (`.L2::cache_hint`, the policy `createpolicy.fractional` makes for a
    fraction of 1.0): its lines are the first (or the last) the L2 evicts.
    Only a hint: the data and its visibility are the same.

    Coordinates are signed 32-bit: a box that starts past the edge of
    `target` (or before it) is clipped, and an index outside
    [-2^31, 2^31 - 1] is clamped to that range, which no tensor map's
    dimension reaches (so the box is clipped whole). But a *reduction* at a
    negative coordinate faults on H100 (an illegal-instruction error that
    ends the context, seen with the GEMM + reduce-scatter kernel), where a
    plain store at the same place is clipped: keep reductions at
    coordinates of at least 0 (pad the target with a halo and reduce there,
    as examples/matmul_reduce_scatter does). A constant negative index with
    `reduce` is rejected.

    ```mlir
    weave.copy_smem_to_gmem %tile, %scratch[%row, %c0] on %prev
        : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #weave.symmetric>
    weave.copy_smem_to_gmem %box, %out[%row, %col] reduce(add) on %owner
        : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<1024x4096xf32, #weave.symmetric>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, AnyMemRef:$target,
                       Variadic<Index>:$indices, Optional<Index>:$device,
                       DefaultValuedAttr<I64Attr, "0">:$swizzle,
                       OptionalAttr<Weave_TmaReduceKind>:$reduce,
                       OptionalAttr<Weave_L2Policy>:$l2);
  let assemblyFormat = [{
    $source `,` $target `[` $indices `]` (`reduce` `(` $reduce^ `)`)?
    (`l2` `(` $l2^ `)`)? (`on` $device^)? attr-dict
    `:` type($source) `->` type($target)
  }];
  // Stores without a cache policy (the pipeline's epilogue).
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::Value":$target,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$device,
                   "int64_t":$swizzle,
                   "::mlir::weave::TmaReduceKindAttr":$reduce), [{
      build($_builder, $_state, source, target, indices, device, swizzle,
            reduce, /*l2=*/::mlir::weave::L2PolicyAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Weave_CopyGmemToSmemOp : Weave_Op<"copy_gmem_to_smem",
    [AttrSizedOperandSegments]> {
  let summary = "asynchronous bulk (TMA) load of a tile into shared memory";
  let description = [{
    Issued by one thread: loads the tile of `source` at element offsets
    `indices` into the shared-memory tile `target` with the tensor memory
    accelerator. Completion is counted in bytes on the mbarrier `barrier`
    (`mbarrier::complete_tx`), which the issuing thread must have armed with
    the expected byte count. Elements outside `source` read as zero, so
    edge tiles need no masking. Elements are f16, bf16 or f32, as for
    `weave.copy_smem_to_gmem`.

    `swizzle` (0, 32, 64 or 128 bytes) is the shared-memory layout the tile
    is written in; `weave-expand-pipelines` uses 128, the layout `wgmma`
    reads without bank conflicts. The tensor map is built on the host from
    the kernel argument `source`.

    With `multicast(%mask)` the tile is loaded once and written to every
    block of the cluster whose rank has its bit set in the 16-bit `%mask`,
    at the same shared-memory offset, completing on the mbarrier at the
    same offset in each of them. Each destination's barrier must be armed
    for those bytes, and a destination's slot must be free before any block
    multicasts into it.

    With `on %device`, `source` must be symmetric and the tile is read from
    that device's copy (over NVLink), with the tensor maps of
    `weave.copy_smem_to_gmem ... on`: one of the peer's copy for
    `(device_id + c) mod num_devices`, else entry `%device` of a
    per-member table (docs/ABI.md). The data must be there before the load
    is issued (e.g. after a `weave.semaphore_wait` for the peer's signal).

    `l2(evict_first|evict_last)` is the L2 cache policy of
    `weave.copy_smem_to_gmem`, for the lines the load reads.

    ```mlir
    weave.copy_gmem_to_smem %a[%row, %col], %tile, %full {swizzle = 128}
        : memref<4096x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %b[%row, %col], %box, %full multicast(%mask)
        {swizzle = 128}
        : memref<4096x4096xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>,
          memref<i64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, Variadic<Index>:$indices,
                       AnyMemRef:$target, AnyMemRef:$barrier,
                       Optional<I16>:$multicast_mask,
                       DefaultValuedAttr<I64Attr, "0">:$swizzle,
                       Optional<Index>:$device,
                       OptionalAttr<Weave_L2Policy>:$l2);
  let assemblyFormat = [{
    $source `[` $indices `]` `,` $target `,` $barrier
    (`multicast` `(` $multicast_mask^ `)`)? (`l2` `(` $l2^ `)`)?
    (`on` $device^)? attr-dict
    `:` type($source) `->` type($target) `,` type($barrier)
  }];
  // The loads of this device's buffers (the pipeline's) name no device.
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::ValueRange":$indices,
                   "::mlir::Value":$target, "::mlir::Value":$barrier,
                   "::mlir::Value":$multicast_mask, "int64_t":$swizzle), [{
      build($_builder, $_state, source, indices, target, barrier,
            multicast_mask, swizzle, /*device=*/::mlir::Value(),
            /*l2=*/::mlir::weave::L2PolicyAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Weave_WaitSmemToGmemOp : Weave_Op<"wait_smem_to_gmem"> {
  let summary = "wait for bulk stores issued by this thread";
  let description = [{
    Waits until at most `pending` bulk groups issued by this thread are in
    flight. With `read_only`, waits only until their shared-memory sources
    may be overwritten, not until the writes are visible.

    ```mlir
    weave.wait_smem_to_gmem 0
    weave.wait_smem_to_gmem 1 read_only
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending,
                       UnitAttr:$read_only);
  let assemblyFormat = "$pending (`read_only` $read_only^)? attr-dict";
}

def Weave_PrefetchL2Op : Weave_Op<"prefetch_l2"> {
  let summary = "start bringing bytes of a buffer into the L2 cache";
  let description = [{
    Starts an asynchronous prefetch of `bytes` bytes of `buffer` (in global
    or `#weave.symmetric` memory, this device's copy) from element
    `indices` on into the L2 cache (`cp.async.bulk.prefetch.L2`): one
    thread, no wait, no effect on what any thread reads (a hint: data that
    changes after it is read again from memory). The address must be 16-byte
    aligned and `bytes` a positive multiple of 16 (a constant is checked
    here). E.g. a consumer's rows that another member wrote, brought close
    before the epilogue that reads them.

    ```mlir
    weave.prefetch_l2 %slots[%row, %col], %c512_i32 : memref<?x4096xbf16, #weave.symmetric>
    ```
  }];
  // Declared as reading and writing the buffer: an op that only reads and
  // has no result is dead code to MLIR, and the cache it fills is an
  // effect the IR cannot see. (It also stays in order with the buffer's
  // other accesses, which costs nothing.)
  let arguments = (ins Arg<AnyMemRef, "", [MemRead, MemWrite]>:$buffer,
                       Variadic<Index>:$indices, I32:$bytes);
  let assemblyFormat = [{
    $buffer `[` $indices `]` `,` $bytes attr-dict `:` type($buffer)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Element-wise atomics on symmetric memory
//===----------------------------------------------------------------------===//

def Weave_AtomicAddOp : Weave_Op<"atomic_add", [AttrSizedOperandSegments]> {
  let summary = "system-scope atomic add to an element of a symmetric buffer";
  let description = [{
    Atomically adds `value` to element `indices` of the symmetric buffer
    `buffer`, on device `device` when `on` is given (this device
    otherwise), with no result. The add is atomic at system scope, so
    adds from threads on several GPUs to the same element all land; it is
    relaxed: it orders nothing, publish the sums with a barrier and a
    `weave.semaphore_signal` as for stores.

    `value` is an `f32` for an `f32` buffer, or a `vector<2xf16>` /
    `vector<2xbf16>` for an `f16` / `bf16` buffer, which adds to the two
    consecutive elements starting at `indices` (one packed `red`); their
    address must then be 4-byte aligned (an even element offset).

    ```mlir
    weave.atomic_add %v, %acc[%i] on %peer : f32, memref<1024xf32, #weave.symmetric>
    weave.atomic_add %pair, %acc[%i] : vector<2xbf16>, memref<1024xbf16, #weave.symmetric>
    ```
  }];
  let arguments = (ins
    AnyTypeOf<[F32, VectorOfLengthAndType<[2], [F16, BF16]>]>:$value,
    Arg<AnyMemRef, "symmetric buffer", [MemRead, MemWrite]>:$buffer,
    Variadic<Index>:$indices, Optional<Index>:$device);
  let assemblyFormat = [{
    $value `,` $buffer `[` $indices `]` (`on` $device^)? attr-dict
    `:` type($value) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warp-specialized pipelines
//===----------------------------------------------------------------------===//

def Weave_MatmulPipelineOp : Weave_Op<"matmul_pipeline", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects,
    AttrSizedOperandSegments]> {
  let summary = "warp-specialized TMA + wgmma matmul with a per-tile callback";
  let description = [{
    Computes `out = lhs @ rhs` (row-major `M x K`, `K x N`, `M x N`; f16 or
    bf16 inputs, f32 accumulation) with every block of the kernel. K and N
    are static; the row count M of lhs and out may be dynamic
    (`memref<?x4096xf16>`, a kernel argument itself, not a view of one, and
    without `cluster_m`): the row tiles are counted at run time and TMA
    zero-fills and clips the edge tiles with the launch sizes.
    `weave-expand-pipelines` turns it into a warp-specialized persistent
    kernel body, so the kernel's block must be `128 * (1 + consumers)`
    threads and its dynamic shared memory at least what the op needs:

    - warpgroup 0 is the producer: one thread walks the block's tiles and,
      for each `k` step, waits until ring slot `step mod stages` is free
      (its *empty* mbarrier), arms the slot's *full* mbarrier with the byte
      count and issues TMA loads of the `tile_m x tile_k` lhs tile and the
      `tile_k x tile_n` rhs tile (rhs as `tile_n / 64` boxes of 128-byte
      rows). `tile_k` is one lhs row of 128 or 64 bytes (64 or 32 elements),
      the lhs tile's swizzle; the rhs is always 128-byte swizzled. Loads
      past the edge of an operand read zeros, so `M`, `N` and `K` need not
      be multiples of the tile. `stages` may be any count, but a power of
      two keeps the slot arithmetic to masks (7 stages measured 10% slower
      than 8 on H200);
    - warpgroups `1..consumers` wait on the *full* mbarrier and issue
      `wgmma.mma_async` into f32 register accumulators, each owning a
      `tile_m / consumers` (split M) or `tile_n / consumers` (split N) part
      of the output tile. With two consumers each waits for its step's
      wgmma and releases the slot at once (the other consumer's wgmma keep
      the tensor cores busy meanwhile); a lone consumer keeps one group in
      flight and releases the slot of step `s` once step `s + 1` has been
      issued;
    - the producer gives up registers (`setmaxnreg`) to the consumers;
    - tiles are visited persistently, in `R = ceil(tiles / gridDim.x)`
      rounds by the first `W = ceil(tiles / R)` blocks (block `b < W` takes
      tiles `b`, `b + W`, ...; the other blocks get none, and still run the
      `after_loads` region): the fewest blocks that need no more rounds
      than the whole grid, so the busy ones get equal shares. The tiles go
      in groups of `grid_tile_width` row tiles, so
      neighbouring blocks share rhs tiles in L2. With `grid_tile_segments
      = s`, the row tiles are `s` equal segments (the row-tile count must
      be a multiple of `s`; a static count is checked here, a dynamic one
      is the kernel's to check) and no group straddles two: a segment's
      tiles all come before the next segment's, its last group is
      narrower where the width does not divide it (e.g. the shards of an
      all-gather, visited in order at any shard size); and the width
      narrows at run time to at most (segment rows - rows one wave of busy
      blocks covers), so that a segment's rows complete a wave before the
      next segment reaches the same rows (a ring whose blocks forward rows
      to a peer needs that), unless the segments are whole waves tiled by
      full groups or hold at most 4 row tiles (kUnnarrowedSegmentRows:
      there the 1- and 2-row groups read nearly all of rhs every wave,
      which cost more than the waits); with `grid_tile_keep_width` (only with
      segments) the width stays, for kernels whose segments arrive by
      themselves (copy engines) and whose groups should stay wide for L2.
      With `grid_tile_interleave = i`
      (not with segments) the row tiles are `i` shards of `floor(rows / i)`
      row tiles each (of whole clusters with `cluster_m`; rows past them
      keep their place), visited in turns: the walk's `q`-th row (its
      position in the groups above) is row `q / i` of shard `q mod i`, so
      a group of 8 row tiles holds `8 / i` rows of every shard and each
      wave tiles of every shard (e.g. a GEMM + reduce-scatter's owners,
      whose remote stores then spread over the waves) while the groups
      stay narrow for L2. It works for a static or dynamic row count and
      any `i` (`i` dividing the row tiles makes the shards the exact
      `rows / i` runs). With `grid_tile_lag = L` as well, the last shard
      trails the others by `min(L, shard rows)` of its rows: the walk
      takes rows `0..L-1` of the first `i - 1` shards in turns, then every
      shard in turns (the last one `L` rows behind), then the last shard's
      final `L` rows; a large `L` visits the last shard after all the
      others; with one shard (`i = 1`) it changes nothing. (A GEMM +
      reduce-scatter's own shard, last after
      `rotate_m` from the next member, then comes after the peers have
      computed, and sent, their part of the same rows.) With `rotate_m(%r)` the
      row tiles are visited starting at row tile `%r` and wrapping around
      (after the interleave: shard s's rows move by `%r` like any row).
      With `walk_m(%w)` the walk stops early: only the tiles of its first
      `min(%w, row tiles)` row tiles are distributed, `min(%w, row tiles) x
      column tiles` of them (times `split_k`; with `cluster_m(c)` a
      cluster takes `c` vertically adjacent ones at once), grouped by
      `grid_tile_width` as above (the last group narrower); `%w` = 0 visits no tile. A constant `%w` must be at least
      0; a run-time one is read as unsigned, so a negative value is the
      whole walk. The bound counts the walk's rows before the rotation, so
      with `rotate_m(%r)` the row tiles visited are `%r, %r + 1, ...`
      modulo the row tiles of `lhs`: e.g. an all-gather matmul's peer
      shards, rows `[(r+1)m, Dm)` and then `[0, rm)` of the gathered
      matrix, in one launch with `rotate_m((r+1)m/128) walk_m((D-1)m/128)`,
      each tile at its own rows. With `cluster_m(c)`, `%w` must be a
      multiple of `c` (a cluster's row tiles are walked together): a
      constant is checked here; a run-time value that is not traps before
      the walk (rounding down would skip rows the caller asked for,
      rounding up compute rows it did not, and nothing says which was
      meant), and `weave-configure-pipelines` adds no cluster to an op with
      `walk_m`. `walk_m` is not allowed with `grid_tile_segments` or
      `grid_tile_interleave` (their segments and shards are fractions of
      all the row tiles, which a bound would cut through);
    - with `grid_tile_column_block = W` (W > 0; not with
      `grid_tile_segments`, `grid_tile_interleave` or `walk_m`) the column
      tiles are walked in runs, one after the other: run `j` holds the
      column tiles whose last column lies in `[j W, (j + 1) W)`, and each
      run is walked in its own groups of `grid_tile_width` row tiles as
      above, over every row. For a kernel whose rhs arrives in column
      blocks of W (e.g. a GEMM + reduce-scatter that gathers its peers'
      inputs, ops/lib/InputGather.h): every tile of run `j` needs only
      blocks `0..j`, and the runs come in the order the blocks land;
    - with `k_rotation = s` (s > 0, not with `split_k`) the tile of column
      tile `n` runs its k steps from step `n * s` on (from 0 where `n * s`
      is past the last step) and wraps around, so the first
      `ceil(K_steps / s)` column tiles of a row tile hold different k steps
      of its lhs at the same time and every k step is among one of their
      first `s` steps (an all-gather matmul forwards a row tile that early,
      instead of over a whole tile's k loop; a larger `s` rotates fewer
      column tiles and forwards later). The regions see the step's k; the
      accumulation order of a tile changes with its column, not its value
      beyond rounding;
    - with `cluster_m(c)` (c = 2 or 4; the kernel's cluster must be
      `[c, 1, 1]`) the `c` blocks of a cluster compute `c` vertically
      adjacent tiles, rows `c*i .. c*i + c - 1` of the same column tile,
      in lock step. They share the rhs tile: each block loads `1/c` of its
      64-column boxes and multicasts them to the whole cluster, which cuts
      the rhs traffic from L2 by `c`. A slot is then refilled only when
      every block of the cluster has released it, so each consumer hands a
      slot back to all of them; and a block exits only after its producer
      saw the last use of every slot released by the whole cluster (no
      peer writes into it or arrives on its barriers after that). The
      number of row tiles and `grid_tile_width` must be multiples of `c`;
    - the epilogue converts the accumulators to the output type (f16 or
      bf16; an f32 output gets them as they are) and
      streams them through two 64-row x 128-byte boxes per consumer in
      shared memory (128-byte swizzled, so the stores are conflict-free)
      and out with TMA stores (edges are clipped).

    `tile(auto)`, or no tile clause, lets `weave-configure-pipelines`
    choose the tile, stages, consumers, split and cluster_m per shape (the
    least estimated time with wave quantization: Pipeline/ConfigChooser.h);
    `stages(N)`, and consumers, split or cluster_m other than their
    defaults, constrain the choice, as do the kernel's explicit block,
    cluster and smem. The kernel may leave those three `auto` for the
    choice to fill in. An explicit tile with `stages(N)` is used as
    written; without `stages(N)` the chooser keeps the tile and picks the
    rest (so `smem = auto` needs no hand-computed byte count). A pipeline
    with regions may use `tile(auto)`: a `callback`'s tile arguments
    (`tile_m x tile_k` and `tile_k x tile_n`) fix the tile and the chooser
    picks the rest; an `epilogue` or `combine` region in the tile form
    (box, m, n, box index) needs the tile fixed, explicitly or by a
    callback (the box index depends on it), while one in the coordinate
    form (box, row, col) leaves it to the chooser. With a dynamic row count
    read from a kernel argument, the kernel becomes one copy per range of
    M that the chooser configures differently, each a `weave.variant` of
    the kernel's name that the runtime picks at launch.

    `split_k(s)` (with `workspace(%ws : memref<Wxf32>)`, no cluster,
    callback, epilogue or combine region (the chooser offers none with
    one), and a static M or one bounded by the
    `hi` of the kernel's `weave.variant` on the lhs argument) divides each tile's k steps among
    `s` units that run on different blocks: unit `u` of the persistent walk
    is split `u mod s` of tile `u / s` and takes k steps
    `[j * numK / s, (j + 1) * numK / s)`. Each unit but the last stores its
    f32 partial into its own region of the workspace (`tile_m * tile_n`
    floats per tile and split) and then arrives on a per-tile counter with
    release semantics (the `tiles * consumers` 32-bit words at the start
    of the workspace, in a counter area whose size depends on W alone, so
    that kernels sharing a workspace agree on it; the partials follow:
    W must be at least about `tiles * (s - 1) * tile_m * tile_n * (1 +
    1/8192)`, the verifier says how much); the last unit waits (acquire) until `s - 1` have
    arrived, adds the partials into its accumulators in split order, sets
    the counter back to zero and stores the tile. So the workspace's
    counters must be zero before the first launch and every launch leaves
    them zero: repeated launches need no host synchronization. A unit
    waits only for lower-numbered units, which blocks of a grid that is
    resident at once reach first, so it cannot deadlock. With `tile(auto)`
    a workspace lets the chooser
    pick split-K where it fits in W.

    `lhs_rows(%part at %row : memref<?xKxT>)` (optional) reads rows
    `[%row, %row + rows(%part))` of `lhs` from `%part` instead: another
    kernel argument with lhs's columns and element type, e.g. a member's
    own rows where they are not yet in the gathered `lhs`, so that no copy
    has to put them there first. The producer picks, for each row tile,
    the tensor map it loads from. `%row` and the part's row count must be
    multiples of `tile_m` (a row tile is read from one of the two: a
    constant that is not is an error, a run-time value traps), and the
    part lies inside lhs's rows (rows past them are never visited); lhs's
    rows there are not read.

    `tail_split = S` (an attribute, with `workspace(...)`; not with
    split_k, cluster_m > 1, grid_tile_interleave or k_rotation) splits the
    tiles of the persistent
    walk's last, partial round along k, chosen at run time for the launch's
    rows: of T tiles on W workers, the first `W * floor(T / W)` run whole
    and each of the `t = T mod W` others is split into `s = min(S, W / t,
    k steps / 4, 1 + partial tiles the workspace holds / t)` units where
    that is at least 3 (`kMinTailSplit`; else s = 1: no split), so that
    the last round takes about 1/s of a tile's time instead of a whole
    one. With grid_tile_segments only a round that lies in the last
    segment splits (the segments are phases whose tiles may wait for work
    of earlier ones on other members). An epilogue or combine region runs
    once per tile, on the fixed-up sum; before_load, callback and
    after_loads run for a split unit's own k steps (its part of the
    tile's), and before_load's optional fourth argument says which step
    is its unit's first: a region that waits once per tile for its rows
    must wait there. (Measured on the all-gather matmul's ring, whose
    last segment reads rows nobody forwards: slower, docs/PERF.md "The
    tail split in the ring's last segment".) Units of a split tile run on different workers
    in the last round and meet in the split-K fix-up (its counters and
    partials, indexed by the tile's place among the split ones): the same
    workspace rules, zero counters before the first launch, every launch
    leaves them zero. As with split_k, a unit waits for units of other
    blocks of its launch: the whole grid must be resident at once (a
    persistent grid on a GPU of its own; not beside kernels that spin on
    this one, as a loopback team's members do). With `tile(auto)` the
    chooser estimates the split and turns it off (tail_split = 1) for a
    configuration with clusters or split_k. The ops' plain matmul uses it
    (ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in); docs/PERF.md
    "The last round split along k" and "The tail split calibrated" have
    its measurements.

    `before_load` (optional) runs on the producer thread before it issues
    the loads of step `(m, n, k)` (tile indices, not element offsets), e.g.
    to wait on a semaphore until the rows it is about to read have arrived.
    It takes `(m, n, k)`, `(m, n, k, first)` or `(m, n, k, first, tile_m,
    tile_n)`: `first` (i1) is true on the first step of the step's unit, a
    tile's first step in its k loop (k_rotation moves it) or a tail-split
    unit's first; `tile_m` and `tile_n` (index constants) are the tile's
    rows and columns, which `tile(auto)` picks per shape (and per variant),
    so that a region can wait for the elements of a tile (row `m * tile_m`
    on) without fixing the tile.

    Every region runs on one thread. The verifier rejects in them what
    waits for other threads (`gpu.barrier`, `nvvm.barrier`, `bar.sync` in
    inline PTX, cluster barriers, wgmma, shuffles and other warp-wide ops)
    and the cooperative `weave.put` / `weave.get` of a block or a warp: the
    first deadlock, the second would copy only part of the data.
    `before_load`, `after_loads` and `callback` run on warpgroup 0, which
    keeps only 40 registers per thread (see below).

    `epilogue` (optional) replaces the store of each output box: it runs on
    the leader thread of the consumer warpgroup that owns the box, once the
    box (64 rows x 128 bytes of the output type, 128-byte swizzled) is in
    shared memory and visible to the TMA unit. Its arguments are the box
    and its place, in one of two forms told apart by their count: the tile
    form, the tile indices `m, n` and the box index `i` in the tile,
    row-major over the tile's `tile_m / 64` x `tile_n / box_cols` boxes
    (`box_cols = 128 / bytes of the output element`): the box covers rows
    `m * tile_m + 64 * (i / (tile_n / box_cols))` and columns
    `n * tile_n + box_cols * (i mod (tile_n / box_cols))` of `out`; or the
    coordinate form, `row, col`, the box's first row and column of `out`
    (of the pipeline's output as the op sees it: a subview's offsets are
    not added), which does not depend on the tile. The
    region decides where the box goes, typically one
    `weave.copy_smem_to_gmem` of it (to `out`, to a peer's symmetric
    buffer, or with `reduce(add)`), which the expansion gives the box's
    swizzle. The box is reused once the region's bulk stores have read it
    (the expansion waits for that); a region that signals a peer after its
    stores waits for them first (`weave.wait_smem_to_gmem 0`). Without the
    region, each box is stored to `out`. When the region sends every box
    elsewhere, `into %out` may be left out and the output element type
    given instead (`: lhs, rhs -> f32 epilogue {...}`): the output is then
    `lhs rows x rhs columns` of that type, with no buffer behind it (the
    host allocates none). A region that stores to `out` needs `into`.

    `combine` (optional) runs on every thread of the consumer warpgroup
    that owns a box, after the box is written to shared memory (and every
    thread sees the whole box) and before it is stored (by `epilogue` or to
    `out`): it may rewrite the box in place, e.g. add values read from
    memory to it (a residual, or other members' contributions to the same
    output rows). Its arguments are the box, its place (`m, n, i` or `row,
    col`, as the epilogue's) and the thread's index `lane` (0..127) in the
    warpgroup; the 128 threads split the box between them as the region
    says. The box is 128-byte swizzled: element (r, c) of the logical box
    sits at column `((c / e) xor (r mod 8)) * e + c mod e` of row r, `e`
    being the elements in 16 bytes (8 for f16 / bf16). The expansion
    synchronizes the warpgroup before the region, and after it fences the
    box to the async proxy and synchronizes again, so the region's writes
    are what the store reads. The region must not wait for other threads
    (a block barrier: the producer and the other consumer do not run it);
    warp-wide ops are allowed (all 32 lanes of each warp run it). It may
    wait on a semaphore (every thread that runs the wait spins).

    `after_loads` (optional, no arguments) runs on the producer thread once
    every load the block issued has landed in shared memory: the block
    reads `lhs` and `rhs` no more, so it may tell whoever overwrites them
    (e.g. signal a peer that writes the next launch's rows into `lhs`). It
    runs while the consumers may still compute and store.

    `callback` (optional) runs on one elected thread of a warp beside the
    producer (lane 0 of warp 1 of the producer warpgroup; user IR names no
    thread) once the tiles of step `(m, n, k)` are resident, on every step
    of every tile of the block. Its tile arguments are views of the ring slot in the 128-byte
    swizzled layout: they are meant for `weave.copy_smem_to_gmem`, which
    the expansion gives a tensor map of the same swizzle; plain loads do
    not see the logical layout. The warp takes part in handing slots back:
    the slot of step `s` is reused only after the consumers' wgmma of step
    `s` has completed and the callback warp has finished the callback of
    step `s + delay_release` (and, at the end of each tile, has waited for
    its bulk stores to read shared memory). So a bulk store issued from the
    tile of step `s` may run until the callback of step
    `s + delay_release`, which must wait for it
    (`weave.wait_smem_to_gmem N read_only`). Waits in the callback stall
    only the callback warp; the wgmma warpgroups run on while the ring has
    filled slots.

    When the op ends in a thread, that thread is done with the pipeline,
    and no more: there is no block barrier at the end. Each thread that
    issued output stores (thread 0 of each consumer warpgroup, and the
    callback warp for its own stores) has waited for them to complete
    (`cp.async.bulk.wait_group 0`; only for their reads of shared memory
    when the kernel returns right after the op, since the kernel's end
    completes them). Other threads, of the block or of other blocks, see
    the output only after a `gpu.barrier` (in the block) or a
    `weave.semaphore_signal` following it (on any device; in a kernel with
    bulk stores the signal fences the async proxy first). Likewise, code
    after the op must not reuse the dynamic shared memory before a
    `gpu.barrier`: other warpgroups may still be in the pipeline. The
    register split stays: warpgroup 0 (the producer) keeps at most 40
    registers per thread, each consumer warpgroup 232 (240 with one
    consumer), so code after the op that warpgroup 0 runs should be light
    (signals, waits). With the unit attribute `even_registers`, every
    warpgroup takes the block's even share again once its role ends (168 a
    thread for two consumers, the average of the split rounded down to a
    multiple of 8): the consumers give theirs back, all of the block meets
    at a named barrier, and only then does the producer take its share, so
    that code after the op has the registers of a plain kernel (a loop
    with many loads in flight, e.g. a sum over slots). Where nothing but
    the kernel's return follows the op it has no effect.

    ```mlir
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        delay_release(1)
        : memref<2048x4096xf16>, memref<4096x4096xf16> into memref<2048x4096xf16>
        callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>,
         %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>,
         %m: index, %n: index, %k: index):
      ...
    }
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "", [MemRead]>:$lhs, Arg<AnyMemRef, "", [MemRead]>:$rhs,
    Arg<Optional<AnyMemRef>, "", [MemWrite]>:$out,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$tile_m,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$tile_n,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$tile_k,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$stages,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$delay_release,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "2">:$consumers,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "8">:$grid_tile_width,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$grid_tile_segments,
    UnitAttr:$grid_tile_keep_width,
    UnitAttr:$even_registers,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$grid_tile_interleave,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$grid_tile_lag,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$grid_tile_column_block,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$k_rotation,
    DefaultValuedAttr<Weave_ConsumerSplitAttr, "::mlir::weave::ConsumerSplit::M">:$split,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$cluster_m,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$split_k,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$tail_split,
    Optional<Index>:$rotate_m,
    Optional<Index>:$walk_m,
    Arg<Optional<AnyMemRef>, "", [MemRead, MemWrite]>:$workspace,
    Arg<Optional<AnyMemRef>, "", [MemRead]>:$lhs_rows,
    Optional<Index>:$lhs_rows_at,
    OptionalAttr<TypeAttr>:$out_element);
  let regions = (region MaxSizedRegion<1>:$before_load,
                        MaxSizedRegion<1>:$callback,
                        MaxSizedRegion<1>:$after_loads,
                        MaxSizedRegion<1>:$epilogue,
                        MaxSizedRegion<1>:$combine);
  let assemblyFormat = [{
    $lhs `,` $rhs (`into` $out^)?
    custom<PipelineTile>($tile_m, $tile_n, $tile_k, $stages)
    (`delay_release` `(` $delay_release^ `)`)?
    (`cluster_m` `(` $cluster_m^ `)`)?
    (`rotate_m` `(` $rotate_m^ `)`)?
    (`walk_m` `(` $walk_m^ `)`)?
    (`split_k` `(` $split_k^ `)`)?
    (`workspace` `(` $workspace^ `:` type($workspace) `)`)?
    (`lhs_rows` `(` $lhs_rows^ `at` $lhs_rows_at `:` type($lhs_rows) `)`)?
    attr-dict `:` type($lhs) `,` type($rhs) (`into` type($out)^)?
    (`->` $out_element^)?
    `` custom<PipelineRegions>($before_load, $callback, $after_loads, $combine, $epilogue)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Shared memory the pipeline needs, in bytes: the ring of lhs/rhs tiles,
    /// the epilogue boxes, the mbarriers and 1024 bytes of alignment slack.
    int64_t getSharedMemoryBytes();
    /// The output's type: `out`'s, or (an epilogue that sends every box
    /// elsewhere, no `into`) lhs rows x rhs columns of `-> T`.
    MemRefType getOutType();
    /// True while weave-configure-pipelines has a choice to make: the tile
    /// is `auto`, or explicit without `stages(N)`.
    bool isAutoTile() { return !getTileMAttr() || !getStagesAttr(); }
    /// The tile and stage count; 0 while they are `auto`.
    int64_t tileM() { return getTileM().value_or(0); }
    int64_t tileN() { return getTileN().value_or(0); }
    int64_t tileK() { return getTileK().value_or(0); }
    int64_t numStages() { return getStages().value_or(0); }
    /// Whether any region (before_load, callback, after_loads, combine,
    /// epilogue) is given: a region sees the tiles' places and sums, so
    /// the row tiles are not padded to whole clusters, edge tiles do not
    /// move, and a view's dynamic rows must be whole tiles. The one owner
    /// of that list (getTiling's `regions`, the chooser's padRowTiles,
    /// TmaOperands' row range read it).
    bool hasRegions() {
      return !getBeforeLoad().empty() || !getCallback().empty() ||
             !getAfterLoads().empty() || !getCombine().empty() ||
             !getEpilogue().empty();
    }
    /// The tiling the op spells (Utils/MatmulTiling.h), built once per use:
    /// its check() is the legality of an explicit tile.
    ::mlir::weave::pipeline::MatmulTiling getTiling();
  private:
    /// The operands: ranks, memory, layouts, element types and shapes
    /// (verify calls it first).
    ::mlir::LogicalResult verifyOperands();
    /// The rules of `tile(auto)` (verify calls it second).
    ::mlir::LogicalResult verifyAutoTile();
  public:
  }];
}

def Weave_YieldOp : Weave_Op<"yield", [Pure, Terminator,
    HasParent<"MatmulPipelineOp">]> {
  let summary = "terminator of a pipeline callback";
  let description = [{
    Ends a `weave.matmul_pipeline` callback. It is implicit in the custom
    assembly form.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // WEAVE_DIALECT_WEAVE_IR_WEAVEOPS_TD
