// weave-ops reports bad input as an error (exit 1), never an abort.
// RUN: rm -rf %t && mkdir -p %t/dir
// RUN: not weave-ops instantiate %t/dir --team-size 2 --dtype f32 --count 8 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: weave-ops: error: cannot read the template {{.*}}dir: it is a directory, expected a .mlir.in file
// RUN: not weave-ops instantiate %t/missing.mlir.in --team-size 2 --dtype f32 --count 8 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: weave-ops: error: cannot read the template {{.*}}missing.mlir.in: not a readable file

// A count whose derived values (D x count, ...) overflow 64 bits.
// RUN: not weave-ops instantiate %s --team-size 4 --dtype f32 --count 4611686018427387904 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: weave-ops: error: --count must be between 1 and 2^40 and --team-size at most 65536

// m_shard x team size past 2^31, where the product itself overflows 64 bits
// (it wrapped into a small, valid-looking shard).
// RUN: not weave-ops key matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 4611686018427387904 --k 64 --n 64 2>&1 | FileCheck %s --check-prefix=MSHARD
// RUN: not weave-ops key all_gather_matmul --team-size 4 --dtype bf16 --m-shard 4611686018427387904 --k 64 --n 64 2>&1 | FileCheck %s --check-prefix=MSHARD
// MSHARD: m_shard must be between 1 and 2^31 / team size, got 4611686018427387904
// RUN: weave-ops key matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 536870912 --k 64 --n 64
// RUN: not weave-ops key matmul_reduce_scatter --team-size 4 --dtype bf16 --m-shard 536870913 --k 64 --n 64
