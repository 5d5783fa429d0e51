//===- ops.h - Weave's ready-made ops (umbrella header) ---------*- C++ -*-===//
//
// Collectives and fused matmuls on a team, each a dialect kernel of ops/templates/ instantiated for
// the op's shape (docs/OPS.md). Link Weave::ops; for JitSource also
// Weave::jit.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_H
#define WEAVE_OPS_H

#include "weave/ops/Collectives.h"
#include "weave/ops/Communicator.h"
#include "weave/ops/FusedMatmul.h"
#include "weave/ops/KernelSource.h"
#include "weave/ops/Registry.h"

#endif // WEAVE_OPS_H
