// RUN: weave-opt %s -weave-verify-kernel -split-input-file -verify-diagnostics

// Regression test: element-wise atomics on peer memory (memref.atomic_rmw
// on the result of weave.remote_ref) lowered to GPU-scope
// atom.global.add.f32, which orders nothing against another GPU. Atomics on
// symmetric memory, a peer's copy or a view of either are rejected.

gpu.module @m {
  gpu.func @atomic_on_remote_ref(%buf: memref<1024xf32, #weave.symmetric>, %dev: index, %v: f32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %r = weave.remote_ref %buf on %dev : memref<1024xf32, #weave.symmetric>
    // expected-error @below {{'memref.atomic_rmw' op cannot be used on symmetric or peer memory: it lowers to a GPU-scope atomic, which orders nothing against another GPU; use weave.atomic_add for sums (f32, or f16/bf16 pairs) and weave.semaphore_signal for counters}}
    %old = memref.atomic_rmw addf %v, %r[%c0] : (f32, memref<1024xf32, #weave.symmetric>) -> f32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @atomic_on_local_symmetric(%buf: memref<1024xi32, #weave.symmetric>, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'memref.atomic_rmw' op cannot be used on symmetric or peer memory}}
    %old = memref.atomic_rmw addi %v, %buf[%c0] : (i32, memref<1024xi32, #weave.symmetric>) -> i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @generic_atomic_on_view(%buf: memref<2x512xf32, #weave.symmetric>, %v: f32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %row = memref.subview %buf[1, 0] [1, 512] [1, 1] : memref<2x512xf32, #weave.symmetric> to memref<512xf32, strided<[1], offset: 512>, #weave.symmetric>
    // expected-error @below {{'memref.generic_atomic_rmw' op cannot be used on symmetric or peer memory}}
    %old = memref.generic_atomic_rmw %row[%c0] : memref<512xf32, strided<[1], offset: 512>, #weave.symmetric> {
    ^bb0(%cur: f32):
      %new = arith.maximumf %cur, %v : f32
      memref.atomic_yield %new : f32
    }
    gpu.return
  }
}

// -----

// A cast out of the symmetric memory space does not hide it.
gpu.module @m {
  gpu.func @atomic_through_space_cast(%buf: memref<1024xi32, #weave.symmetric>, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %g = memref.memory_space_cast %buf : memref<1024xi32, #weave.symmetric> to memref<1024xi32>
    // expected-error @below {{'memref.atomic_rmw' op cannot be used on symmetric or peer memory}}
    %old = memref.atomic_rmw addi %v, %g[%c0] : (i32, memref<1024xi32>) -> i32
    gpu.return
  }
}

// -----

// Nor does going through the raw address.
gpu.module @m {
  gpu.func @llvm_atomic_on_symmetric_address(%buf: memref<1024xi32, #weave.symmetric>, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %base = memref.extract_aligned_pointer_as_index %buf : memref<1024xi32, #weave.symmetric> -> index
    %i = arith.index_cast %base : index to i64
    %p = llvm.inttoptr %i : i64 to !llvm.ptr<1>
    %q = llvm.getelementptr %p[4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    // expected-error @below {{'llvm.atomicrmw' op cannot be used on symmetric or peer memory}}
    %old = llvm.atomicrmw add %q, %v monotonic : !llvm.ptr<1>, i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @llvm_cmpxchg_on_symmetric_address(%buf: memref<1024xi32, #weave.symmetric>, %a: i32, %b: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %base = memref.extract_aligned_pointer_as_index %buf : memref<1024xi32, #weave.symmetric> -> index
    %i = arith.index_cast %base : index to i64
    %p = llvm.inttoptr %i : i64 to !llvm.ptr<1>
    // expected-error @below {{'llvm.cmpxchg' op cannot be used on symmetric or peer memory}}
    %r = llvm.cmpxchg %p, %a, %b acq_rel monotonic : !llvm.ptr<1>, i32
    gpu.return
  }
}

// -----

// Atomics on local, non-symmetric memory are fine.
gpu.module @m {
  gpu.func @atomic_on_local(%buf: memref<1024xi32>, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %old = memref.atomic_rmw addi %v, %buf[%c0] : (i32, memref<1024xi32>) -> i32
    gpu.return
  }
}
