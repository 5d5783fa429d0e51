// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Regression test: a constant device outside the mesh compiled to an
// unchecked load of peer_bases[7] (or [-1]). With a static mesh and a
// constant device, every op that names a device checks it.

gpu.module @m {
  gpu.func @put_device_past_mesh(%s: memref<1024xf32>, %d: memref<1024xf32, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c7 = arith.constant 7 : index
    // expected-error @below {{'weave.put' op expects a device index below the mesh size 2 of the enclosing kernel, got 7}}
    weave.put %s, %d on %c7 : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @get_device_at_mesh_size(%s: memref<1024xf32, #weave.symmetric>, %d: memref<1024xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c2 = arith.constant 2 : index
    // expected-error @below {{'weave.get' op expects a device index below the mesh size 2 of the enclosing kernel, got 2}}
    weave.get %s on %c2, %d : memref<1024xf32, #weave.symmetric> -> memref<1024xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @remote_ref_negative(%b: memref<1024xf32, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %cm1 = arith.constant -1 : index
    // expected-error @below {{'weave.remote_ref' op expects a device index of at least 0, got -1}}
    %r = weave.remote_ref %b on %cm1 : memref<1024xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// A negative device is wrong whatever the mesh size.
gpu.module @m {
  gpu.func @remote_ref_negative_dynamic_mesh(%b: memref<1024xf32, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %cm1 = arith.constant -1 : index
    // expected-error @below {{'weave.remote_ref' op expects a device index of at least 0, got -1}}
    %r = weave.remote_ref %b on %cm1 : memref<1024xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @signal_device_past_mesh(%sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c3 = arith.constant 3 : index
    %one = arith.constant 1 : i32
    // expected-error @below {{'weave.semaphore_signal' op expects a device index below the mesh size 2 of the enclosing kernel, got 3}}
    weave.semaphore_signal %sem, %one on %c3 : !weave.semaphore
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @store_device_past_mesh(%t: memref<64x64xf16, #gpu.address_space<workgroup>>, %g: memref<1024x64xf16, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c5 = arith.constant 5 : index
    // expected-error @below {{'weave.copy_smem_to_gmem' op expects a device index below the mesh size 2 of the enclosing kernel, got 5}}
    weave.copy_smem_to_gmem %t, %g[%c0, %c0] on %c5 : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<1024x64xf16, #weave.symmetric>
    gpu.return
  }
}

// -----

// In the mesh, or not constant, or a dynamic mesh: accepted.
gpu.module @m {
  gpu.func @devices_fine(%s: memref<1024xf32>, %d: memref<1024xf32, #weave.symmetric>, %dev: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c1 = arith.constant 1 : index
    weave.put %s, %d on %c1 : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
    weave.put %s, %d on %dev : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
    gpu.return
  }
  gpu.func @dynamic_mesh(%s: memref<1024xf32>, %d: memref<1024xf32, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c7 = arith.constant 7 : index
    weave.put %s, %d on %c7 : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
    gpu.return
  }
}
