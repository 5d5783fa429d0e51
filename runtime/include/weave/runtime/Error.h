//===- Error.h - The runtime's one error type -------------------*- C++ -*-===//
//
// Error, Expected<T> and Status: how every fallible runtime call reports.
// This header must not include cuda.h: the bundle library uses it on machines
// built without CUDA, so the driver result is stored as a plain int.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_ERROR_H
#define WEAVE_RUNTIME_ERROR_H

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace weave {

/// What kind of failure an Error describes.
enum class ErrorCode {
  DriverError,     ///< a CUDA driver call failed
  InvalidArgument, ///< the caller passed something the runtime cannot use
  InvalidBundle,   ///< a bundle file or manifest is malformed or inconsistent
  NotFound,        ///< a named kernel, device or file does not exist
  PeerAccess,      ///< two devices cannot map each other's memory
  Timeout,         ///< a peer (rank) did not answer before the deadline
  System,          ///< a POSIX call failed (errno is in the message)
  CompileError,    ///< weave::Compiler rejected a kernel (the message holds
                   ///< its `name:line:col: error: ...` diagnostics)
  Exhausted,       ///< a symmetric heap or its signal pad has no room left
                   ///< for a request that a freer heap would take: callers
                   ///< that keep allocations (the ops' workspaces) can free
                   ///< some and retry
};

/// Returns the enumerator's name, e.g. "InvalidBundle".
const char *errorCodeName(ErrorCode code);

/// A failure: a code, a human-readable message and, for driver failures, the
/// CUresult (as int) with its name, the failing call's text and what the
/// runtime was doing when it failed.
class Error {
public:
  Error(ErrorCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  /// A driver failure; `resultName` is e.g. "CUDA_ERROR_INVALID_VALUE".
  static Error driver(int result, std::string resultName, std::string call,
                      std::string context, std::string location);

  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// The CUresult of a DriverError, 0 (CUDA_SUCCESS) otherwise.
  int driverResult() const { return driverResult_; }
  const std::string &driverResultName() const { return driverResultName_; }
  /// The source text of the failing call, e.g. "cuMemMap(...)".
  const std::string &call() const { return call_; }
  /// What the runtime was doing, e.g. "mapping rank 1's heap on device 0".
  const std::string &context() const { return context_; }
  /// file:line of the failing call, when known.
  const std::string &location() const { return location_; }

  /// Adds an outer context: "while X: <old message>".
  Error &&addContext(const std::string &what) &&;

  /// One line with everything, e.g.
  /// "DriverError: mapping heap: cuMemMap(...) failed with CUDA_ERROR_... (1)".
  std::string toString() const;

private:
  ErrorCode code_;
  std::string message_;
  int driverResult_ = 0;
  std::string driverResultName_;
  std::string call_;
  std::string context_;
  std::string location_;
};

namespace detail {
[[noreturn]] void fatalUnchecked(const Error *error, const char *what);
} // namespace detail

/// Either a T or an Error. Never throws: reading the wrong alternative is a
/// programming error that prints the error and aborts.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error error) : storage_(std::in_place_index<1>, std::move(error)) {}
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U &&> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Error>>>
  Expected(U &&value)
      : storage_(std::in_place_index<0>, T(std::forward<U>(value))) {}

  bool hasValue() const { return storage_.index() == 0; }
  explicit operator bool() const { return hasValue(); }

  T &value() & {
    check();
    return std::get<0>(storage_);
  }
  const T &value() const & {
    check();
    return std::get<0>(storage_);
  }
  T &&value() && {
    check();
    return std::get<0>(std::move(storage_));
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  const Error &error() const {
    if (hasValue())
      detail::fatalUnchecked(nullptr, "Expected::error() on a value");
    return std::get<1>(storage_);
  }
  Error takeError() && {
    if (hasValue())
      detail::fatalUnchecked(nullptr, "Expected::takeError() on a value");
    return std::get<1>(std::move(storage_));
  }

private:
  void check() const {
    if (!hasValue())
      detail::fatalUnchecked(&std::get<1>(storage_), "Expected::value()");
  }
  std::variant<T, Error> storage_;
};

/// Success or an Error.
template <> class [[nodiscard]] Expected<void> {
public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)) {}

  bool hasValue() const { return !error_.has_value(); }
  explicit operator bool() const { return hasValue(); }
  void value() const {
    if (error_)
      detail::fatalUnchecked(&*error_, "Expected<void>::value()");
  }
  const Error &error() const {
    if (!error_)
      detail::fatalUnchecked(nullptr, "Expected<void>::error() on success");
    return *error_;
  }
  Error takeError() && {
    if (!error_)
      detail::fatalUnchecked(nullptr, "Expected<void>::takeError() on success");
    return std::move(*error_);
  }

private:
  std::optional<Error> error_;
};

using Status = Expected<void>;

/// A successful Status.
inline Status ok() { return Status(); }

namespace detail {
/// Builds the Error for a failed driver call; defined in WeaveRuntime (it
/// needs cuGetErrorName), so only CUDA-linked code may expand WEAVE_CU_TRY.
Error driverError(int result, const char *call, const std::string &context,
                  const char *file, int line);
} // namespace detail

} // namespace weave

#define WEAVE_CONCAT_IMPL(a, b) a##b
#define WEAVE_CONCAT(a, b) WEAVE_CONCAT_IMPL(a, b)

/// Runs a CUDA driver call; on failure returns an Error (DriverError) from the
/// enclosing function, naming the call and `what` the runtime was doing.
#define WEAVE_CU_TRY(call, what)                                               \
  do {                                                                         \
    int weaveCuResult_ = static_cast<int>(call);                               \
    if (weaveCuResult_ != 0)                                                   \
      return ::weave::detail::driverError(weaveCuResult_, #call, (what),       \
                                          __FILE__, __LINE__);                 \
  } while (false)

/// Evaluates a Status-returning expression and returns its Error on failure.
#define WEAVE_TRY(expr)                                                        \
  do {                                                                         \
    auto weaveTry_ = (expr);                                                   \
    if (!weaveTry_)                                                            \
      return std::move(weaveTry_).takeError();                                 \
  } while (false)

/// `WEAVE_ASSIGN_OR_RETURN(auto x, f());` declares/assigns x from an Expected
/// or returns its Error.
#define WEAVE_ASSIGN_OR_RETURN(lhs, expr)                                      \
  WEAVE_ASSIGN_OR_RETURN_IMPL(WEAVE_CONCAT(weaveExp_, __LINE__), lhs, expr)
#define WEAVE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                            \
  auto tmp = (expr);                                                           \
  if (!tmp)                                                                    \
    return std::move(tmp).takeError();                                         \
  lhs = std::move(tmp).value()

#endif // WEAVE_RUNTIME_ERROR_H
