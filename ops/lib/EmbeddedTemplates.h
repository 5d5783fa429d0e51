//===- EmbeddedTemplates.h - The ops' kernel templates -----*- C++ -*-===//
//
// Generated at build time (EmbedTemplates.cmake) from ops/templates/*/*.mlir.in,
// so that the ops need no file at run time.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_EMBEDDEDTEMPLATES_H
#define WEAVE_OPS_LIB_EMBEDDEDTEMPLATES_H

#include <vector>

namespace weave::ops::detail {

struct EmbeddedTemplate {
  const char *name; ///< `<folder>/<stem>` (ops/templates/<folder>/<stem>.mlir.in)
  const char *text;
};
const std::vector<EmbeddedTemplate> &embeddedTemplates();

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_EMBEDDEDTEMPLATES_H
