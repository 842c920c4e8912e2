#include "aws/api/ssm_api.h"

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>

#include "aws/sdk/json_protocol.h"

namespace karpenter::aws {
namespace {

constexpr size_t kMaxNamesPerCall = 10;  // GetParameters refuses more

}  // namespace

Result<std::string> SsmApi::GetParameter(const std::string& name) {
  ASSIGN_OR_RETURN(nlohmann::json output,
                   CallJson(client_, kSsmJson, "GetParameter", {{"Name", name}}));
  const nlohmann::json value = output.value("/Parameter/Value"_json_pointer, nlohmann::json());
  if (!value.is_string()) {
    return Error{"ssm GetParameter " + name + ": the answer has no string Parameter.Value"};
  }
  return value.get<std::string>();
}

Result<SsmParameters> SsmApi::GetParameters(const std::vector<std::string>& names) {
  SsmParameters result;
  for (size_t start = 0; start < names.size(); start += kMaxNamesPerCall) {
    const size_t end = std::min(names.size(), start + kMaxNamesPerCall);
    const std::vector<std::string> batch(names.begin() + static_cast<std::ptrdiff_t>(start),
                                         names.begin() + static_cast<std::ptrdiff_t>(end));
    ASSIGN_OR_RETURN(nlohmann::json output,
                     CallJson(client_, kSsmJson, "GetParameters", {{"Names", batch}}));
    for (const nlohmann::json& parameter : output.value("Parameters", nlohmann::json::array())) {
      const nlohmann::json name = parameter.value("Name", nlohmann::json());
      const nlohmann::json value = parameter.value("Value", nlohmann::json());
      if (!name.is_string() || !value.is_string()) {
        return Error{"ssm GetParameters: an entry of Parameters lacks a string Name or Value"};
      }
      result.values[name.get<std::string>()] = value.get<std::string>();
    }
    for (const nlohmann::json& name : output.value("InvalidParameters", nlohmann::json::array())) {
      if (!name.is_string()) {
        return Error{"ssm GetParameters: an entry of InvalidParameters is not a string"};
      }
      result.invalid.push_back(name.get<std::string>());
    }
  }
  return result;
}

}  // namespace karpenter::aws
