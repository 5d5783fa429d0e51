// RUN: %python %S/Inputs/params.py buffers 510 > %t.b510.mlir
// RUN: weavec %t.b510.mlir --emit=ptx | FileCheck %s --check-prefix=FITS
// RUN: %if ptxas %{ weavec %t.b510.mlir --emit=bundle -o %t.b510.wbundle %}
// RUN: %python %S/Inputs/params.py buffers 511 > %t.b511.mlir
// RUN: not weavec %t.b511.mlir --emit=ptx 2>&1 | FileCheck %s --check-prefix=B511 -DFILE=%t.b511.mlir
// RUN: %python %S/Inputs/params.py tma 30 > %t.t30.mlir
// RUN: weavec %t.t30.mlir --emit=ptx | FileCheck %s --check-prefix=FITS
// RUN: %if ptxas %{ weavec %t.t30.mlir --emit=bundle -o %t.t30.wbundle %}
// RUN: %python %S/Inputs/params.py tma 31 > %t.t31.mlir
// RUN: not weavec %t.t31.mlir --emit=ptx 2>&1 | FileCheck %s --check-prefix=T31 -DFILE=%t.t31.mlir

// CUDA passes at most 4096 bytes of kernel parameters (PTX ISA 8.0), laid
// out as the runtime lays them out: 8-byte pointers, the 4-byte rank and
// team size, 128-byte tensor maps at 64-byte alignment. 510 buffers and the
// team parameters take exactly 4096 bytes, and so do 30 buffers with a
// tensor map each (256 + 30 * 128); one more is an error at the kernel
// before lowering, instead of a ptxas error at the module.

// FITS: .visible .entry k(

// B511: [[FILE]]:2:1: error: expects at most 4096 bytes of kernel parameters, got 4104 (511 user parameters, 3 team parameters and 0 TMA descriptors of 128 bytes, laid out as docs/ABI.md says)
// B511-NOT: ptxas

// T31: [[FILE]]:2:1: error: expects at most 4096 bytes of kernel parameters, got 4288 (31 user parameters, 3 team parameters and 31 TMA descriptors of 128 bytes, laid out as docs/ABI.md says)
