module attributes {gpu.container_module} {
gpu.module @m {
gpu.func @put(%src: memref<16xindex>, %dst: memref<16xindex, #weave.symmetric>, %dev: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.put %src, %dst on %dev : memref<16xindex> -> memref<16xindex, #weave.symmetric>
  gpu.return
}
}
}
