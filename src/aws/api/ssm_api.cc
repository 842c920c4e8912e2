#include "aws/api/ssm_api.h"

#include "aws/sdk/json_protocol.h"
#include "common/json.h"

namespace karpenter::aws {

Result<std::string> SsmApi::GetParameter(const std::string& name) {
  ASSIGN_OR_RETURN(Json output, CallJson(client_, kSsmJson, "GetParameter", {{"Name", name}}));
  const Json value = output.value("/Parameter/Value"_json_pointer, Json());
  if (!value.is_string()) {
    return Error{"ssm GetParameter " + name + ": the answer has no string Parameter.Value"};
  }
  return value.get<std::string>();
}

}  // namespace karpenter::aws
