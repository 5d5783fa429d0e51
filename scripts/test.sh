#!/usr/bin/env bash
# Runs every test (lit, then GoogleTest through ctest) and prints one summary.
set -uo pipefail
BUILD_DIR=${1:-build}
LIT=/usr/lib/llvm-22/bin/lit
# Tests run in parallel, one per core (lit does by default): every test
# works in its own temporary directory (mkdtemp, the test's own build
# subdirectory) and none listens on a fixed port. JOBS overrides.
JOBS=${JOBS:-$(nproc)}

lit_status=0
if [ -f "$BUILD_DIR/test/lit.site.cfg.py" ]; then
  "$LIT" -sv -j "$JOBS" --xunit-xml-output="$BUILD_DIR/lit-results.xml" "$BUILD_DIR/test" | tee "$BUILD_DIR/lit.log"
  lit_status=${PIPESTATUS[0]}
fi

ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -E '^lit$' | tee "$BUILD_DIR/ctest.log"
ctest_status=${PIPESTATUS[0]}

lit_pass=$(grep -oE 'Passed *: *[0-9]+' "$BUILD_DIR/lit.log" 2>/dev/null | grep -oE '[0-9]+' || echo 0)
lit_fail=$(grep -oE '(Failed|Unresolved|Timed Out) *: *[0-9]+' "$BUILD_DIR/lit.log" 2>/dev/null | grep -oE '[0-9]+' | paste -sd+ | bc 2>/dev/null || echo 0)
lit_skip=$(grep -oE 'Unsupported *: *[0-9]+' "$BUILD_DIR/lit.log" 2>/dev/null | grep -oE '[0-9]+' || echo 0)
unit_total=$(grep -oE 'tests passed, [0-9]+ tests failed out of [0-9]+' "$BUILD_DIR/ctest.log" | grep -oE '[0-9]+$' || echo 0)
unit_fail=$(grep -oE '[0-9]+ tests failed out of' "$BUILD_DIR/ctest.log" | grep -oE '^[0-9]+' || echo 0)
unit_skip=$(grep -cE '\*\*\*Skipped|Not Run' "$BUILD_DIR/ctest.log" || true)
passed=$(( ${lit_pass:-0} + ${unit_total:-0} - ${unit_fail:-0} - ${unit_skip:-0} ))
failed=$(( ${lit_fail:-0} + ${unit_fail:-0} ))
skipped=$(( ${lit_skip:-0} + ${unit_skip:-0} ))
echo
echo "lit: ${lit_pass:-0} passed, ${lit_fail:-0} failed, ${lit_skip:-0} unsupported; unit: $(( ${unit_total:-0} - ${unit_fail:-0} )) of ${unit_total:-0} passed"
echo "weave: $passed passed, $failed failed, $skipped skipped"
if [ "$lit_status" -ne 0 ] || [ "$ctest_status" -ne 0 ]; then exit 1; fi
