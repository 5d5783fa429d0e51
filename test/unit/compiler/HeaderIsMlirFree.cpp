// Compiled by the ctest `weave_compiler_header_is_mlir_free` with only the
// runtime and compiler include directories: weave/Compiler.h must not pull in
// an MLIR or LLVM header (programs that JIT-compile kernels need only it).
#include "weave/Compiler.h"

weave::Expected<weave::Bundle> compileForTest(weave::Compiler &compiler) {
  return compiler.compileString("gpu.module @m {}");
}
