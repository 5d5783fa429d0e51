//===- Error.cpp - The runtime's one error type ---------------------------===//

#include "weave/runtime/Error.h"

namespace weave {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::DriverError:
    return "DriverError";
  case ErrorCode::InvalidArgument:
    return "InvalidArgument";
  case ErrorCode::InvalidBundle:
    return "InvalidBundle";
  case ErrorCode::NotFound:
    return "NotFound";
  case ErrorCode::PeerAccess:
    return "PeerAccess";
  case ErrorCode::Timeout:
    return "Timeout";
  case ErrorCode::System:
    return "System";
  case ErrorCode::CompileError:
    return "CompileError";
  case ErrorCode::Exhausted:
    return "Exhausted";
  }
  return "UnknownError";
}

Error Error::driver(int result, std::string resultName, std::string call,
                    std::string context, std::string location) {
  Error error(ErrorCode::DriverError,
              context + ": " + call + " failed with " + resultName + " (" +
                  std::to_string(result) + ")");
  error.driverResult_ = result;
  error.driverResultName_ = std::move(resultName);
  error.call_ = std::move(call);
  error.context_ = std::move(context);
  error.location_ = std::move(location);
  return error;
}

Error &&Error::addContext(const std::string &what) && {
  message_ = what + ": " + message_;
  context_ = context_.empty() ? what : what + ": " + context_;
  return std::move(*this);
}

std::string Error::toString() const {
  std::string text = std::string(errorCodeName(code_)) + ": " + message_;
  if (!location_.empty())
    text += " [" + location_ + "]";
  return text;
}

namespace detail {
void fatalUnchecked(const Error *error, const char *what) {
  std::fprintf(stderr, "weave: fatal: %s%s%s\n", what,
               error ? " holds an error: " : "",
               error ? error->toString().c_str() : "");
  std::fflush(stderr);
  std::abort();
}
} // namespace detail

} // namespace weave
