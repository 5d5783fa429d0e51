//===- WeaveAttrs.cpp - weave attributes ----------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveDialect.h"
#include "weave/Dialect/Weave/Utils/HardwareLimits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::weave;

#include "weave/Dialect/Weave/IR/WeaveEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "weave/Dialect/Weave/IR/WeaveAttrs.cpp.inc"

void WeaveDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "weave/Dialect/Weave/IR/WeaveAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MeshAttr
//===----------------------------------------------------------------------===//

/// `#weave.mesh<axis = "x", size = 2>` or `size = ?`.
Attribute MeshAttr::parse(AsmParser &parser, Type) {
  std::string axis;
  int64_t size = ShapedType::kDynamic;
  if (parser.parseLess() || parser.parseKeyword("axis") || parser.parseEqual() ||
      parser.parseString(&axis) || parser.parseComma() ||
      parser.parseKeyword("size") || parser.parseEqual())
    return {};
  llvm::SMLoc sizeLoc = parser.getCurrentLocation();
  if (failed(parser.parseOptionalQuestion())) {
    if (parser.parseInteger(size))
      return {};
    // INT64_MIN is how a dynamic size is stored: written out, it must not
    // turn into '?'.
    if (size == ShapedType::kDynamic) {
      parser.emitError(sizeLoc) << "expects a mesh size in [1, "
                                << MeshAttr::kMaxSize << "] or '?', got "
                                << size;
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(),
                    StringAttr::get(parser.getContext(), axis), size);
}

void MeshAttr::print(AsmPrinter &printer) const {
  printer << "<axis = \"" << getAxis().getValue() << "\", size = ";
  if (isDynamic())
    printer << "?";
  else
    printer << getSize();
  printer << ">";
}

LogicalResult MeshAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringAttr axis, int64_t size) {
  if (axis.getValue().empty())
    return emitError() << "expects a non-empty mesh axis name";
  if (size != ShapedType::kDynamic && (size < 1 || size > kMaxSize))
    return emitError() << "expects a mesh size in [1, " << kMaxSize
                       << "] or '?', got " << size;
  return success();
}

//===----------------------------------------------------------------------===//
// KernelAttr
//===----------------------------------------------------------------------===//

/// `[x, y, z]`; with `allowPersistent`, x may be the keyword `persistent`.
static ParseResult parseDims(AsmParser &parser, SmallVectorImpl<int32_t> &dims,
                             bool allowPersistent = false) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        if (allowPersistent && dims.empty() &&
            succeeded(parser.parseOptionalKeyword("persistent"))) {
          // `persistent(N)`: at most N blocks, stored as -N.
          if (failed(parser.parseOptionalLParen())) {
            dims.push_back(KernelAttr::kPersistent);
            return success();
          }
          llvm::SMLoc capLoc = parser.getCurrentLocation();
          int32_t cap = 0;
          if (parser.parseInteger(cap) || parser.parseRParen())
            return failure();
          if (cap < 1)
            return parser.emitError(capLoc)
                   << "expects a persistent grid's cap to be positive, got "
                   << cap;
          dims.push_back(-cap);
          return success();
        }
        llvm::SMLoc loc = parser.getCurrentLocation();
        int32_t value = 0;
        if (parser.parseInteger(value))
          return failure();
        // 0 stands for `persistent` inside the attribute: never take it
        // from a number.
        if (allowPersistent && value == KernelAttr::kPersistent)
          return parser.emitError(loc)
                 << "expects positive grid dimensions, got 0 (a grid sized "
                    "at launch is written [persistent, 1, 1])";
        // Negative stands for `persistent(N)` inside: never a number.
        if (allowPersistent && value < 0)
          return parser.emitError(loc)
                 << "expects positive grid dimensions, got " << value;
        dims.push_back(value);
        return success();
      });
}

/// `#weave.kernel<mesh = #weave.mesh<...>, grid = [..], block = [..]
///                [, cluster = [..]] [, smem = N]>`.
Attribute KernelAttr::parse(AsmParser &parser, Type) {
  MeshAttr mesh;
  SmallVector<int32_t> grid, block, cluster;
  int64_t smem = 0;
  bool blockAuto = false, clusterAuto = false;
  if (parser.parseLess())
    return {};
  llvm::SMLoc loc = parser.getCurrentLocation();
  auto parseField = [&]() -> ParseResult {
    StringRef key;
    llvm::SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "mesh")
      return parser.parseAttribute(mesh);
    if (key == "grid")
      return parseDims(parser, grid, /*allowPersistent=*/true);
    // `auto`: chosen with the kernel's one tile(auto) pipeline by
    // weave-configure-pipelines (empty dims, smem kAutoSmem inside).
    if (key == "block") {
      blockAuto = succeeded(parser.parseOptionalKeyword("auto"));
      return blockAuto ? success() : parseDims(parser, block);
    }
    if (key == "cluster") {
      clusterAuto = succeeded(parser.parseOptionalKeyword("auto"));
      return clusterAuto ? success() : parseDims(parser, cluster);
    }
    if (key == "smem") {
      if (succeeded(parser.parseOptionalKeyword("auto"))) {
        smem = kAutoSmem;
        return success();
      }
      llvm::SMLoc smemLoc = parser.getCurrentLocation();
      if (parser.parseInteger(smem))
        return failure();
      if (smem < 0)
        return parser.emitError(smemLoc)
               << "expects dynamic shared memory in [0, "
               << hw::kMaxSharedMemoryPerBlock << "] bytes, got " << smem;
      return success();
    }
    return parser.emitError(keyLoc)
           << "unknown #weave.kernel field '" << key
           << "'; expected one of mesh, grid, block, cluster, smem";
  };
  if (parser.parseCommaSeparatedList(parseField) || parser.parseGreater())
    return {};
  if (!mesh || grid.empty() || (block.empty() && !blockAuto)) {
    parser.emitError(loc) << "#weave.kernel expects 'mesh', 'grid' and "
                             "'block' fields";
    return {};
  }
  if (cluster.empty() && !clusterAuto)
    cluster.assign(grid.size(), 1);
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), mesh, grid, block, cluster, smem);
}

static void printDims(AsmPrinter &printer, ArrayRef<int32_t> dims,
                      bool persistentX = false) {
  printer << "[";
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (i)
      printer << ", ";
    if (i == 0 && persistentX) {
      printer << "persistent";
      if (d < 0)
        printer << "(" << -d << ")";
    } else
      printer << d;
  }
  printer << "]";
}

void KernelAttr::print(AsmPrinter &printer) const {
  printer << "<mesh = ";
  printer.printAttribute(getMesh());
  printer << ", grid = ";
  printDims(printer, getGrid(), isPersistent());
  printer << ", block = ";
  if (isBlockAuto())
    printer << "auto";
  else
    printDims(printer, getBlock());
  if (isClusterAuto()) {
    printer << ", cluster = auto";
  } else if (llvm::any_of(getCluster(), [](int32_t d) { return d != 1; })) {
    printer << ", cluster = ";
    printDims(printer, getCluster());
  }
  if (isSmemAuto())
    printer << ", smem = auto";
  else if (getSmem() != 0)
    printer << ", smem = " << getSmem();
  printer << ">";
}

LogicalResult KernelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 MeshAttr mesh, ArrayRef<int32_t> grid,
                                 ArrayRef<int32_t> block,
                                 ArrayRef<int32_t> cluster, int64_t smem) {
  auto checkDims = [&](StringRef name, ArrayRef<int32_t> dims) -> LogicalResult {
    if (dims.size() != 3)
      return emitError() << "expects " << name
                         << " to have 3 dimensions [x, y, z], got "
                         << dims.size();
    for (int32_t d : dims)
      if (d < 1)
        return emitError() << "expects positive " << name
                           << " dimensions, got " << d;
    return success();
  };
  // A persistent x dimension is checked as if it were one cluster wide.
  // `auto` fields (empty block or cluster, smem kAutoSmem) are filled in
  // by weave-configure-pipelines; they are checked once they are.
  SmallVector<int32_t> autoOne(3, 1);
  if (block.empty())
    block = autoOne;
  if (cluster.empty())
    cluster = autoOne;
  bool persistent = grid.size() == 3 && grid[0] <= kPersistent;
  SmallVector<int32_t> fixedGrid(grid);
  if (persistent)
    fixedGrid[0] = cluster[0];
  // A cap is a whole number of clusters (checked below as grid x).
  if (persistent && grid[0] < kPersistent && !cluster.empty() &&
      (-grid[0]) % cluster[0] != 0)
    return emitError() << "expects a persistent grid's cap (" << -grid[0]
                       << ") to be a multiple of the cluster dimension ("
                       << cluster[0] << ")";
  if (failed(checkDims("grid", fixedGrid)) ||
      failed(checkDims("block", block)) || failed(checkDims("cluster", cluster)))
    return failure();
  if (persistent && (grid[1] != 1 || grid[2] != 1))
    return emitError() << "expects a persistent grid to be [persistent, 1, 1], "
                          "got y = "
                       << grid[1] << ", z = " << grid[2];
  int64_t threads = int64_t(block[0]) * block[1] * block[2];
  if (threads > hw::kMaxThreadsPerBlock)
    return emitError() << "expects at most " << hw::kMaxThreadsPerBlock
                       << " threads per block, got " << threads;
  int64_t clusterSize = int64_t(cluster[0]) * cluster[1] * cluster[2];
  if (clusterSize > hw::kMaxClusterBlocks)
    return emitError() << "expects at most " << hw::kMaxClusterBlocks
                       << " blocks per cluster, got " << clusterSize;
  for (int i = 0; i < 3; ++i)
    if (fixedGrid[i] % cluster[i] != 0)
      return emitError() << "expects grid dimension " << i << " (" << grid[i]
                         << ") to be a multiple of the cluster dimension ("
                         << cluster[i] << ")";
  constexpr int64_t kMaxSmem = hw::kMaxSharedMemoryPerBlock;
  if ((smem < 0 && smem != kAutoSmem) || smem > kMaxSmem)
    return emitError() << "expects dynamic shared memory in [0, " << kMaxSmem
                       << "] bytes, got " << smem;
  return success();
}

int64_t KernelAttr::getNumThreads() const {
  ArrayRef<int32_t> b = getBlock();
  return b.empty() ? 0 : int64_t(b[0]) * b[1] * b[2];
}
