#include "aws/api/ssm_api.h"

#include <nlohmann/json.hpp>

#include "aws/sdk/json_protocol.h"

namespace karpenter::aws {

Result<std::string> SsmApi::GetParameter(const std::string& name) {
  ASSIGN_OR_RETURN(nlohmann::json output,
                   CallJson(client_, kSsmJson, "GetParameter", {{"Name", name}}));
  const nlohmann::json value = output.value("/Parameter/Value"_json_pointer, nlohmann::json());
  if (!value.is_string()) {
    return Error{"ssm GetParameter " + name + ": the answer has no string Parameter.Value"};
  }
  return value.get<std::string>();
}

}  // namespace karpenter::aws
