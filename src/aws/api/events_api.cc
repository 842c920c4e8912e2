#include "aws/api/events_api.h"

#include "aws/sdk/json_protocol.h"
#include "aws/sdk/pagination.h"

namespace karpenter::aws {
namespace {

// The string member `field`; "" when it is absent or not a string (EventBridge may send null).
std::string StringAt(const Json& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Result<std::vector<std::string>> EventsApi::ListRuleNamesByTarget(const std::string& target_arn) {
  std::vector<std::string> names;
  RETURN_IF_ERROR(Paginate(
      "events ListRuleNamesByTarget", [&](const std::string& token) -> Result<std::string> {
        Json input = {{"TargetArn", target_arn}};
        if (!token.empty()) input["NextToken"] = token;
        ASSIGN_OR_RETURN(const Json output,
                         CallJson(client_, kEventsJson, "ListRuleNamesByTarget", input));
        if (const auto rules = output.find("RuleNames");
            rules != output.end() && rules->is_array()) {
          for (const Json& name : *rules) {
            if (name.is_string()) names.push_back(name.get<std::string>());
          }
        }
        return StringAt(output, "NextToken");
      }));
  return names;
}

Result<Json> EventsApi::DescribeRulePattern(const std::string& name) {
  ASSIGN_OR_RETURN(const Json output,
                   CallJson(client_, kEventsJson, "DescribeRule", {{"Name", name}}));
  const std::string pattern = StringAt(output, "EventPattern");
  if (pattern.empty()) return Json();
  Json parsed = Json::parse(pattern, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return Error("events DescribeRule " + name + ": its EventPattern is not JSON");
  }
  return parsed;
}

}  // namespace karpenter::aws
