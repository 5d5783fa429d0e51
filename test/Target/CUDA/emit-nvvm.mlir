// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=nvvm | FileCheck %s --implicit-check-not=weave. --implicit-check-not=scf. --implicit-check-not=unrealized_conversion_cast

// CHECK-LABEL: llvm.func @ring_exchange
//  CHECK-SAME:   nvvm.kernel
//  CHECK-SAME:   nvvm.maxntid = array<i32: 512, 1, 1>
//       CHECK:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32
//       CHECK:   llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32
//       CHECK:   llvm.inline_asm has_side_effects "red.relaxed.sys.global.add.u32
