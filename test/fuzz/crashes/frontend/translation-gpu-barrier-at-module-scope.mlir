gpu.module @m {
  gpu.func @k() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
  gpu.barrier
}
