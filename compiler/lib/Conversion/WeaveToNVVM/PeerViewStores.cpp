//===- PeerViewStores.cpp - stores to a run-time device by value ---------===//

#include "weave/Conversion/WeaveToNVVM/PeerViewStores.h"

#include "weave/Conversion/Passes.h"
#include "weave/Conversion/WeaveToNVVM/KernelAbi.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

#include <algorithm>
#include <numeric>

namespace mlir::weave {
#define GEN_PASS_DEF_PEERVIEWSTORESPASS
#include "weave/Conversion/Passes.h.inc"
} // namespace mlir::weave

using namespace mlir;
using namespace mlir::weave;

bool mlir::weave::expandPeerViewStores(gpu::GPUFuncOp func) {
  auto kernel =
      func->getAttrOfType<KernelAttr>(WeaveDialect::getKernelAttrName());
  if (!kernel || kernel.getMesh().isDynamic())
    return false;
  MeshAttr mesh = kernel.getMesh();
  int64_t team = mesh.getSize();
  SmallVector<CopySmemToGmemOp> stores;
  func.walk([&](CopySmemToGmemOp store) {
    auto target = dyn_cast<MemRefType>(store.getTarget().getType());
    if (store.getDevice() && target && isSymmetric(target) &&
        failed(matchPeerOffset(store.getDevice(), team)))
      stores.push_back(store);
  });
  int64_t byValue = std::min(team, kMaxPeerViewDistances);
  for (CopySmemToGmemOp store : stores) {
    OpBuilder b(store);
    Location loc = store.getLoc();
    Value device = store.getDevice();
    Value me =
        DeviceIdOp::create(b, loc, b.getIndexType(), mesh.getAxis());
    Value size = arith::ConstantIndexOp::create(b, loc, team);
    // (device + D - me) mod D: never below zero, as device, me < D.
    Value distance = arith::RemUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc,
                              arith::AddIOp::create(b, loc, device, size), me),
        size);
    SmallVector<int64_t> cases(byValue);
    std::iota(cases.begin(), cases.end(), 0);
    auto choice = scf::IndexSwitchOp::create(b, loc, TypeRange{}, distance,
                                             cases, cases.size());
    for (int64_t k = 0; k < byValue; ++k) {
      b.setInsertionPointToStart(&choice.getCaseRegions()[k].emplaceBlock());
      if (k == 0) {
        // This member's own copy: the kernel's own (by-value) map.
        auto own = cast<CopySmemToGmemOp>(b.clone(*store));
        own.getDeviceMutable().clear();
      } else {
        // (me + k) mod D, the form matchPeerOffset reads as offset k.
        Value peer = arith::RemUIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, me,
                                  arith::ConstantIndexOp::create(b, loc, k)),
            size);
        auto atDistance = cast<CopySmemToGmemOp>(b.clone(*store));
        atDistance.getDeviceMutable().assign(peer);
      }
      scf::YieldOp::create(b, loc);
    }
    b.setInsertionPointToStart(&choice.getDefaultRegion().emplaceBlock());
    scf::YieldOp::create(b, loc);
    b.setInsertionPointAfter(choice);
    if (team > byValue) {
      // Distances of 8 and more through the table, after the switch rather
      // than in its default region: the manifest then lists the table after
      // the peer views, as a walk after the SCF lowering (which moves a
      // default region after the cases) finds it.
      Value far = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::uge, distance,
          arith::ConstantIndexOp::create(b, loc, byValue));
      auto ifFar = scf::IfOp::create(b, loc, far, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifFar.thenBlock());
      b.clone(*store);
    }
    store.erase();
  }
  return !stores.empty();
}

namespace {
/// weave-peer-view-stores: expandPeerViewStores on every weave kernel.
struct PeerViewStoresPass
    : public mlir::weave::impl::PeerViewStoresPassBase<PeerViewStoresPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>())
      expandPeerViewStores(func);
  }
};
} // namespace
