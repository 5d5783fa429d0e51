// The pull reduce-scatter (ops/templates/reduce_scatter/reduce_scatter.mlir.in)
// loads 16-byte vectors from every member whatever N and the team size: a
// team of 3 puts member m's rows at m x N, off a 16-byte boundary, and N
// itself may be odd. The head up to the first boundary and the tail go one
// element per thread. Before, the vectors were the widest that divides N
// (4-byte loads at D = 3, issue #30: 0.77x NCCL at 256 MB on 4 x H100).
//
// D = 3, f32, N = 1001 (odd): the D-member loop of the body is unrolled into
// three 16-byte loads, the head / tail into three 4-byte ones; the output's
// stores are 4-byte (its rows start at the head, a multiple of 4 bytes).
// RUN: weave-ops instantiate %templates/reduce_scatter/reduce_scatter.mlir.in --team-size 3 --dtype f32 --count 1001 -o %t.d3.mlir
// RUN: weavec %t.d3.mlir --emit=ptx -o %t.d3.ptx
// The persistent grid gets one block a SM: the kernel asks for more than
// half a SM's shared memory (ops::kPullReduceScatterSmemBytes), which it
// does not use; six blocks a SM put too many NVLink loads in flight
// (issue #30). The bundle's manifest carries it to the runtime:
// RUN: weavec %t.d3.mlir --emit=bundle -o %t.d3.wbundle
// RUN: weave-bundle %t.d3.wbundle | FileCheck %s --check-prefix=GRID
// GRID: grid 0 1 1
// GRID-NEXT: block 256 1 1
// GRID-NEXT: cluster 1 1 1
// GRID-NEXT: smem 122880
// RUN: FileCheck %s --check-prefix=D3 < %t.d3.ptx
// RUN: test $(grep -c "ld.global.v4.b32" %t.d3.ptx) -eq 3
// RUN: test $(grep -c "ld.global.b32" %t.d3.ptx) -eq 3
// RUN: not grep -E "st.global.v[24]" %t.d3.ptx
// D3-LABEL: .visible .entry reduce_scatter(
// D3: ld.global.b32
// D3: st.global.b32
// D3: ld.global.v4.b32
// D3: ld.global.v4.b32
// D3: ld.global.v4.b32
// D3: st.global.b32
//
// bf16 at the bench's 16 MB over 3 (N = 2796202 = 2 mod 8): 16-byte loads,
// 4-byte stores (gcd(2 x N, 16) = 4).
// RUN: weave-ops instantiate %templates/reduce_scatter/reduce_scatter.mlir.in --team-size 3 --dtype bf16 --count 2796202 -o %t.bf.mlir
// RUN: weavec %t.bf.mlir --emit=ptx -o %t.bf.ptx
// RUN: test $(grep -c "ld.global.v4.b32" %t.bf.ptx) -eq 3
// RUN: grep -q "st.global.b32" %t.bf.ptx
// RUN: not grep -E "st.global.v[24]" %t.bf.ptx
//
// A power-of-two team at a size that 16 bytes divide: no head or tail
// survives (m x N is a multiple of 4 elements, folded), one 16-byte store
// and four 16-byte loads, and no scalar load of the input.
// RUN: weave-ops instantiate %templates/reduce_scatter/reduce_scatter.mlir.in --team-size 4 --dtype f32 --count 1048576 -o %t.d4.mlir
// RUN: weavec %t.d4.mlir --emit=ptx -o %t.d4.ptx
// RUN: test $(grep -c "ld.global.v4.b32" %t.d4.ptx) -eq 4
// RUN: test $(grep -c "st.global.v4.b32" %t.d4.ptx) -eq 1
// RUN: not grep -E "ld.global.b32|st.global.b32" %t.d4.ptx
