// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=llvm | FileCheck %s

// The kernel is a ptx_kernel with the team parameters and its block size.
// CHECK: define ptx_kernel void @ring_exchange(ptr %{{.*}}, ptr addrspace(1) %{{.*}}, ptr addrspace(1) %{{.*}}, i32 %{{.*}}, i32 %{{.*}}, ptr addrspace(1) %{{.*}}) #[[ATTRS:[0-9]+]]
// CHECK: call void asm sideeffect "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}"
// CHECK: call i32 asm sideeffect "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}"
// CHECK: attributes #[[ATTRS]] = { "nvvm.maxntid"="512,1,1" }
