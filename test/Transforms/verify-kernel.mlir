// RUN: weave-opt %s -weave-verify-kernel -split-input-file -verify-diagnostics

// A passing kernel: symmetric arguments, views of them, semaphores.
gpu.module @m {
  gpu.func @ring(%src: memref<1024xf32>, %buf: memref<2x1024xf32, #weave.symmetric>, %sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %c1 = arith.constant 1 : index
    %c1_i32 = arith.constant 1 : i32
    %s = arith.addi %me, %c1 : index
    %right = arith.remui %s, %n : index
    %slot = memref.subview %buf[1, 0] [1, 1024] [1, 1] : memref<2x1024xf32, #weave.symmetric> to memref<1024xf32, strided<[1], offset: 1024>, #weave.symmetric>
    %flat = memref.collapse_shape %buf [[0, 1]] : memref<2x1024xf32, #weave.symmetric> into memref<2048xf32, #weave.symmetric>
    %r = weave.remote_ref %flat on %right : memref<2048xf32, #weave.symmetric>
    weave.semaphore_signal %sem, %c1_i32 on %right : !weave.semaphore
    weave.semaphore_wait %sem, %c1_i32 decrement scope(block) : !weave.semaphore
    gpu.return
  }
}

// -----

// Dynamic dimensions are accepted (their sizes come from the launch), in
// plain and symmetric buffers, with memref.dim and dynamic subviews.
gpu.module @m {
  gpu.func @dynamic_argument(%a: memref<16xf32>, %b: memref<?xf32>, %c: memref<?x64xf16, #weave.symmetric>, %n: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %m = memref.dim %c, %c0 : memref<?x64xf16, #weave.symmetric>
    %rows = memref.subview %c[%n, 0] [%m, 64] [1, 1] : memref<?x64xf16, #weave.symmetric> to memref<?x64xf16, strided<[64, 1], offset: ?>, #weave.symmetric>
    %r = weave.remote_ref %rows on %c0 : memref<?x64xf16, strided<[64, 1], offset: ?>, #weave.symmetric>
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{weave kernel argument #0 expects a buffer of at least one element (the runtime binds no empty buffers), got 'memref<?x0xf32>'}}
  gpu.func @dynamic_empty(%a: memref<?x0xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

// The static part of a dynamic shape must fit in 2^63 bytes (a '?' is at
// least 1).
gpu.module @m {
  // expected-error @below {{weave kernel argument #0 expects a buffer of fewer than 2^63 bytes, got 'memref<?x2305843009213693952xf32>'}}
  gpu.func @dynamic_too_big(%a: memref<?x2305843009213693952xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @symmetric_alloc(%dev: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    // expected-error @below {{'memref.alloc' op cannot allocate 'memref<16xf32, #weave.symmetric>' in device code: an alloc here is not lowered to that memory; for symmetric memory: pass it as a #weave.symmetric kernel argument}}
    %buf = memref.alloc() : memref<16xf32, #weave.symmetric>
    // expected-error @below {{'weave.remote_ref' op expects symmetric buffers and semaphores to be arguments of the kernel (or views of them)}}
    %r = weave.remote_ref %buf on %dev : memref<16xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @semaphore_from_cast(%word: i32, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %sem = builtin.unrealized_conversion_cast %word : i32 to !weave.semaphore
    // expected-error @below {{'weave.semaphore_signal' op expects symmetric buffers and semaphores to be arguments of the kernel (or views of them)}}
    weave.semaphore_signal %sem, %v : !weave.semaphore
    gpu.return
  }
}

// -----

// Symmetric memrefs are tracked on any op, not only on weave ops.
gpu.module @m {
  gpu.func @symmetric_alloc_store(%v: f32, %p: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %buf = builtin.unrealized_conversion_cast %p : i64 to memref<16xf32, #weave.symmetric>
    // expected-error @below {{'memref.store' op expects symmetric buffers and semaphores to be arguments of the kernel (or views of them)}}
    memref.store %v, %buf[%c0] : memref<16xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// memref.alloca is a per-thread stack slot: in workgroup memory it became a
// local slot reached through a shared-memory address.
gpu.module @m {
  gpu.func @alloca_workgroup() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    // expected-error @below {{'memref.alloca' op cannot allocate 'memref<256xf32, #gpu.address_space<workgroup>>' in device code: an alloca is a per-thread stack slot; for shared memory: declare it as a workgroup(...) attribution of the gpu.func (or a memref.global in workgroup memory)}}
    %a = memref.alloca() : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// The same with NVVM's integer space 3, in a plain gpu.func.
gpu.module @m {
  func.func @alloca_space_3() {
    // expected-error @below {{'memref.alloca' op cannot allocate 'memref<4xf32, 3>' in device code}}
    %a = memref.alloca() : memref<4xf32, 3>
    return
  }
}

// -----

// An alloca in symmetric memory, and an alloc in shared memory.
gpu.module @m {
  gpu.func @alloca_symmetric() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    // expected-error @below {{'memref.alloca' op cannot allocate 'memref<4xf32, #weave.symmetric>' in device code: an alloca is a per-thread stack slot; for symmetric memory: pass it as a #weave.symmetric kernel argument}}
    %a = memref.alloca() : memref<4xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @alloc_workgroup() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    // expected-error @below {{'memref.alloc' op cannot allocate 'memref<4xf32, #gpu.address_space<workgroup>>' in device code: an alloc here is not lowered to that memory}}
    %a = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Accepted: a private alloca (registers or local memory).
gpu.module @m {
  gpu.func @alloca_private() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %a = memref.alloca() : memref<4xf32>
    %b = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
    gpu.return
  }
}

// -----

// A barrier's counters belong to it: a signal on counter 0 of its
// semaphore would make every later barrier on it pass early or hang.
gpu.module @m {
  gpu.func @signal_on_barrier_counter(%bar: !weave.semaphore<4>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1 : i32
    // expected-note @below {{barrier here}}
    weave.barrier %bar scope(team_blocks) : !weave.semaphore<4>
    // Counter 2 is not the barrier's.
    weave.semaphore_signal %bar[%c2], %one : !weave.semaphore<4>
    // expected-error @below {{'weave.semaphore_wait' op uses a counter of the barrier's semaphore (counters 0 and 1 belong to the weave.barrier, which counts them in steps of 2^31); give it a semaphore of its own, or use a counter index of at least 2}}
    weave.semaphore_wait %bar[%c1], %one scope(block) : !weave.semaphore<4>
    gpu.return
  }
}
