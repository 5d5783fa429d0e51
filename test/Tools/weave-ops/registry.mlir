// weave-ops prints the op registry (weave/ops/Registry.h) and can make the
// kernel of every op and algorithm in it: a registered op weave-ops cannot
// print fails here.
// RUN: weave-ops ops | FileCheck %s --check-prefix=OPS
// RUN: weave-ops --list | FileCheck %s --check-prefix=OPS
// OPS: all_reduce collective f32,bf16 input,output one_shot,two_shot,push
// OPS: all_to_all_v collective f16,bf16,f32 input,counts,output put
// OPS: all_gather_matmul fused_matmul f16,bf16 a,b,c
// RUN: weave-ops kernels | FileCheck %s --check-prefix=KERNELS
// KERNELS: all_reduce collective push all_reduce/push_all_reduce push_all_reduce team offered
// KERNELS: all_reduce collective ll all_reduce/ll_all_reduce ll_all_reduce team offered
// KERNELS: all_gather collective ll all_gather/ll_all_gather ll_all_gather team offered
// KERNELS: all_gather collective ll_one_block all_gather/all_gather_ll all_gather_ll team example
// KERNELS: reduce_scatter collective ll reduce_scatter/ll_reduce_scatter ll_reduce_scatter team offered
// KERNELS: all_to_all collective ll all_to_all/ll_all_to_all ll_all_to_all team offered
// KERNELS: all_to_all_v collective direct all_to_all/direct_all_to_all_v direct_all_to_all_v team offered
// KERNELS: all_to_all_v collective ll all_to_all/ll_all_to_all_v ll_all_to_all_v team offered
// KERNELS: all_gather_matmul fused_matmul ring collective_matmul/all_gather_matmul all_gather_matmul team offered
// KERNELS-NEXT: all_gather_matmul fused_matmul gather matmul_reduce_scatter/ce_matmul ce_matmul team offered
// KERNELS: matmul_reduce_scatter fused_matmul {{.*}} matmul_reduce_scatter/matmul_reduce_scatter matmul_reduce_scatter team offered

// Every offered kernel of every op, through `weave-ops source`, in the
// op's first dtype (a fused matmul's in bf16, which every one of its
// algorithms takes: "scatter" takes no f16): the source defines the kernel the registry names (or
// its variants, <kernel>__m<first>_<last|up>_n<tile columns>: the
// all-gather matmul's per-range column tiles).
// RUN: weave-ops ops > %t.ops
// RUN: weave-ops kernels | while read -r op family algorithm template kernel team offered; do \
// RUN:   [ "$offered" = offered ] || continue; \
// RUN:   dtype=$(grep "^$op " %t.ops | cut -d' ' -f3 | cut -d, -f1); \
// RUN:   if [ "$family" = collective ]; then \
// RUN:     weave-ops source $op --team-size 2 --dtype $dtype --count 8 --algorithm $algorithm -o %t.mlir || exit 1; \
// RUN:   else \
// RUN:     weave-ops source $op --team-size 2 --dtype bf16 --m-shard 128 --k 256 --n 320 --algorithm $algorithm -o %t.mlir || exit 1; \
// RUN:   fi; \
// RUN:   grep -q -E "gpu.func @$kernel(__m[0-9]+_[0-9a-z]+_n[0-9]+)?\(" %t.mlir || { echo "no kernel $kernel"; exit 1; }; \
// RUN:   echo "made $op $algorithm"; \
// RUN: done | FileCheck %s --check-prefix=MADE
// MADE: made all_reduce one_shot
// MADE: made all_to_all_v put
// MADE: made all_gather_matmul ring
// MADE: made all_gather_matmul gather
// MADE: made all_gather_matmul copy_engine
// MADE: made matmul_reduce_scatter owner_slots
// MADE: made matmul_reduce_scatter copy_engine
// MADE: made matmul_reduce_scatter scatter
// MADE: made matmul_reduce_scatter input_gather
// KERNELS-NEXT: matmul_reduce_scatter fused_matmul owner_combine {{.*}} example
// KERNELS-NEXT: matmul_reduce_scatter fused_matmul copy_engine matmul_reduce_scatter/ce_matmul ce_matmul team offered
// KERNELS-NEXT: matmul_reduce_scatter fused_matmul scatter matmul_reduce_scatter/ce_matmul ce_matmul team offered
// KERNELS-NEXT: matmul_reduce_scatter fused_matmul input_gather matmul_reduce_scatter/ig_matmul ig_matmul team offered
// The fused ops' default ("auto"): from 2 members the copy engines'
// bundle (which "scatter", taken at small bf16 chunks, shares), the fused
// kernel for one (MatmulReduceScatter::choose).
// RUN: weave-ops key matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 128 --k 256 --n 320 | FileCheck %s --check-prefix=AUTO2
// AUTO2: ce_matmul_bf16_d2_mdyn_k256_n320
// RUN: weave-ops key matmul_reduce_scatter --team-size 1 --dtype bf16 --m-shard 128 --k 256 --n 320 | FileCheck %s --check-prefix=AUTO1
// AUTO1: matmul_reduce_scatter_bf16_d1_mdyn_k256_n320
// RUN: not weave-ops key matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 128 --k 256 --n 320 --algorithm owner_combine 2>&1 | FileCheck %s --check-prefix=NOTOFFERED
// NOTOFFERED: algorithm must be 'auto' or one of 'owner_slots', 'copy_engine', 'scatter', 'input_gather', got 'owner_combine'

// The all-gather matmul's "gather" (issue #32): "auto" takes it where one
// shard's plain matmul is at most one round of tiles (m_shard 128 to 512
// at N = 4096 in 128 x 128 tiles, 640 and 768 in 128 x 192 ones:
// AllGatherMatmul::choose), the ring elsewhere, and at D = 2 the ring at
// 384 and 512 too (shards of 2-4 row tiles whose two shards together
// exceed a round: AllGatherMatmul::ringKeepsShortShard); its
// bundle is the GEMM + reduce-scatter's copy-engine one (its ce_matmul,
// one key for both ops), with the all-gather's of m_shard x K elements
// (ops::AllGather's key).
// RUN: weave-ops ops | FileCheck %s --check-prefix=AGOPS
// AGOPS: all_gather_matmul fused_matmul f16,bf16 a,b,c ring,gather,copy_engine
// RUN: for m in 128 384 512 640 768 1024; do for d in 2 4; do \
// RUN:   weave-ops key all_gather_matmul --team-size $d --dtype bf16 --m-shard $m --k 4096 --n 4096; \
// RUN: done; done | FileCheck %s --check-prefix=AGAUTO
// AGAUTO: ce_matmul_bf16_d2_mdyn_k4096_n4096
// AGAUTO-NEXT: ce_matmul_bf16_d4_mdyn_k4096_n4096
// AGAUTO-NEXT: all_gather_matmul_bf16_d2_mdyn_k4096_n4096
// AGAUTO-NEXT: ce_matmul_bf16_d4_mdyn_k4096_n4096
// AGAUTO-NEXT: all_gather_matmul_bf16_d2_mdyn_k4096_n4096
// AGAUTO-NEXT: ce_matmul_bf16_d4_mdyn_k4096_n4096
// AGAUTO-NEXT: ce_matmul_bf16_d2_mdyn_k4096_n4096
// AGAUTO-NEXT: ce_matmul_bf16_d4_mdyn_k4096_n4096
// AGAUTO-NEXT: ce_matmul_bf16_d2_mdyn_k4096_n4096
// AGAUTO-NEXT: ce_matmul_bf16_d4_mdyn_k4096_n4096
// AGAUTO-COUNT-2: all_gather_matmul_bf16_d{{[24]}}_mdyn_k4096_n4096
// AGAUTO-NOT: {{.}}
// RUN: weave-ops key all_gather_matmul --team-size 4 --dtype bf16 --m-shard 384 --k 4096 --n 4096 --algorithm gather | FileCheck %s --check-prefix=AGCE
// RUN: weave-ops key matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 384 --k 4096 --n 4096 --algorithm copy_engine | FileCheck %s --check-prefix=AGCE
// AGCE: ce_matmul_bf16_d4_mdyn_k4096_n4096
// RUN: weave-ops key all_gather --team-size 4 --dtype bf16 --count 1572864 | FileCheck %s --check-prefix=AGGATHER
// AGGATHER: all_gather_bf16_d4_n1572864
// The all-gather is the gather's companion: what a bundle folder holds
// beside ce_matmul's (bench/gpu_libs.sh op_bundle, Python's compile_op);
// the ring has none.
// RUN: weave-ops companions all_gather_matmul --team-size 4 --dtype bf16 --m-shard 384 --k 4096 --n 4096 | FileCheck %s --check-prefix=COMPANION
// COMPANION: all_gather --team-size 4 --dtype bf16 --count 1572864
// COMPANION-NOT: {{.}}
// RUN: weave-ops companions all_gather_matmul --team-size 4 --dtype bf16 --m-shard 384 --k 4096 --n 4096 --algorithm ring | count 0
// The opt-in "copy_engine" (the copy engines push the own shard, one
// launch over every row waits for each shard's flag): a kernel of its own,
// every variant named for it and waiting in the kernel (its `ready`), the
// shards in segments that keep their width; no companion (its copies
// need no kernel).
// RUN: weave-ops key all_gather_matmul --team-size 4 --dtype bf16 --m-shard 384 --k 4096 --n 4096 --algorithm copy_engine | FileCheck %s --check-prefix=AGCEONE
// AGCEONE: ce_all_gather_matmul_bf16_d4_mdyn_k4096_n4096
// RUN: weave-ops source all_gather_matmul --team-size 4 --dtype bf16 --m-shard 384 --k 4096 --n 4096 --algorithm copy_engine | FileCheck %s --check-prefix=AGCESRC
// AGCESRC: gpu.func @ce_all_gather_matmul__m128_
// AGCESRC: %ready: !weave.semaphore<8>
// AGCESRC: weave.variant = {of = "ce_all_gather_matmul"
// AGCESRC: grid_tile_segments = 4 : i64,
// AGCESRC-NEXT: grid_tile_keep_width
// AGCESRC: weave.semaphore_wait %ready[
// RUN: weave-ops companions all_gather_matmul --team-size 4 --dtype bf16 --m-shard 640 --k 8192 --n 7168 --algorithm copy_engine | count 0
// Where b is streamed (k x n of 96 MiB or more, m_shard at most 512, past a
// round) the gather runs its all-gather beside the own shard's matmul from
// 3 members, on few blocks: the "narrow" all-gather, a bundle of its own
// (the direct kernel on 8 blocks); a team of 2 runs After, by the
// collectives' choice.
// RUN: weave-ops companions all_gather_matmul --team-size 4 --dtype bf16 --m-shard 256 --k 8192 --n 14336 | FileCheck %s --check-prefix=NARROW
// NARROW: all_gather --team-size 4 --dtype bf16 --count 2097152 --algorithm narrow
// NARROW-NOT: {{.}}
// RUN: weave-ops companions all_gather_matmul --team-size 2 --dtype bf16 --m-shard 256 --k 8192 --n 14336 | FileCheck %s --check-prefix=COMPANION2
// COMPANION2: all_gather --team-size 2 --dtype bf16 --count 2097152
// COMPANION2-NOT: {{.}}
// RUN: weave-ops key all_gather --team-size 4 --dtype bf16 --count 2097152 --algorithm narrow | FileCheck %s --check-prefix=NARROWKEY
// NARROWKEY: direct_all_gather_bf16_d4_n2097152_narrow
// RUN: weave-ops source all_gather --team-size 4 --dtype bf16 --count 2097152 --algorithm narrow | FileCheck %s --check-prefix=NARROWSRC
// NARROWSRC: grid = [persistent(8), 1, 1], block = [512, 1, 1]
// `algorithm`: what the op runs at a shape, "auto" resolved by its rule
// (the GEMM + RS's "scatter" from 3 members only up to 512 rows: at 768
// rows of 3584 x 4096 a chunk of 128 x 192 tiles is one round, and the
// copy engines measured faster; past 256 rows only up to 1.5M elements,
// so 512 x 4096 is the copy engines'; where the fused kernel's one launch
// over every member's chunk fills its rounds, 4 x 256 rows of 8192
// columns, the fused kernel); a name as it is; a bad request the op's
// error.
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 512 --k 3584 --n 3072 | FileCheck %s --check-prefix=ALGO-SCATTER
// ALGO-SCATTER: {{^scatter$}}
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 768 --k 3584 --n 4096 | FileCheck %s --check-prefix=ALGO-CE
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 512 --k 3584 --n 4096 | FileCheck %s --check-prefix=ALGO-CE
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 256 --k 7168 --n 8192 | FileCheck %s --check-prefix=ALGO-OS
// ALGO-OS: {{^owner_slots$}}
// Up to k 1536 the fused kernel where the copy engines would run, f16 too,
// and up to 2048 within 4 rounds of its tiles.
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 1024 --k 1536 --n 4096 | FileCheck %s --check-prefix=ALGO-OS
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 1536 --k 2048 --n 8192 | FileCheck %s --check-prefix=ALGO-CE
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 2048 --k 1024 --n 2048 | FileCheck %s --check-prefix=ALGO-OS
// At D = 2 the inputs gathered where they are at most twice the
// partials' bytes (MatmulReduceScatter::inputGatherWins), not at D = 4;
// K = N = 4096 gathers from m_shard 4096 (2.0), not at 2048 (3.0).
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 4096 --k 4096 --n 4096 | FileCheck %s --check-prefix=ALGO-IG
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 2048 --k 4096 --n 4096 | FileCheck %s --check-prefix=ALGO-CE
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 4096 --k 1024 --n 4096 | FileCheck %s --check-prefix=ALGO-IG
// ALGO-IG: {{^input_gather$}}
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 4096 --k 1024 --n 4096 | FileCheck %s --check-prefix=ALGO-OS
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 1024 --k 2048 --n 4096 | FileCheck %s --check-prefix=ALGO-OS
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 4 --dtype f16 --m-shard 768 --k 1024 --n 8192 | FileCheck %s --check-prefix=ALGO-OS
// RUN: weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 1024 --k 2560 --n 4096 | FileCheck %s --check-prefix=ALGO-CE
// RUN: weave-ops algorithm all_gather_matmul --team-size 4 --dtype bf16 --m-shard 640 --k 8192 --n 8192 | FileCheck %s --check-prefix=ALGO-CE
// ALGO-CE: {{^copy_engine$}}
// RUN: weave-ops algorithm all_gather_matmul --team-size 4 --dtype bf16 --m-shard 1024 --k 8192 --n 8192 | FileCheck %s --check-prefix=ALGO-RING
// RUN: weave-ops algorithm all_gather_matmul --team-size 4 --dtype bf16 --m-shard 640 --k 8192 --n 8192 --algorithm ring | FileCheck %s --check-prefix=ALGO-RING
// ALGO-RING: {{^ring$}}
// RUN: not weave-ops algorithm all_gather_matmul --team-size 4 --dtype bf16 --m-shard 100 --k 8192 --n 8192 2>&1 | FileCheck %s --check-prefix=ALGO-BAD
// ALGO-BAD: weave-ops: error: all-gather matmul: m_shard must be a multiple of 128 (the row tile), got 100
// RUN: not weave-ops algorithm all_reduce --team-size 4 --dtype bf16 --count 10 2>&1 | FileCheck %s --check-prefix=ALGO-OP
// ALGO-OP: weave-ops: error: algorithm takes a fused matmul op (all_gather_matmul, matmul_reduce_scatter), got 'all_reduce'
// The GEMM + RS's "scatter" ("auto" where a bf16 chunk is at most a
// round: here 256 rows at D = 3, where the fused kernel's launch, 192
// tiles, would not fill its rounds) runs the reduce-scatter of m_shard x
// n; the fused kernel (the same shape at D = 4) and f16 (the copy engines)
// none, and "scatter" in f16 is an error.
// RUN: weave-ops companions matmul_reduce_scatter --team-size 3 --dtype bf16 --m-shard 256 --k 7168 --n 8192 | FileCheck %s --check-prefix=RSCOMPANION
// RSCOMPANION: reduce_scatter --team-size 3 --dtype bf16 --count 2097152
// RSCOMPANION-NOT: {{.}}
// RUN: weave-ops companions matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 256 --k 7168 --n 8192 | count 0
// RUN: weave-ops companions matmul_reduce_scatter --team-size 3 --dtype f16 --m-shard 256 --k 7168 --n 8192 | count 0
// RUN: weave-ops companions matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 1024 --k 4096 --n 4096 | count 0
// RUN: not weave-ops key matmul_reduce_scatter --team-size 4 --dtype f16 --m-shard 256 --k 7168 --n 8192 --algorithm scatter 2>&1 | FileCheck %s --check-prefix=RSF16
// RSF16: matmul reduce-scatter: algorithm 'scatter' does not take dtype 'f16'
// RUN: not weave-ops companions all_reduce --team-size 4 --dtype bf16 --count 64 2>&1 | FileCheck %s --check-prefix=NOTFUSED
// NOTFUSED: companions takes a fused matmul op (all_gather_matmul, matmul_reduce_scatter), got 'all_reduce'
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype f16 --m-shard 256 --k 256 --n 320 --algorithm gather | FileCheck %s --check-prefix=AGSRC
// AGSRC: gpu.func @ce_matmul(%a: memref<?x256xf16>
// AGSRC-NEXT: %b: memref<256x320xf16>
// RUN: not weave-ops key all_gather_matmul --team-size 2 --dtype bf16 --m-shard 128 --k 256 --n 320 --algorithm owner_slots 2>&1 | FileCheck %s --check-prefix=AGBAD
// AGBAD: all-gather matmul: algorithm must be 'auto' or one of 'ring', 'gather', 'copy_engine', got 'owner_slots'
// RUN: not weave-ops key all_gather_matmul --team-size 2 --dtype bf16 --m-shard 200 --k 256 --n 320 --algorithm gather 2>&1 | FileCheck %s --check-prefix=AGSHAPE
// AGSHAPE: all-gather matmul: m_shard must be a multiple of 128 (the row tile), got 200
// RUN: not weave-ops key all_gather_matmul --team-size 1 --dtype bf16 --m-shard 128 --k 256 --n 320 --algorithm gather 2>&1 | FileCheck %s --check-prefix=AGTEAM
// AGTEAM: all-gather matmul: the team size must be at least 2

// The build has a case for every registered collective kernel: bundles of
// its template in examples/ (run by the loopback suite through the
// `collectives` checker); and where the benchmark measures an op at all,
// bundles in bench/collectives for every algorithm its choice table can
// pick (the sweep regenerates the table). Read from the Ninja build file
// (other generators: not checked).
// RUN: weave-ops kernels | while read -r op family algorithm template kernel team offered; do \
// RUN:   [ "$family" = collective ] || continue; \
// RUN:   [ -f %weave_obj_root/build.ninja ] || continue; \
// RUN:   grep -qE "^build examples/(${template%%/*}/)?${kernel}_(f16|bf16|f32)_d[a-z0-9]+_n[0-9]+\.wbundle" %weave_obj_root/build.ninja || { echo "no examples bundle of $kernel"; exit 1; }; \
// RUN:   echo "examples $kernel"; \
// RUN: done | FileCheck %s --check-prefix=BUILD
// BUILD: examples one_shot_all_reduce
// BUILD: examples all_gather_ll
// BUILD: examples all_to_all_v
// RUN: weave-ops kernels > %t.kernels
// RUN: weave-ops choices | while read -r op team bytes algorithm; do \
// RUN:   [ -f %weave_obj_root/build.ninja ] || continue; \
// RUN:   benched=no; \
// RUN:   for k in $(grep "^$op collective " %t.kernels | cut -d' ' -f5); do \
// RUN:     grep -qE "^build bench/collectives/${k}_(f16|bf16|f32)_d" %weave_obj_root/build.ninja && benched=yes; \
// RUN:   done; \
// RUN:   [ $benched = yes ] || continue; \
// RUN:   kernel=$(grep "^$op collective $algorithm " %t.kernels | cut -d' ' -f5); \
// RUN:   [ -n "$kernel" ] || { echo "no kernel for $op $algorithm"; exit 1; }; \
// RUN:   grep -qE "^build bench/collectives/${kernel}_(f16|bf16|f32)_d[a-z0-9]+_n[0-9]+\.wbundle" %weave_obj_root/build.ninja || { echo "no benchmark bundle of $kernel"; exit 1; }; \
// RUN:   echo "bench $kernel"; \
// RUN: done | FileCheck %s --check-prefix=BENCH
// BENCH: bench push_all_reduce
// BENCH: bench push_two_shot_all_reduce
// BENCH: bench two_shot_all_reduce
// BENCH: bench ll_all_to_all_v
// BENCH: bench direct_all_to_all_v
// RUN: weave-ops choices | FileCheck %s --check-prefix=CHOICES
// CHOICES: all_reduce 1-2 262144 ll
// CHOICES: all_reduce 1-2 1048576 push
// CHOICES: all_reduce 1-2 16777216 push_two_shot
// CHOICES: all_reduce 3-1024 262144 push
// CHOICES: all_reduce 3-1024 any push_two_shot
// CHOICES: all_reduce 0-1024 any two_shot
