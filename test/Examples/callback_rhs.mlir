// The callback_rhs example compiles: the callback's store of the 64x256
// rhs tile becomes four stores of its 64-column boxes, each through entry
// %dst of the per-member tensor-map table (a fence of that entry first),
// beside the epilogue's local stores; no spills.
// RUN: weavec %examples/callback_rhs/callback_rhs.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %examples/callback_rhs/callback_rhs.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX: .visible .entry callback_rhs(
// The table is parameter 7, after the team parameters; the rhs boxes are
// 8192 bytes apart after the 16384-byte lhs tile of the slot.
// PTX: .param .u64 .ptr .global .align 1 callback_rhs_param_7,
// PTX: fence.proxy.tensormap::generic.acquire.sys [%rd[[MAP:[0-9]+]]], 128;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd[[MAP]], {%r{{[0-9]+}}, %r[[K:[0-9]+]]}], [%rd[[SLOT:[0-9]+]]+16384];
// PTX: fence.proxy.tensormap::generic.acquire.sys [%rd[[MAP]]], 128;
// PTX-NEXT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd[[MAP]], {%r{{[0-9]+}}, %r[[K]]}], [%rd[[SLOT]]+24576];
// PTX: fence.proxy.tensormap::generic.acquire.sys [%rd[[MAP]]], 128;
// PTX-NEXT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd[[MAP]], {%r{{[0-9]+}}, %r[[K]]}], [%rd[[SLOT]]+32768];
// PTX: fence.proxy.tensormap::generic.acquire.sys [%rd[[MAP]]], 128;
// PTX-NEXT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd[[MAP]], {%r{{[0-9]+}}, %r[[K]]}], [%rd[[SLOT]]+40960];
// PTXAS: 0 bytes spill stores
