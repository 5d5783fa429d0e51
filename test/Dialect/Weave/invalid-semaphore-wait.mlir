// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @wait_zero(%sem: !weave.semaphore) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'weave.semaphore_wait' op expects a positive value to wait for, got 0}}
  weave.semaphore_wait %sem, %c0 decrement : !weave.semaphore
  return
}

// -----

func.func @wait_negative(%sem: !weave.semaphore) {
  %cm2 = arith.constant -2 : i32
  // expected-error @below {{'weave.semaphore_wait' op expects a positive value to wait for, got -2}}
  weave.semaphore_wait %sem, %cm2 : !weave.semaphore
  return
}

// -----

func.func @wait_missing_index(%sem: !weave.semaphore<2>, %v: i32) {
  // expected-error @below {{'weave.semaphore_wait' op expects a counter index for '!weave.semaphore<2>' with 2 counters}}
  weave.semaphore_wait %sem, %v decrement : !weave.semaphore<2>
  return
}

// -----

func.func @wait_index_out_of_bounds(%sem: !weave.semaphore<2>, %v: i32) {
  %c7 = arith.constant 7 : index
  // expected-error @below {{'weave.semaphore_wait' op counter index 7 is out of bounds for '!weave.semaphore<2>'}}
  weave.semaphore_wait %sem[%c7], %v : !weave.semaphore<2>
  return
}

// -----

// The wait is local: there is no `on` clause.
func.func @wait_on_peer(%sem: !weave.semaphore, %v: i32, %peer: index) {
  // expected-error @below {{expected ':'}}
  weave.semaphore_wait %sem, %v on %peer : !weave.semaphore
  return
}

// -----

// Every thread of the block would subtract the value.
gpu.module @m {
  gpu.func @wait_decrement_every_thread(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [256, 1, 1]>} {
    // expected-error @below {{'weave.semaphore_wait' op expects a decrementing wait to run on one thread, but every thread of the block (256) runs it and each subtracts the value; use scope(block)}}
    weave.semaphore_wait %sem, %v decrement : !weave.semaphore
    gpu.return
  }
}

// -----

// A loop with uniform bounds runs on every thread too.
gpu.module @m {
  gpu.func @wait_decrement_in_loop(%sem: !weave.semaphore, %v: i32, %n: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [32, 2, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @below {{every thread of the block (64) runs it}}
      weave.semaphore_wait %sem, %v cmp(eq) decrement : !weave.semaphore
    }
    gpu.return
  }
}

// -----

// scope(block) synchronizes the block: every thread must reach it.
gpu.module @m {
  gpu.func @wait_block_scope_divergent(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    // expected-note @below {{divergent value defined here}}
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      // expected-error @below {{'weave.semaphore_wait' op expects to be reached by every thread of the block, but is inside 'scf.if' whose condition depends on 'gpu.thread_id'}}
      weave.semaphore_wait %sem, %v decrement scope(block) : !weave.semaphore
    }
    gpu.return
  }
}

// -----

// A pipeline region runs on one thread: a warp-scope wait would deadlock.
func.func @wait_warp_scope_in_pipeline(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %sem: !weave.semaphore, %v: i32) {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index):
    // expected-error @below {{'weave.semaphore_wait' op expects scope(warp) to be reached by every thread of the warp, but is inside a 'weave.matmul_pipeline' region, which runs on one thread}}
    weave.semaphore_wait %sem, %v scope(warp) : !weave.semaphore
    weave.yield
  }
  return
}

// -----

func.func @wait_block_scope_in_pipeline(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %sem: !weave.semaphore, %v: i32) {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> after_loads {
    // expected-error @below {{'weave.semaphore_wait' op expects to be reached by every thread of the block, but is inside a 'weave.matmul_pipeline' region, which runs on one thread or warp}}
    weave.semaphore_wait %sem, %v decrement scope(block) : !weave.semaphore
    weave.yield
  }
  return
}
