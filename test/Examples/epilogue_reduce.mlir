// The epilogue-reduce example compiles: every f32 box of the output is
// reduce-added twice, into this device's c and the next one's (16 boxes
// per consumer tile: 8 local, 8 remote), with no spills.
// RUN: weavec %examples/epilogue_reduce/epilogue_reduce.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %examples/epilogue_reduce/epilogue_reduce.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX: .visible .entry epilogue_reduce(
// PTX-COUNT-16: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// PTX-NOT: cp.reduce.async.bulk.tensor
// PTX-NOT: cp.async.bulk.tensor.2d.global.shared::cta.tile
// PTXAS: 0 bytes spill stores
