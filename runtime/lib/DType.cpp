//===- DType.cpp - The one error for an unknown dtype ---------------------===//

#include "weave/runtime/DType.h"

namespace weave {

Expected<DType> parseDType(std::string_view name) {
  if (std::optional<DType> dtype = findDType(name))
    return *dtype;
  return Error(ErrorCode::InvalidArgument,
               "unknown dtype '" + std::string(name) + "' (expected " +
                   dtypeNames([](const DTypeTraits &) { return true; },
                              " or ") +
                   ")");
}

} // namespace weave
