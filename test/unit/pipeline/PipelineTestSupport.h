//===- PipelineTestSupport.h - building pipeline pieces in a test -*- C++ -*-===//
//
// A kernel holding one `weave.matmul_pipeline` (parsed from text), a builder
// before the op, and `IndexEvaluator`, which computes the integer value of
// the index arithmetic a piece emitted with chosen values for its free
// inputs (thread and block indices, loop variables, the smem base): the
// tests check the addresses and tile indices a piece computes, not the text
// of its ops.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_TEST_UNIT_PIPELINE_PIPELINETESTSUPPORT_H
#define WEAVE_TEST_UNIT_PIPELINE_PIPELINETESTSUPPORT_H

#include "weave/Dialect/Weave/IR/WeaveOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/DenseMap.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace weave_test {

/// A context with every dialect the pieces emit.
inline std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::weave::WeaveDialect, mlir::arith::ArithDialect,
                  mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect>();
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  return ctx;
}

/// A kernel `@k(%a, %b, %c)` whose body is one pipeline op with the given
/// attributes (the text after `tile(...) stages(...)`), shapes and types.
inline std::string pipelineKernel(int64_t m, int64_t n, int64_t k,
                                  const std::string &in,
                                  const std::string &out,
                                  const std::string &tileAndAttrs,
                                  int64_t cluster = 1) {
  std::string a = "memref<" + std::to_string(m) + "x" + std::to_string(k) +
                  "x" + in + ">";
  std::string b = "memref<" + std::to_string(k) + "x" + std::to_string(n) +
                  "x" + in + ">";
  std::string c = "memref<" + std::to_string(m) + "x" + std::to_string(n) +
                  "x" + out + ">";
  return "module attributes {gpu.container_module} {\n"
         "gpu.module @m {\n"
         "  gpu.func @k(%a: " + a + ", %b: " + b + ", %c: " + c + ") kernel\n"
         "      attributes {weave.kernel = #weave.kernel<\n"
         "          mesh = #weave.mesh<axis = \"x\", size = ?>,\n"
         "          grid = [132, 1, 1], cluster = [" + std::to_string(cluster) +
         ", 1, 1], block = [384, 1, 1], smem = 232448>} {\n"
         "    weave.matmul_pipeline %a, %b into %c " + tileAndAttrs + "\n"
         "        : " + a + ", " + b + " into " + c + "\n"
         "    gpu.return\n  }\n}\n}\n";
}

/// The parsed module and its pipeline op.
struct PipelineModule {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::weave::MatmulPipelineOp op;

  static PipelineModule parse(mlir::MLIRContext &ctx, const std::string &text) {
    PipelineModule result;
    result.module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
    if (!result.module) {
      ADD_FAILURE() << "does not parse:\n" << text;
      return result;
    }
    result.module->walk(
        [&](mlir::weave::MatmulPipelineOp op) { result.op = op; });
    EXPECT_TRUE(result.op);
    return result;
  }
  mlir::gpu::GPUFuncOp kernel() {
    return op->getParentOfType<mlir::gpu::GPUFuncOp>();
  }
};

/// Computes index/integer arithmetic from constants and bound values.
class IndexEvaluator {
public:
  void bind(mlir::Value v, int64_t x) { bound[v] = x; }

  /// The value of `v`, or nullopt if it depends on an unbound input or an
  /// op the evaluator does not know.
  std::optional<int64_t> eval(mlir::Value v) {
    using namespace mlir;
    if (auto it = bound.find(v); it != bound.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto c = dyn_cast<arith::ConstantOp>(def)) {
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        return i.getValue().getSExtValue();
      return std::nullopt;
    }
    if (isa<arith::IndexCastOp, LLVM::IntToPtrOp, LLVM::PtrToIntOp>(def))
      return eval(def->getOperand(0));
    if (auto sel = dyn_cast<arith::SelectOp>(def)) {
      auto c = eval(sel.getCondition());
      if (!c)
        return std::nullopt;
      return eval(*c ? sel.getTrueValue() : sel.getFalseValue());
    }
    if (def->getNumOperands() != 2)
      return std::nullopt;
    auto x = eval(def->getOperand(0)), y = eval(def->getOperand(1));
    if (!x || !y)
      return std::nullopt;
    uint64_t ux = *x, uy = *y;
    if (isa<arith::AddIOp>(def)) return *x + *y;
    if (isa<arith::SubIOp>(def)) return *x - *y;
    if (isa<arith::MulIOp>(def)) return *x * *y;
    if (isa<arith::DivUIOp>(def)) return int64_t(ux / uy);
    if (isa<arith::RemUIOp>(def)) return int64_t(ux % uy);
    if (isa<arith::CeilDivUIOp>(def)) return int64_t((ux + uy - 1) / uy);
    if (isa<arith::MinUIOp>(def)) return int64_t(std::min(ux, uy));
    if (isa<arith::MaxUIOp>(def)) return int64_t(std::max(ux, uy));
    if (isa<arith::XOrIOp>(def)) return *x ^ *y;
    if (isa<arith::AndIOp>(def)) return *x & *y;
    if (isa<arith::OrIOp>(def)) return *x | *y;
    if (isa<arith::ShRUIOp>(def)) return int64_t(ux >> uy);
    if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
      switch (cmp.getPredicate()) {
      case arith::CmpIPredicate::eq: return *x == *y;
      case arith::CmpIPredicate::ult: return ux < uy;
      case arith::CmpIPredicate::uge: return ux >= uy;
      case arith::CmpIPredicate::ugt: return ux > uy;
      case arith::CmpIPredicate::ule: return ux <= uy;
      case arith::CmpIPredicate::ne: return *x != *y;
      default: return std::nullopt;
      }
    }
    return std::nullopt;
  }
  /// eval() that fails the test when the value cannot be computed.
  int64_t operator()(mlir::Value v) {
    std::optional<int64_t> x = eval(v);
    EXPECT_TRUE(x.has_value()) << "cannot evaluate a value";
    return x.value_or(-1);
  }

private:
  llvm::DenseMap<mlir::Value, int64_t> bound;
};

/// Ops of type OpTy nested under `root`, in order.
template <typename OpTy>
llvm::SmallVector<OpTy> collect(mlir::Operation *root) {
  llvm::SmallVector<OpTy> ops;
  root->walk([&](OpTy op) { ops.push_back(op); });
  return ops;
}

} // namespace weave_test

#endif // WEAVE_TEST_UNIT_PIPELINE_PIPELINETESTSUPPORT_H
