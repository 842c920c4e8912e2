#pragma once
// The environment variables the SDK reads (AWS_REGION, AWS_ENDPOINT_URL, AWS_PROFILE, …), passed
// as a value so tests state theirs instead of changing the process's.

#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace karpenter::aws {

class Environment {
 public:
  Environment() = default;
  explicit Environment(std::map<std::string, std::string, std::less<>> variables)
      : variables_(std::move(variables)) {}
  // A copy of this process's environment.
  static Environment OfProcess();

  // The variable's value; empty when unset or empty.
  std::string_view Get(std::string_view name) const;
  // Whether the variable is "true", in any case (AWS_EC2_METADATA_DISABLED=TRUE).
  bool IsTrue(std::string_view name) const;
  // AWS_REGION, else AWS_DEFAULT_REGION; empty when neither is set.
  std::string_view Region() const;

 private:
  std::map<std::string, std::string, std::less<>> variables_;
};

}  // namespace karpenter::aws
