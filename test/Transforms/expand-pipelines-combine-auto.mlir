// RUN: weavec %s --emit=mlir | FileCheck %s
// RUN: weavec %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// A combine region in the coordinate form, (box, row, col, lane): the
// box's first row and column in the output instead of the tile indices, so
// the region does not depend on the tile and the pipeline may leave it to
// the chooser (tile(auto)), with a dynamic row count (one variant per range
// of rows the chooser configures differently) and the tail split (the
// region runs once per tile, on the fixed-up sum). Here a residual add
// (out = a @ b + r, in f32, rounded once): each thread takes 4 of the box's
// 512 16-byte chunks, and rows past the output (a partial last row tile)
// keep the box's value, which TMA clips.
// (Which variants get which tile and the split is the chooser's; the
// checks below only ask that the variants differ and keep the region, one
// with the tail split, and that none splits k: split_k would hand the
// region partial sums, so the chooser does not offer it with a region.)
// CHECK-NOT: split_k
// CHECK: gpu.func @residual__m1_
// CHECK-NOT: split_k
// CHECK: weave.matmul_pipeline {{.*}} tile(128, 256, 64) stages(4) workspace({{.*}}) {tail_split = 4 : i64} {{.*}} combine {
// CHECK-NEXT: ^bb0(%{{.*}}: memref<64x64xbf16, #gpu.address_space<workgroup>>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NOT: split_k
// CHECK: weave.matmul_pipeline {{.*}} tile({{64|128}}, {{128|192}}, 64) {{.*}} combine {
// CHECK-NOT: split_k
// CHECK: gpu.func @residual__m{{[0-9]+}}_up(
// CHECK-NOT: split_k
// CHECK: combine {
// (The PTX's last entry point: the _up variant's manifest entry may name
// an earlier one's function, SharedVariants.h.)
// PTX: .visible .entry residual__m{{[0-9]+}}_{{[0-9]+}}(
// PTX: bar.sync
// PTX: ld.global.v4.b32
// PTX: fence.proxy.async.shared::cta
// PTX: cp.async.bulk.tensor.2d.global.shared::cta
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill stores
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @residual(%a: memref<?x4096xbf16> {weave.name = "a"},
                     %b: memref<4096x8192xbf16> {weave.name = "b"},
                     %r: memref<?x8192xbf16> {weave.name = "r"},
                     %c: memref<?x8192xbf16> {weave.name = "c"},
                     %ws: memref<4194848xf32> {weave.name = "ws"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 1>, grid = [persistent, 1, 1],
          block = auto, cluster = auto, smem = auto>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    %rows = memref.dim %c, %c0 : memref<?x8192xbf16>
    weave.matmul_pipeline %a, %b into %c tile(auto)
        workspace(%ws : memref<4194848xf32>) {tail_split = 4 : i64}
        : memref<?x4096xbf16>, memref<4096x8192xbf16> into memref<?x8192xbf16>
        combine {
    ^bb0(%box: memref<64x64xbf16, #gpu.address_space<workgroup>>, %row0: index, %col0: index, %lane: index):
      // Chunk v: logical chunk v mod 8 of row v / 8, stored at chunk
      // (v mod 8) xor (row mod 8) of that row.
      scf.for %v = %lane to %c512 step %c128 {
        %row = arith.divui %v, %c8 : index
        %chunk = arith.remui %v, %c8 : index
        %phase = arith.remui %row, %c8 : index
        %swz = arith.xori %chunk, %phase : index
        %at = arith.muli %swz, %c8 : index
        %col = arith.muli %chunk, %c8 : index
        %grow = arith.addi %row0, %row : index
        %gcol = arith.addi %col0, %col : index
        %inside = arith.cmpi ult, %grow, %rows : index
        scf.if %inside {
          %own = vector.load %box[%row, %at] {alignment = 16 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
          %res = vector.load %r[%grow, %gcol] {alignment = 16 : i64} : memref<?x8192xbf16>, vector<8xbf16>
          %ownf = arith.extf %own : vector<8xbf16> to vector<8xf32>
          %resf = arith.extf %res : vector<8xbf16> to vector<8xf32>
          %sum = arith.addf %ownf, %resf : vector<8xf32>
          %out = arith.truncf %sum : vector<8xf32> to vector<8xbf16>
          vector.store %out, %box[%row, %at] {alignment = 16 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
        }
      }
    }
    gpu.return
  }
}
}
