// Kernels whose row count M is dynamic (`memref<?x...>`): one bundle serves
// every M. The runtime takes M from the buffers' shapes at launch, passes it
// to the kernel (hidden i64 parameters, docs/ABI.md) and builds the tensor
// maps from it; the kernels read it with memref.dim.
//
//   weavec dynamic_shapes.mlir --emit=bundle -o dynamic_shapes.wbundle
gpu.module @dynamic_shapes {
  // output = the sum over the team of every member's `input` (M x 32 f32),
  // in rank order: the one-shot all-reduce of examples/all_reduce with a
  // dynamic row count, read from the remote buffers' own descriptors.
  gpu.func @dynamic_all_reduce(
      %input: memref<?x32xf32, #weave.symmetric> {weave.name = "input"},
      %output: memref<?x32xf32> {weave.name = "output"},
      %bar: !weave.semaphore<2> {weave.name = "barrier"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = [256, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %rows = memref.dim %input, %c0 : memref<?x32xf32, #weave.symmetric>
    %size = arith.muli %rows, %c32 : index
    %members = weave.num_devices "x"
    %block = gpu.block_id x
    %blocks = gpu.grid_dim x
    %thread = gpu.thread_id x
    %threads = gpu.block_dim x
    %first = arith.muli %block, %threads : index
    %start = arith.addi %first, %thread : index
    %stride = arith.muli %blocks, %threads : index
    weave.barrier %bar scope(team_blocks) : !weave.semaphore<2>
    scf.for %i = %start to %size step %stride {
      %r = arith.divui %i, %c32 : index
      %c = arith.remui %i, %c32 : index
      %sum = scf.for %member = %c0 to %members step %c1
          iter_args(%acc = %zero) -> (f32) {
        %theirs = weave.remote_ref %input on %member : memref<?x32xf32, #weave.symmetric>
        %value = memref.load %theirs[%r, %c] : memref<?x32xf32, #weave.symmetric>
        %next = arith.addf %acc, %value : f32
        scf.yield %next : f32
      }
      memref.store %sum, %output[%r, %c] : memref<?x32xf32>
    }
    weave.barrier %bar scope(team_blocks) : !weave.semaphore<2>
    gpu.return
  }

  // output = [input_0; input_1; ...] (D*M x 32 f32) on every member: each
  // member puts its M rows into rows [rank*M, rank*M + M) of every
  // member's symmetric output (a subview with a dynamic offset and size)
  // with a signal, then waits until all D row blocks have arrived.
  gpu.func @dynamic_all_gather(
      %input: memref<?x32xf32> {weave.name = "input"},
      %output: memref<?x32xf32, #weave.symmetric> {weave.name = "output"},
      %arrived: !weave.semaphore {weave.name = "arrived"},
      %bar: !weave.semaphore {weave.name = "barrier"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [256, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %rows = memref.dim %input, %c0 : memref<?x32xf32>
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %all = arith.index_cast %n : index to i32
    weave.barrier %bar scope(team) : !weave.semaphore
    %offset = arith.muli %me, %rows : index
    %mine = memref.subview %output[%offset, 0] [%rows, 32] [1, 1]
        : memref<?x32xf32, #weave.symmetric>
          to memref<?x32xf32, strided<[32, 1], offset: ?>, #weave.symmetric>
    scf.for %peer = %c0 to %n step %c1 {
      weave.put %input, %mine on %peer signal %arrived, %one
          : memref<?x32xf32> -> memref<?x32xf32, strided<[32, 1], offset: ?>, #weave.symmetric>,
            !weave.semaphore
    }
    weave.semaphore_wait %arrived, %all decrement scope(block) : !weave.semaphore
    gpu.return
  }

  // output = 2 * input + 1 (M x 64 f32), written with TMA stores of 64x64
  // tiles: the tensor map of `output` is built at launch with M rows, so
  // the rows of the last tile past M are clipped (the host checks that the
  // memory after row M is untouched).
  gpu.func @dynamic_tma_store(
      %input: memref<?x64xf32> {weave.name = "input"},
      %output: memref<?x64xf32> {weave.name = "output"})
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = [256, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %c4096 = arith.constant 4096 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %rows = memref.dim %input, %c0 : memref<?x64xf32>
    %rows63 = arith.addi %rows, %c63 : index
    %tiles = arith.divui %rows63, %c64 : index
    %block = gpu.block_id x
    %blocks = gpu.grid_dim x
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.for %t = %block to %tiles step %blocks {
      %base = arith.muli %t, %c64 : index
      scf.for %i = %tid to %c4096 step %c256 {
        %r = arith.divui %i, %c64 : index
        %c = arith.remui %i, %c64 : index
        %row = arith.addi %base, %r : index
        %inside = arith.cmpi ult, %row, %rows : index
        %v = scf.if %inside -> (f32) {
          %x = memref.load %input[%row, %c] : memref<?x64xf32>
          %y = arith.mulf %x, %two : f32
          %z = arith.addf %y, %one : f32
          scf.yield %z : f32
        } else {
          scf.yield %zero : f32
        }
        memref.store %v, %tile[%r, %c] : memref<64x64xf32, #gpu.address_space<workgroup>>
      }
      // Generic-proxy writes to shared memory must be visible to the TMA unit.
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      gpu.barrier
      scf.if %leader {
        weave.copy_smem_to_gmem %tile, %output[%base, %c0]
            : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<?x64xf32>
        // The tile is rewritten next: wait until the store has read it.
        weave.wait_smem_to_gmem 0 read_only
      }
      gpu.barrier
    }
    scf.if %leader {
      weave.wait_smem_to_gmem 0
    }
    gpu.return
  }
}
