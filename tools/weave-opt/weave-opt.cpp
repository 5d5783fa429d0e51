//===- weave-opt.cpp - mlir-opt with the weave dialect and passes ---------===//
//
// The test driver for lit: every upstream dialect and pass, plus the weave
// dialect and every Weave pass and pipeline.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveDialect.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"
#include "weave/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::weave::registerAllWeave(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Weave optimizer driver\n", registry));
}
