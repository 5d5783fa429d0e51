// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Regression test: a gpu.barrier in a pipeline callback (then run by one
// warp) compiled to bar.sync 0 and deadlocked. Every region runs on one
// thread (the callback on an elected lane, the epilogue on a consumer's
// leader): ops that wait for the whole block (or warpgroup, or cluster) or
// need a whole warp are rejected in all of them, and so are the
// cooperative weave.put / weave.get of a block or a warp.

func.func @barrier_in_callback(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-note @below {{in this pipeline}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    // expected-error @below {{'gpu.barrier' cannot be used in the callback region of a weave.matmul_pipeline: it waits for threads that do not run the region (it runs on one thread), so it would deadlock}}
    gpu.barrier
    weave.yield
  }
  return
}

// -----

func.func @barrier_in_before_load(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-note @below {{in this pipeline}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index):
    scf.execute_region {
      // expected-error @below {{'nvvm.barrier0' cannot be used in the before_load region of a weave.matmul_pipeline: it waits for threads that do not run the region (it runs on one thread), so it would deadlock}}
      nvvm.barrier0
      scf.yield
    }
    weave.yield
  }
  return
}

// -----

func.func @named_barrier_in_after_loads(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  %c1 = arith.constant 1 : i32
  // expected-note @below {{in this pipeline}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> after_loads {
    // expected-error @below {{'nvvm.barrier' cannot be used in the after_loads region of a weave.matmul_pipeline: it waits for threads that do not run the region (it runs on one thread), so it would deadlock}}
    nvvm.barrier id = %c1
    weave.yield
  }
  return
}

// -----

func.func @ptx_barrier_in_callback(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-note @below {{in this pipeline}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    // expected-error @below {{'llvm.inline_asm' cannot be used in the callback region of a weave.matmul_pipeline: it waits for threads that do not run the region (it runs on one thread), so it would deadlock}}
    llvm.inline_asm has_side_effects "bar.sync 0;", "" : () -> ()
    weave.yield
  }
  return
}

// -----

func.func @cluster_wait_in_callback(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-note @below {{in this pipeline}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    // expected-error @below {{'nvvm.cluster.wait' cannot be used in the callback region}}
    nvvm.cluster.wait
    weave.yield
  }
  return
}

// -----

func.func @shuffle_in_before_load(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %v: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  // expected-note @below {{in this pipeline}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index):
    // expected-error @below {{'gpu.shuffle' cannot be used in the before_load region of a weave.matmul_pipeline: it waits for threads that do not run the region (it runs on one thread), so it would deadlock}}
    %s, %ok = gpu.shuffle idx %v, %c0, %c32 : i32
    weave.yield
  }
  return
}

// -----

func.func @put_in_callback(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %src: memref<1024xf32>, %dst: memref<1024xf32, #weave.symmetric>, %dev: index) {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    // expected-error @below {{'weave.put' op cannot be used in the callback region of a weave.matmul_pipeline: it is a copy by every thread of the block, and the region runs on one thread}}
    weave.put %src, %dst on %dev : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
    weave.yield
  }
  return
}

// -----

func.func @read_packets_in_callback(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %lines: memref<1024xi64, #weave.symmetric>, %dst: memref<1024xf32>, %flag: i32) {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    // expected-error @below {{'weave.read_packets' op cannot be used in the callback region of a weave.matmul_pipeline: it is a copy by every thread of the block, and the region runs on one thread}}
    weave.read_packets %lines, %flag into %dst : memref<1024xi64, #weave.symmetric> -> memref<1024xf32>
    weave.yield
  }
  return
}

// -----

// What the regions are for: per-thread waits and signals, bulk stores and
// their waits, mbarrier PTX.
func.func @fine(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %sem: !weave.semaphore, %v: i32) {
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index):
    weave.semaphore_wait %sem, %one : !weave.semaphore
    llvm.inline_asm has_side_effects "mbarrier.arrive.shared::cta.b64 _, [0];", "" : () -> ()
    weave.yield
  } callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    weave.wait_smem_to_gmem 0 read_only
    weave.yield
  } after_loads {
    weave.semaphore_signal %sem, %one : !weave.semaphore
    weave.yield
  }
  return
}

// -----

// The callback runs on an elected lane, not on the whole warp.
func.func @callback_shuffle(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %v: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  // expected-note @below {{in this pipeline}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    // expected-error @below {{'gpu.shuffle' cannot be used in the callback region of a weave.matmul_pipeline: it waits for threads that do not run the region (it runs on one thread), so it would deadlock}}
    %s, %ok = gpu.shuffle idx %v, %c0, %c32 : i32
    weave.yield
  }
  return
}

// -----

// The epilogue runs on one thread of a consumer warpgroup.
func.func @epilogue_shuffle(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf16>, %v: i32) {
  // expected-note @below {{in this pipeline}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(2)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf16>
      epilogue {
  ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    %c1 = arith.constant 1 : i32
    %c31 = arith.constant 31 : i32
    %all = arith.constant -1 : i32
    // expected-error @below {{'nvvm.shfl.sync' cannot be used in the epilogue region of a weave.matmul_pipeline: it waits for threads that do not run the region (it runs on one thread), so it would deadlock}}
    %s = nvvm.shfl.sync bfly %all, %v, %c1, %c31 : i32 -> i32
  }
  return
}

// -----

// The combine region runs on the 128 threads of a consumer warpgroup: a
// block barrier there waits for the producer and the other consumer, which
// never reach it. (Warp-wide ops are fine there: whole warps run it.)
func.func @barrier_in_combine(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-note @below {{in this pipeline}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> combine {
  ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index, %lane: index):
    %v = arith.constant 1 : i32
    %w = arith.constant -1 : i32
    %o = arith.constant 0 : i32
    %s, %ok = gpu.shuffle xor %v, %o, %w : i32
    // expected-error @below {{'gpu.barrier' cannot be used in the combine region of a weave.matmul_pipeline: it waits for threads that do not run the region (it runs on the 128 threads of a consumer warpgroup), so it would deadlock}}
    gpu.barrier
    weave.yield
  }
  return
}
