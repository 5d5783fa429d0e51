// RUN: weavec %s --emit=ptx | FileCheck %s

// Arith ops that have no LLVM lowering of their own are expanded before the
// conversion (arith-expand): a kernel may use them.
// Before, weavec stopped with "cannot be converted to LLVM IR: missing
// LLVMTranslationDialectInterface registration ... arith.ceildivui".
// ceildivui(n, 7) = n == 0 ? 0 : (n - 1) / 7 + 1, the division by a constant
// as a multiply-high:
// CHECK-LABEL: .entry ceil_div
// CHECK: setp.eq.b64 [[ZERO:%p[0-9]+]], %rd{{[0-9]+}}, 0;
// CHECK: mul.hi.u64
// CHECK: selp.b64 %rd{{[0-9]+}}, 0, %rd{{[0-9]+}}, [[ZERO]];
gpu.module @m {
gpu.func @ceil_div(%out: memref<1xi64> {weave.name = "out"}, %n: i64 {weave.name = "n"}) kernel
    attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i64
  %q = arith.ceildivui %n, %c7 : i64
  memref.store %q, %out[%c0] : memref<1xi64>
  gpu.return
}
}
