#pragma once
// Errors as values at every boundary: Result<T> holds either a T or an Error with a message that
// names where the problem is (file, object, field) and why.

#include <string>
#include <utility>
#include <variant>

namespace karpenter {

// `status` and `reason` classify errors from remote APIs so callers can act on them: the HTTP
// status (404, 409, 410, 429, …; 0 for local errors) and the machine-readable reason ("NotFound",
// "Conflict", "Expired", "TooManyRequests"; an AWS error code such as "RequestLimitExceeded").
struct Error {
  Error() = default;
  explicit Error(std::string message) : message(std::move(message)) {}
  Error(std::string message, int status, std::string reason)
      : message(std::move(message)), status(status), reason(std::move(reason)) {}

  std::string message;
  int status = 0;
  std::string reason;
};

template <class T>
class [[nodiscard]] Result {
 public:
  // Implicit on purpose: `return value;` and `return Error{...};` both make a Result.
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(T value) : state_(std::move(value)) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// A Result without a value: success, or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(Error error) : error_(std::move(error)), ok_(false) {}

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace karpenter

// Propagation helpers, after abseil's status macros: the common "if it failed, return its error"
// in one line, so that the lines left say what the function does.
//
//   RETURN_IF_ERROR(Validate(object));             // a Status or any Result
//   ASSIGN_OR_RETURN(Config config, LoadConfig(path));  // declares (or assigns) the value
//
// Both return the error unchanged; where the caller should add context (which file, which field),
// write the `if` by hand.
#define KARPENTER_RESULT_CONCAT_INNER(a, b) a##b
#define KARPENTER_RESULT_CONCAT(a, b) KARPENTER_RESULT_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                                       \
  do {                                                              \
    if (auto karpenter_status_ = (expr); !karpenter_status_.ok()) { \
      return karpenter_status_.error();                             \
    }                                                               \
  } while (false)

#define ASSIGN_OR_RETURN(lhs, expr) \
  KARPENTER_ASSIGN_OR_RETURN_IMPL(KARPENTER_RESULT_CONCAT(karpenter_result_, __LINE__), lhs, expr)

// `result` names a variable and `lhs` may be a declaration: neither can be parenthesized.
#define KARPENTER_ASSIGN_OR_RETURN_IMPL(result, lhs, expr)                          \
  auto result = (expr);                    /* NOLINT(bugprone-macro-parentheses) */ \
  if (!result.ok()) return result.error(); /* NOLINT(bugprone-macro-parentheses) */ \
  lhs = std::move(result).value()          /* NOLINT(bugprone-macro-parentheses) */
