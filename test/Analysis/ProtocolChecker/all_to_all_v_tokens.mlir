// The all-to-all-v's token form (counts and capacity in rows of HIDDEN
// elements, as an MoE dispatch counts tokens): every offset and size is a
// count of rows times HIDDEN. The protocol check with counts filled in runs
// the real offsets at D = 2, 3, 4 and 8; scaling only the sizes (the
// mutant below) makes two sources' parts overlap in the receiver's output,
// which the checker reports as a race.
//
// RUN: weave-ops key all_to_all_v --team-size 4 --dtype bf16 --count 64 --row-elements 4096 --algorithm put | FileCheck %s --check-prefix=KEY
// KEY: all_to_all_v_bf16_d4_r64x4096
// RUN: weave-ops key all_to_all_v --team-size 4 --dtype bf16 --count 64 --algorithm put | FileCheck %s --check-prefix=ELEMENTS
// ELEMENTS: all_to_all_v_bf16_d4_n64
// Auto's choice (the choice table): the direct kernel at D = 4, packets
// for a small capacity at D = 2.
// RUN: weave-ops key all_to_all_v --team-size 4 --dtype bf16 --count 64 --row-elements 4096 | FileCheck %s --check-prefix=AUTO4
// AUTO4: direct_all_to_all_v_bf16_d4_r64x4096
// RUN: weave-ops key all_to_all_v --team-size 2 --dtype bf16 --count 64 --row-elements 8 | FileCheck %s --check-prefix=AUTO2
// AUTO2: ll_all_to_all_v_bf16_d2_r64x8
// RUN: not weave-ops key all_gather --team-size 4 --dtype bf16 --count 64 --row-elements 8 2>&1 | FileCheck %s --check-prefix=NOTV
// NOTV: error: --row-elements is for all_to_all_v (the token form)
//
// RUN: weave-ops source all_to_all_v --algorithm put --team-size 4 --dtype bf16 --count 5 --row-elements 3 -o %t.mlir
// RUN: FileCheck %s --check-prefix=SOURCE < %t.mlir
// SOURCE: %input: memref<60xbf16>
// SOURCE: %hidden = arith.constant 3 : index
// SOURCE: %from = arith.muli %fromRows, %hidden : index
// SOURCE: %to = arith.muli %toRows, %hidden : index
// SOURCE: %size = arith.muli %rows, %hidden : index
//
// The put, direct and packet kernels, each with the real offsets.
// RUN: for a in put direct ll; do for d in 2 3 4 8; do \
// RUN:   weave-ops source all_to_all_v --algorithm $a --team-size $d --dtype bf16 --count 5 --row-elements 3 -o %t.$d.mlir && \
// RUN:   weavec --check-protocol --team-size $d --check-fill counts=5,2,0,4,1,3,5,0 %t.$d.mlir || exit 1; \
// RUN: done; done | FileCheck %s --check-prefix=PASS
// PASS-COUNT-12: protocol check passed: 1 kernel, team sizes {{[2348]}}, {{.*}} 2 launches
//
// RUN: sed -e 's/%%from = arith.muli %%fromRows, %%hidden/%%from = arith.addi %%fromRows, %%c0/' -e 's/%%to = arith.muli %%toRows, %%hidden/%%to = arith.addi %%toRows, %%c0/' %t.mlir > %t.bad.mlir
// RUN: grep -c "arith.muli %%rows, %%hidden" %t.bad.mlir
// RUN: not weavec --check-protocol --team-size 4 --check-fill counts=5,2,0,4 %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=MUTANT
// MUTANT: error: race: a put (remote write) by member {{[0-9]}} (launch {{[0-9]}}) writes bytes
//
// The same mutant of the direct kernel, whose members exchange their counts
// as packets before they store straight into the peers' output: the packets
// carry the counts to the receivers (so the parts have their real sizes),
// and a reader of a packet is ordered after what its writer did before it,
// not after (so two sources' overlapping parts race).
// RUN: weave-ops source all_to_all_v --algorithm direct --team-size 4 --dtype bf16 --count 5 --row-elements 3 -o %t.direct.mlir
// RUN: weavec --check-protocol --team-size 4 --check-fill counts=5,2,0,4 %t.direct.mlir | FileCheck %s --check-prefix=DIRECT
// DIRECT: protocol check passed: 1 kernel, team sizes 4
// RUN: sed -e 's/%%from = arith.muli %%fromRows, %%hidden/%%from = arith.addi %%fromRows, %%c0/' -e 's/%%to = arith.muli %%toRows, %%hidden/%%to = arith.addi %%toRows, %%c0/' %t.direct.mlir > %t.direct.bad.mlir
// RUN: not weavec --check-protocol --team-size 4 --check-fill counts=5,2,0,4 %t.direct.bad.mlir 2>&1 | FileCheck %s --check-prefix=MUTANT
