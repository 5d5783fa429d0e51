module attributes {gpu.container_module} {
gpu.module @m {
gpu.func @"a b"(%buf: memref<16xf32> {weave.name = "buf"}) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [32, 1, 1]>} {
  gpu.return
}
}
}
