// A pipeline over clusters of two blocks: the PTX multicasts the shared rhs
// boxes, arrives on the peer's empty barriers through mapa, synchronizes
// the cluster after initialization (and not before exit: the producer
// waits for the cluster's last releases instead); the manifest carries
// the cluster shape the runtime launches with; ptxas spills nothing.
// RUN: weavec %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ grep -a -E "^ *(kernel|grid|block|cluster)" %t.wbundle | FileCheck %s %}

// PTX-LABEL: .visible .entry pair(
// PTX: mov.u32 {{.*}}, %clusterid.x;
// PTX: mov.u32 {{.*}}, %nclusterid.x;
// PTX: mov.u32 {{.*}}, %cluster_ctaid.x;
// PTX: fence.mbarrier_init.release.cluster;
// PTX: barrier.cluster.arrive;
// PTX-NEXT: barrier.cluster.wait;
// PTX-DAG: mapa.shared::cluster.u32 remote,
// PTX-DAG: mbarrier.arrive.shared::cluster.b64 _, [remote];
// PTX-DAG: mov.b16 [[MASK:%rs[0-9]+]], 3;
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{{.*}}], [{{.*}}], [{{.*}}], [[MASK]];
// PTX-NOT: barrier.cluster
// PTX: ret;

// PTXAS: Compiling entry function 'pair' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// CHECK-LABEL: kernel pair
//  CHECK-NEXT:   grid 132 1 1
//  CHECK-NEXT:   block 384 1 1
//  CHECK-NEXT:   cluster 2 1 1
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @pair(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [132, 1, 1], cluster = [2, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    gpu.return
  }
}
}
