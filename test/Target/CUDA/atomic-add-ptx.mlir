// RUN: weavec %s --emit=ptx | FileCheck %s
// RUN: %if ptxas %{ weavec %s --emit=cubin -o %t.cubin %}

// weave.atomic_add is a relaxed system-scope `red` (not the GPU-scope
// `red.global.add` / `atom` that memref.atomic_rmw lowers to), on the
// peer's address with `on`; ptxas (where present) accepts the spellings.

#k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>

// CHECK-LABEL: .visible .entry atomics(
//       CHECK: red.relaxed.sys.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
//       CHECK: red.relaxed.sys.global.add.noftz.f16x2 [%rd{{[0-9]+}}], %r{{[0-9]+}};
//       CHECK: red.relaxed.sys.global.add.noftz.bf16x2 [%rd{{[0-9]+}}], %r{{[0-9]+}};
//   CHECK-NOT: red.global
//   CHECK-NOT: atom.
//       CHECK: ret;
gpu.module @m {
gpu.func @atomics(%f: memref<1024xf32, #weave.symmetric>, %h: memref<1024xf16, #weave.symmetric>, %b: memref<1024xbf16, #weave.symmetric>, %v: f32) kernel attributes {weave.kernel = #k} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %c1 : index
  %right = arith.remui %s, %n : index
  %tid = gpu.thread_id x
  %pair = arith.muli %tid, %c2 : index
  %hv = arith.constant dense<[1.0, 2.0]> : vector<2xf16>
  %bv = arith.constant dense<[1.0, 2.0]> : vector<2xbf16>
  weave.atomic_add %v, %f[%tid] on %right : f32, memref<1024xf32, #weave.symmetric>
  weave.atomic_add %hv, %h[%pair] on %right : vector<2xf16>, memref<1024xf16, #weave.symmetric>
  weave.atomic_add %bv, %b[%pair] : vector<2xbf16>, memref<1024xbf16, #weave.symmetric>
  gpu.return
}
}
