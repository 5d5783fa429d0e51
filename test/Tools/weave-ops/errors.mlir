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

// A missing option is named; a value of 0 given reaches the op's own check,
// which says what is wrong with it, and a team of 0 is refused as such.
// RUN: not weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 128 --k 1024 2>&1 | FileCheck %s --check-prefix=NEED
// NEED: weave-ops: error: --team-size, --dtype, --m-shard, --k and --n are required (missing: --n)
// RUN: not weave-ops key all_reduce --team-size 2 --dtype bf16 2>&1 | FileCheck %s --check-prefix=NEEDCOUNT
// NEEDCOUNT: weave-ops: error: --team-size, --dtype and --count are required (missing: --count)
// RUN: not weave-ops algorithm matmul_reduce_scatter --team-size 2 --dtype bf16 --m-shard 0 --k 1024 --n 4096 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: weave-ops: error: matmul reduce-scatter: m_shard must be between 1 and 2^31 / team size, got 0
// RUN: not weave-ops key all_reduce --team-size 2 --dtype bf16 --count 0 2>&1 | FileCheck %s --check-prefix=ZEROCOUNT
// ZEROCOUNT: weave-ops: error: all-reduce: count must be between 1 and 2^40, got 0
// RUN: not weave-ops key all_gather_matmul --team-size 0 --dtype bf16 --m-shard 128 --k 64 --n 64 2>&1 | FileCheck %s --check-prefix=TEAM
// RUN: not weave-ops key all_reduce --team-size -3 --dtype bf16 --count 64 2>&1 | FileCheck %s --check-prefix=TEAM
// TEAM: weave-ops: error: --team-size must be at least 1, got {{0|-3}}
