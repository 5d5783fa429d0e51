// The collective matmul template with a dynamic row count (ROWS = ?, what
// the benchmark's _mdyn bundles use): m_shard comes from own's rows, the
// pipeline counts its row tiles at run time, and a row count of a that is
// not D shards of whole 128-row tiles traps. With a static ROWS the same
// checks fold away (the bench bundles' PTX is unchanged).
// RUN: sed -e 's/@ROWS@/?/g; s/@M_SHARD@/?/g; s/@D@/2/g; s/@LAST@/1/g; s/@K@/4096/g; s/@N_SHARD@/4096/g; s/@DTYPE@/f16/g; s/@GROUP_ROWS@/8/g; s/@READY@/32/g; s/@LAST_K@/63/g; s/@COL_TILES@/16/g; s/@K_ROTATION@/4/g; s/@PUSH@/0/g; s/@TILE_N@/256/g; s/@STAGES@/4/g; s/@KERNEL@/all_gather_matmul/g; s/@VARIANT@//g' %templates/collective_matmul/all_gather_matmul.mlir.in > %t.mlir
// RUN: weavec %t.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: sed -e 's/@ROWS@/2048/g; s/@M_SHARD@/1024/g; s/@D@/2/g; s/@LAST@/1/g; s/@K@/4096/g; s/@N_SHARD@/4096/g; s/@DTYPE@/f16/g; s/@GROUP_ROWS@/8/g; s/@READY@/32/g; s/@LAST_K@/63/g; s/@COL_TILES@/16/g; s/@K_ROTATION@/4/g; s/@PUSH@/0/g; s/@TILE_N@/256/g; s/@STAGES@/4/g; s/@KERNEL@/all_gather_matmul/g; s/@VARIANT@//g' %templates/collective_matmul/all_gather_matmul.mlir.in > %t.static.mlir
// RUN: weavec %t.static.mlir --emit=ptx | FileCheck %s --check-prefix=STATIC
// RUN: %if ptxas %{ weavec %t.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ grep -a -E "^ *param (symmetric|buffer|dim)" %t.wbundle | FileCheck %s %}

// The dynamic check traps without a printf: a call anywhere in the
// kernel makes ptxas serialize every wgmma (C7510), which weavec would
// warn about (PTXAS-NOT below).
// PTX-LABEL: .visible .entry all_gather_matmul(
//   PTX-NOT: vprintf
//       PTX: trap;
//   PTX-NOT: vprintf
// STATIC-LABEL: .visible .entry all_gather_matmul(
//   STATIC-NOT: trap;
//   STATIC-NOT: vprintf

// CHECK:      param symmetric a dtype=f16 shape=?,4096 align=16
// CHECK-NEXT: param buffer own dtype=f16 shape=?,4096 align=16
// CHECK-NEXT: param buffer b dtype=f16 shape=4096,4096 align=16
// CHECK-NEXT: param buffer c dtype=f16 shape=?,4096 align=16
// CHECK-NEXT: param buffer launches dtype=i64 shape=1 align=16
// CHECK-NEXT: param dim a.dim0 source=0 axis=0
// CHECK-NEXT: param dim own.dim0 source=1 axis=0
// The kernel counts its tiles from a's rows and stores into c's: the
// runtime refuses a launch where they differ (equals=, docs/ABI.md).
// (own's rows against a's: the kernel's trap.)
// CHECK-NEXT: param dim c.dim0 source=3 axis=0 equals=10

// The dynamic instance does not spill in the producer warpgroup's 48
// registers (its regions' arithmetic is 32-bit: with 64-bit index math it
// spilled, and ran 2-8% slower than the static one; lhs_rows' own shard
// made it spill at 40, ExpandPipelines' registerSplit).
// PTXAS-NOT: warning
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
