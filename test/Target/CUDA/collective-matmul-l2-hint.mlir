// The all-gather matmul's forwarding store carries the evict-first L2
// policy at D = 2 only (ops/templates/collective_matmul: measured faster at
// the 70B gate/up shape on 2 x H100, slower at D = 4): in the op's instance
// every variant's one forwarding store has it at team size 2 and none does
// at 4; the epilogue's stores and the pipeline's loads never. The three
// variants of m_shard up to 512 push instead (PUSH = 1: the forwarding
// folds away), the four above forward. The seven variants are five
// functions: those of 640-768 and 1152 rows (192 columns) share one, as
// do 896-1024 and 1280 up (256 columns): their code is the same
// (compiler/include/weave/Pipeline/SharedVariants.h), so two of the
// functions forward.
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype bf16 --m-shard 128 --k 4096 --n 4096 --algorithm ring -o %t.d2.mlir
// RUN: weavec %t.d2.mlir --emit=ptx -o %t.d2.ptx
// RUN: grep -c '^.visible .entry' %t.d2.ptx | FileCheck %s --check-prefix=FIVE
// RUN: grep -c 'cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint' %t.d2.ptx | FileCheck %s --check-prefix=TWO
// RUN: grep -c 'L2::cache_hint' %t.d2.ptx | FileCheck %s --check-prefix=TWO
// FIVE: 5
// TWO: 2
// RUN: weave-ops source all_gather_matmul --team-size 4 --dtype bf16 --m-shard 128 --k 4096 --n 4096 --algorithm ring -o %t.d4.mlir
// RUN: weavec %t.d4.mlir --emit=ptx -o %t.d4.ptx
// RUN: grep -c 'cp.async.bulk.tensor.2d.global.shared::cta' %t.d4.ptx
// RUN: not grep 'L2::cache_hint' %t.d4.ptx
