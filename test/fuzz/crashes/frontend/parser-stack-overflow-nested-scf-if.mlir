module attributes {gpu.container_module} {
gpu.module @m {
gpu.func @deep(%buf: memref<16xf32> {weave.name = "buf"}) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [32, 1, 1]>} {
  %t = arith.constant true
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
  gpu.return
}
}
}
