// The all-gather matmul as weave::ops builds it (weave-ops source): one
// kernel with a dynamic m_shard, as weave.variant ranges of a's rows, each
// with the column tile ops::AllGatherMatmul::tileN chooses there (D = 2,
// N = 4096: 128 columns up to m_shard 256, where 128 x 256 tiles leave SMs
// idle; 192 where the last round of 256-column tiles would be mostly idle
// and 192 columns fill whole rounds, as at 1152; 256 elsewhere, no upper
// bound). Every variant compiles without spills and without a call that
// would serialize its wgmma.
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype bf16 --m-shard 128 --k 4096 --n 4096 --algorithm ring -o %t.mlir
// RUN: FileCheck %s --check-prefix=SRC < %t.mlir
// RUN: %if ptxas %{ weavec %t.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ grep -a -E "^(kernel|  variant_of|  function|  param symmetric)" %t.wbundle | FileCheck %s --check-prefix=MANIFEST %}

// SRC:       gpu.func @all_gather_matmul__m128_256_n128(
// SRC-NEXT:  %a: memref<?x4096xbf16, #weave.symmetric>
// SRC:       weave.variant = {of = "all_gather_matmul", arg = 0, axis = 0, lo = 1, hi = 512}
// SRC:       tile(128, 128, 64) stages(6)
// SRC:       %rhs: memref<64x128xbf16, #gpu.address_space<workgroup>>
// SRC:       gpu.func @all_gather_matmul__m384_384_n192(
// SRC:       weave.variant = {of = "all_gather_matmul", arg = 0, axis = 0, lo = 513, hi = 768}
// SRC:       tile(128, 192, 64) stages(4)
// SRC:       gpu.func @all_gather_matmul__m1152_1152_n192(
// SRC:       weave.variant = {of = "all_gather_matmul", arg = 0, axis = 0, lo = 2049, hi = 2304}
// SRC:       gpu.func @all_gather_matmul__m1280_up_n256(
// SRC:       weave.variant = {of = "all_gather_matmul", arg = 0, axis = 0, lo = 2305}
// SRC:       tile(128, 256, 64) stages(4)
// SRC-NOT:   gpu.func

// PTXAS-NOT: warning
// PTXAS-COUNT-5: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

// MANIFEST:      kernel all_gather_matmul__m128_256_n128
// MANIFEST-NEXT:   variant_of all_gather_matmul
// MANIFEST:      kernel all_gather_matmul__m384_384_n192
// MANIFEST-NEXT:   variant_of all_gather_matmul
// Seven ranges, five functions: 1152 rows run the code of 640-768 (192
// columns, forwarding), 1280 up that of 896-1024 (256 columns); each
// entry keeps its own range (compiler/include/weave/Pipeline/SharedVariants.h).
// MANIFEST:      kernel all_gather_matmul__m1152_1152_n192
// MANIFEST-NEXT:   variant_of all_gather_matmul
// MANIFEST-NEXT:   function all_gather_matmul__m640_768_n192
// MANIFEST-NEXT:   param symmetric a dtype=bf16 shape=?,4096 range=2049..2304,4096..4096 align=16
// MANIFEST:      kernel all_gather_matmul__m1280_up_n256
// MANIFEST-NEXT:   variant_of all_gather_matmul
// MANIFEST-NEXT:   function all_gather_matmul__m896_1024_n256
