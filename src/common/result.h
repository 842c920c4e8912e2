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
