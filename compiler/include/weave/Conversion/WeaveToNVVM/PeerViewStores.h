//===- PeerViewStores.h - stores to a run-time device by value -*- C++ -*-===//
//
// weave-peer-view-stores: a TMA store `on` a device known only at run time,
// in a kernel of a static team, goes through by-value peer views (one per
// distance from this member) instead of the per-member table of tensor maps
// in global memory.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_CONVERSION_WEAVETONVVM_PEERVIEWSTORES_H
#define WEAVE_CONVERSION_WEAVETONVVM_PEERVIEWSTORES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cstdint>

namespace mlir::weave {

/// The most distances from this member whose stores `on` a device known
/// only at run time get a by-value peer view each (expandPeerViewStores):
/// 0 (the member's own map) to 7. Their tensor maps are 128 bytes of the
/// 4096-byte parameter space each; a team over 8 reads the rest from the
/// per-member table.
inline constexpr int64_t kMaxPeerViewDistances = 8;

/// Rewrites each `weave.copy_smem_to_gmem ... on %device` of the kernel
/// `func` whose device is known only at run time (no constant offset from
/// this member: matchPeerOffset) and whose mesh size D is static, so that
/// it stores through by-value tensor maps instead of the per-member table
/// in global memory: an `scf.index_switch` on the distance
/// `(%device + D - device_id) mod D`, whose case k < min(D, 8) is the same
/// store `on (device_id + k) mod D` (a peer view, offset k; k = 0 the
/// member's own map, no `on`), then, only for D > 8, the store `on
/// %device` (the table) where the distance is 8 or more. `%device` must be
/// a member (0 <= %device < D), as the op requires. Kernels with a dynamic
/// mesh size and stores to a constant offset are left as they are.
/// (Through the table the GEMM + reduce-scatter's stores cost 63-92 us
/// more than through by-value maps on 2 x H100: docs/PERF.md.) Returns
/// whether it rewrote anything.
bool expandPeerViewStores(gpu::GPUFuncOp func);

} // namespace mlir::weave

#endif // WEAVE_CONVERSION_WEAVETONVVM_PEERVIEWSTORES_H
