// RUN: not weavec %s --emit=ptx --wait-timeout-ms=18446744073710 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not weavec %s --emit=ptx --wait-timeout-ms=99999999999999999999999 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not weavec %s --emit=ptx --wait-timeout-ms=abc 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not weavec %s --emit=ptx --wait-timeout-ms=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not weavec %s --emit=ptx --wait-timeout-ms= 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: weavec %s --emit=ptx --wait-timeout-ms=18446744073709 | FileCheck %s --check-prefix=MAX

// The pass takes nanoseconds: 18446744073710 ms is 2^64 + 448000 ns, which
// wrapped to a 448 us timeout. The largest count that fits is accepted.

// OVERFLOW: weavec: error: --wait-timeout-ms expects a whole number of milliseconds from 0 to 18446744073709, got '18446744073710'
// HUGE: weavec: error: --wait-timeout-ms expects a whole number of milliseconds from 0 to 18446744073709, got '99999999999999999999999'
// WORD: weavec: error: --wait-timeout-ms expects a whole number of milliseconds from 0 to 18446744073709, got 'abc'
// NEGATIVE: weavec: error: --wait-timeout-ms expects a whole number of milliseconds from 0 to 18446744073709, got '-1'
// EMPTY: weavec: error: --wait-timeout-ms expects a whole number of milliseconds from 0 to 18446744073709, got ''

// 18446744073709000000 ns = 2^64 - 551616: the spin goes on while the
// elapsed time is below it (unsigned compare with 2^64 - 551615).
// MAX-LABEL: .visible .entry k(
// MAX: %globaltimer;
// MAX: setp.lt.u64 %p{{[0-9]+}}, %rd{{[0-9]+}}, -551615;

gpu.module @m {
  gpu.func @k(%s: !weave.semaphore {weave.name = "s"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    %one = arith.constant 1 : i32
    weave.semaphore_wait %s, %one : !weave.semaphore
    gpu.return
  }
}
