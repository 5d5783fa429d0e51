// Every shipped example kernel and every ops template passes the protocol
// check at team sizes 2, 3, 4 and 8 over 2 launches (templates whose mesh is
// static are instantiated per team size, small counts: the protocol does not
// depend on them). docs/PROTOCOL_CHECKER.md.
//
// RUN: weavec --check-protocol %examples/matmul/matmul.mlir | FileCheck %s
// RUN: weavec --check-protocol %examples/callback_rhs/callback_rhs.mlir | FileCheck %s
// RUN: weavec --check-protocol %examples/epilogue_reduce/epilogue_reduce.mlir | FileCheck %s
// RUN: weavec --check-protocol %examples/collective_matmul/all_gather_matmul.mlir | FileCheck %s --check-prefix=TWO
// RUN: weavec --check-protocol --check-shape a=300x128 --check-shape c=300x256 %examples/dynamic_shapes/dynamic_matmul.mlir | FileCheck %s
// RUN: weavec --check-protocol --check-shape a=300x128 --check-shape c=300x256 %examples/dynamic_shapes/auto_matmul.mlir | FileCheck %s --check-prefix=VARIANTS
// RUN: weavec --check-protocol --check-shape a=512x128 --check-shape c=512x256 %examples/dynamic_shapes/cluster_matmul.mlir | FileCheck %s --check-prefix=VARIANTS
// RUN: weavec --check-protocol --check-shape input=100 --check-shape output=100 --check-shape dynamic_all_gather:output=100*D %examples/dynamic_shapes/dynamic_shapes.mlir | FileCheck %s --check-prefix=THREE
//
// examples/ring_exchange and examples/tma_forward are safe back to back (a
// member writes its neighbour's inbox only after the neighbour's credit;
// issue #29: without it the checker reported the race).
// RUN: weavec --check-protocol %examples/ring_exchange/ring_exchange.mlir | FileCheck %s
// RUN: weavec --check-protocol %examples/tma_forward/tma_forward.mlir | FileCheck %s
//
// The collective templates, as weave::ops instantiates them: every offered
// algorithm of every collective of the op registry (`weave-ops kernels`;
// the choice table picks among them by size), each at 4 team sizes.
// RUN: weave-ops kernels | while read -r op family algorithm template kernel team offered; do \
// RUN:   [ "$family" = collective ] && [ "$offered" = offered ] || continue; \
// RUN:   for d in 2 3 4 8; do \
// RUN:     weave-ops source $op --algorithm $algorithm --team-size $d --dtype bf16 --count 1001 -o %t.mlir && \
// RUN:     weavec --check-protocol --team-size $d %t.mlir || exit 1; \
// RUN:   done; \
// RUN: done > %t.ops
// RUN: FileCheck %s --check-prefix=OPS < %t.ops
// RUN: test $(grep -c "protocol check passed: 1 kernel" %t.ops) -eq $((4 * $(weave-ops kernels | grep -c " collective .* offered$")))
// The fused ops' templates (the collective matmul reads its rows at launch).
// Their buffers that hold only what the kernels write (the ring's gathered
// rows, the GEMM + RS's slots) are declared so: every byte read, a member
// wrote first (--check-kernel-written).
// RUN: for d in 2 3 4 8; do \
// RUN:   weave-ops source all_gather_matmul --team-size $d --dtype bf16 --m-shard 256 --k 256 --n 512 --algorithm ring -o %t.agm.mlir && \
// RUN:   weavec --check-protocol --team-size $d --check-kernel-written a --check-shape a=$((256 * d))x256 --check-shape own=256x256 --check-shape c=$((256 * d))x512 %t.agm.mlir || exit 1; \
// RUN:   weave-ops source matmul_reduce_scatter --algorithm owner_slots --team-size $d --dtype bf16 --m-shard 256 --k 256 --n 320 -o %t.mrs.mlir && \
// RUN:   weavec --check-protocol --team-size $d --check-kernel-written slots --check-shape a=$((256 * d))x256 --check-shape partial=$((256 * d))x320 --check-shape slots=$((512 * d))x320 --check-shape c=256x320 %t.mrs.mlir || exit 1; \
// RUN: done | FileCheck %s --check-prefix=FUSED
// The GEMM + reduce-scatter's copy-engine algorithm (its default from 2
// members): the chunk matmul's variants, the own chunk with the owner's
// sum in its combine region (ce_matmul_sum, which waits for `ready`, the
// flags the peers' copy streams raise: the host's signal here) and the
// bench's sum; the members are ordered by the op's stream memory
// operations between launches (ops/lib/CopyEngine.cpp).
// RUN: for d in 2 4; do \
// RUN:   weave-ops source matmul_reduce_scatter --algorithm copy_engine --team-size $d --dtype bf16 --m-shard 256 --k 256 --n 320 -o %t.ce.mlir && \
// RUN:   weavec --check-protocol --team-size $d --check-shape a=256x256 --check-shape c=256x320 --check-shape slots=$((256 * d))x320 --check-host-signal ready=1 %t.ce.mlir || exit 1; \
// RUN: done | FileCheck %s --check-prefix=CE
// CE-COUNT-2: protocol check passed: {{[0-9]+}} kernels, team sizes {{[24]}}, {{.*}} no deadlock, race or out-of-bounds access
// The all-gather matmul's "gather" (issue #32) launches the same
// bundle's ce_matmul once per shard: a (m_shard rows of the gathered `a`)
// and c (that shard's rows of the output), after the collectives'
// all-gather (checked with the collectives above; ops/lib/GatherMatmul.h).
// RUN: for d in 2 4; do \
// RUN:   weave-ops source all_gather_matmul --algorithm gather --team-size $d --dtype bf16 --m-shard 384 --k 256 --n 320 -o %t.agce.mlir && \
// RUN:   weavec --check-protocol --team-size $d --check-shape a=384x256 --check-shape c=384x320 --check-shape ce_sum:c=384x320 --check-shape slots=$((384 * d))x320 --check-host-signal ready=1 %t.agce.mlir || exit 1; \
// RUN: done | FileCheck %s --check-prefix=AGCE
// AGCE-COUNT-2: protocol check passed: {{[0-9]+}} kernels, team sizes {{[24]}}, {{.*}} no deadlock, race or out-of-bounds access
// The all-gather matmul's "copy_engine": one launch whose tiles of peer
// shard s wait for ready[s], which the peers' copy streams set after their
// copies (stream memory operations, ops/lib/CopyEngineGather.cpp). Checked
// with the host setting ready before each launch (--check-host-signal:
// the copies are then the host's input writes); the own shard's tiles
// read `own` (lhs_rows). Without the host's signal the checker finds the
// wait that nothing in the kernel satisfies, and a kernel that waits for
// more than the host sets deadlocks.
// RUN: for d in 2 3 4 8; do \
// RUN:   weave-ops source all_gather_matmul --algorithm copy_engine --team-size $d --dtype bf16 --m-shard 256 --k 256 --n 512 -o %t.ceagm.mlir && \
// RUN:   weavec --check-protocol --team-size $d --check-shape a=$((256 * d))x256 --check-shape c=$((256 * d))x512 --check-shape own=256x256 --check-host-signal ready=1 %t.ceagm.mlir || exit 1; \
// RUN: done | FileCheck %s --check-prefix=CEAGM
// CEAGM-COUNT-4: protocol check passed: {{[0-9]+}} kernels, team sizes {{[2348]}}, {{.*}} no deadlock, race or out-of-bounds access
// RUN: weave-ops source all_gather_matmul --algorithm copy_engine --team-size 2 --dtype bf16 --m-shard 256 --k 256 --n 512 -o %t.ceagm2.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape c=512x512 --check-shape own=256x256 %t.ceagm2.mlir 2>&1 | FileCheck %s --check-prefix=CEAGM-NOHOST
// CEAGM-NOHOST: error: deadlock at team size 2 {{.*}} waits for 'ready'[{{[01]}}] >= 1 (it holds 0){{.*}}nothing in the kernel signals it (a semaphore the host sets: --check-host-signal NAME=V)
// RUN: sed -e 's/%one = arith.constant 1 : i32/%one = arith.constant 2 : i32/' %t.ceagm2.mlir > %t.ceagm2-more.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape c=512x512 --check-shape own=256x256 --check-host-signal ready=1 %t.ceagm2-more.mlir 2>&1 | FileCheck %s --check-prefix=CEAGM-MORE
// CEAGM-MORE: error: deadlock at team size 2 {{.*}} waits for 'ready'[{{[01]}}] >= 2 (it holds 1)
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape c=512x512 --check-shape own=256x256 --check-host-signal redy=1 %t.ceagm2.mlir 2>&1 | FileCheck %s --check-prefix=CEAGM-NAME
// CEAGM-NAME: error: protocol check: --check-host-signal names 'redy', which is no semaphore parameter of a kernel here (they are: ready)
// The GEMM + reduce-scatter's "input_gather": the own product, then the
// peers' product over the stages, whose producer waits at each unit's
// first step for ready[src] of every peer to count the part of a's rows
// the tile reads (the peers' copy streams count b, then each part:
// ops/lib/InputGather.cpp; 256 rows land in 2 parts of 128, so 3 in all).
// Checked with the host setting ready to 3 before each launch (D = 3: two
// peers, the stages' k twice the own); at 2 (the last part missing) the
// second row tile's wait is never met, and without the host the checker
// finds the first wait nothing in the kernel satisfies.
// RUN: weave-ops source matmul_reduce_scatter --algorithm input_gather --team-size 3 --dtype bf16 --m-shard 256 --k 256 --n 320 -o %t.ig3.mlir
// RUN: weavec --check-protocol --team-size 3 --check-shape a=256x256 --check-shape c=256x320 --check-shape ig_matmul_add:a=256x512 --check-shape own=256x320 --check-host-signal ready=3 %t.ig3.mlir | FileCheck %s --check-prefix=IG
// IG: protocol check passed: {{[0-9]+}} kernels, team sizes 3, {{.*}} no deadlock, race or out-of-bounds access
// RUN: not weavec --check-protocol --team-size 3 --check-shape a=256x256 --check-shape c=256x320 --check-shape ig_matmul_add:a=256x512 --check-shape own=256x320 --check-host-signal ready=2 %t.ig3.mlir 2>&1 | FileCheck %s --check-prefix=IG-PART
// IG-PART: error: deadlock at team size 3 {{.*}} waits for 'ready'[{{[0-2]}}] >= 3 (it holds 2)
// RUN: weave-ops source matmul_reduce_scatter --algorithm input_gather --team-size 2 --dtype bf16 --m-shard 256 --k 256 --n 320 -o %t.ig2.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=256x256 --check-shape c=256x320 --check-shape ig_matmul_add:a=256x256 --check-shape own=256x320 %t.ig2.mlir 2>&1 | FileCheck %s --check-prefix=IG-NOHOST
// IG-NOHOST: error: deadlock at team size 2 {{.*}} waits for 'ready'[{{[01]}}] >= {{[23]}} (it holds 0){{.*}}nothing in the kernel signals it
// Where n is at least 3 m_shard b lands in two column blocks, block 0
// before a's rows and block 1 after them (ops/lib/InputGather.cpp; 128 rows
// are one part, so 3 in all), and the add walks its tiles in runs of the
// blocks: with the host's count one short the tiles of block 1 wait.
// RUN: weave-ops source matmul_reduce_scatter --algorithm input_gather --team-size 3 --dtype bf16 --m-shard 128 --k 256 --n 512 -o %t.igc.mlir
// RUN: weavec --check-protocol --team-size 3 --check-shape a=128x256 --check-shape c=128x512 --check-shape ig_matmul_add:a=128x512 --check-shape own=128x512 --check-host-signal ready=3 %t.igc.mlir | FileCheck %s --check-prefix=IGC
// IGC: protocol check passed: {{[0-9]+}} kernels, team sizes 3, {{.*}} no deadlock, race or out-of-bounds access
// RUN: not weavec --check-protocol --team-size 3 --check-shape a=128x256 --check-shape c=128x512 --check-shape ig_matmul_add:a=128x512 --check-shape own=128x512 --check-host-signal ready=2 %t.igc.mlir 2>&1 | FileCheck %s --check-prefix=IGC-BLOCK
// IGC-BLOCK: error: deadlock at team size 3 {{.*}} waits for 'ready'[{{[0-2]}}] >= 3 (it holds 2)
// The example templates weave::ops does not pick by default.
// RUN: for t in all_gather/all_gather_flags all_gather/all_gather_ll; do \
// RUN:   for d in 2 3 4 8; do \
// RUN:     weave-ops instantiate %templates/$t.mlir.in --team-size $d --dtype f32 --count 1002 -o %t.tpl.mlir && \
// RUN:     weavec --check-protocol --team-size $d %t.tpl.mlir || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=TEMPLATES
// RUN: weave-ops instantiate %templates/all_reduce/atomic_all_reduce.mlir.in --team-size any --dtype f32 --count 1001 --set WIDTH=1 --set LOAD=memref.load --set LOADED= --set VALUE=f32 -o %t.atomic.mlir
// RUN: weavec --check-protocol %t.atomic.mlir | FileCheck %s
// RUN: weave-ops instantiate %templates/all_reduce/atomic_all_reduce.mlir.in --team-size any --dtype bf16 --count 1002 --set WIDTH=2 --set LOAD=vector.load --set "LOADED=, vector<2xbf16>" --set "VALUE=vector<2xbf16>" -o %t.atomic2.mlir
// RUN: weavec --check-protocol %t.atomic2.mlir | FileCheck %s
// RUN: for d in 2 3 4 8; do \
// RUN:   weave-ops instantiate %templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in --team-size $d --dtype bf16 --count 384 --set K=256 --set COLS=320 -o %t.mrs2.mlir && \
// RUN:   weavec --check-protocol --team-size $d --check-shape slots=$((768 * d))x320 %t.mrs2.mlir || exit 1; \
// RUN: done | FileCheck %s --check-prefix=FUSED
//
// CHECK: protocol check passed: 1 kernel, team sizes 2,3,4,8, {{.*}} 2 launches
// TWO: protocol check passed: 1 kernel, team sizes 2, {{.*}} 2 launches
// VARIANTS: protocol check passed: {{[0-9]+}} kernels, team sizes 2,3,4,8, {{.*}} 2 launches
// THREE: protocol check passed: 3 kernels, team sizes 2,3,4,8, {{.*}} 2 launches
// OPS: protocol check passed: 1 kernel, team sizes {{[2348]}}, {{.*}} 2 launches
// FUSED-COUNT-4: protocol check passed: 1 kernel, team sizes {{[2348]}}, {{.*}} 2 launches
// TEMPLATES-COUNT-8: protocol check passed: 1 kernel, team sizes {{[2348]}}, {{.*}} 2 launches
