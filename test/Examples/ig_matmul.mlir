// The input-gather GEMM + reduce-scatter's template
// (ops/templates/matmul_reduce_scatter/ig_matmul.mlir.in: the op's
// algorithm "input_gather"). ig_matmul: the own product, the plain matmul
// with a dynamic row count (variants per range of rows). ig_matmul_add:
// the peers' product over their gathered inputs, K = (D - 1) x k (here D =
// 3: 2 x 1024), whose combine region adds the own product (`own`) with
// four 16-byte loads a thread and box, all issued before any add; its
// producer's wait for the peers' ready flags at each unit's first step,
// for the part of a's rows and the column block of b the tile reads (the
// tile's last row over the part rows, + 2, in block 0; the parts + 1 +
// the block past it: the tile's height and width are constants there;
// here b in two blocks of 4096 columns, the walk in runs of them); a
// system-scope acquire each, then the proxy fence that orders the TMA
// loads of the stages after it;
// no call; the trap for an `own` with fewer rows than c.
// RUN: sed -e 's/@D@/3/g; s/@T@/bf16/g; s/@COLS@/8192/g; s/@KP@/2048/g; s/@K@/1024/g; s/@PARTS@/2/g; s/@CBLOCK@/4096/g; s/@CPARTS@/2/g; s/@CWALK@/4096/g' %weave_src_root/ops/templates/matmul_reduce_scatter/ig_matmul.mlir.in > %t.d3.mlir
// RUN: weavec %t.d3.mlir --emit=ptx | FileCheck %s
// RUN: weavec %t.d3.mlir --emit=bundle -o %t.d3.wbundle
// RUN: weave-bundle %t.d3.wbundle | FileCheck %s --check-prefix=MANIFEST
// RUN: sed -e 's/@D@/2/g; s/@T@/f16/g; s/@COLS@/320/g; s/@KP@/256/g; s/@K@/256/g; s/@PARTS@/2/g; s/@CBLOCK@/320/g; s/@CPARTS@/1/g; s/@CWALK@/0/g' %weave_src_root/ops/templates/matmul_reduce_scatter/ig_matmul.mlir.in > %t.d2.mlir
// RUN: weavec %t.d2.mlir --emit=ptx | FileCheck %s --check-prefix=F16

// CHECK-LABEL: .visible .entry ig_matmul__m1_128(
// CHECK-NOT: ld.global.v4
// CHECK: wgmma.mma_async
// CHECK-LABEL: .visible .entry ig_matmul_add__m1_64(
// CHECK-NOT: call
// CHECK: ld.acquire.sys.global.u32
// CHECK: fence.proxy.async.global;
// CHECK: cp.async.bulk.tensor
// CHECK: wgmma.mma_async
// CHECK-NOT: call
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: call
// CHECK: cvt.rn.bf16x2.f32
// CHECK: trap;

// The own product multiplies k; the peers' (D - 1) x k, both into c's
// columns; the add kernel binds `own` and shares `ws`.
// MANIFEST: kernel ig_matmul__m1_128
// MANIFEST: param buffer a dtype=bf16 shape=?,1024
// MANIFEST: param buffer b dtype=bf16 shape=1024,8192
// MANIFEST: kernel ig_matmul_add__m1_64
// MANIFEST: param buffer a dtype=bf16 shape=?,2048
// MANIFEST-NEXT: param buffer b dtype=bf16 shape=2048,8192
// MANIFEST-NEXT: param buffer c dtype=bf16 shape=?,8192
// MANIFEST-NEXT: param buffer own dtype=bf16 shape=?,8192
// MANIFEST-NEXT: param semaphore ready count=3
// MANIFEST-NEXT: param buffer ws dtype=f32 shape=5243552

// F16-LABEL: .visible .entry ig_matmul_add__m1_64(
// F16: cvt.rn.f16x2.f32
