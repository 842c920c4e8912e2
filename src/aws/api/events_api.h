#pragma once
// The EventBridge reads of `karpenter migrate verify`: which rules send events to the interruption
// queue, and what events each one matches — whether interruptions reach the controller at all.

#include <string>
#include <vector>

#include "aws/sdk/service_client.h"
#include "common/json.h"
#include "common/result.h"

namespace karpenter::aws {

// Not thread-safe, as its ServiceClient is not.
class EventsApi {
 public:
  // `client` is the events ServiceClient (AwsClients::events()) and must outlive this.
  explicit EventsApi(ServiceClient& client) : client_(client) {}

  // The names of the default bus's rules with a target of `target_arn`, every page.
  Result<std::vector<std::string>> ListRuleNamesByTarget(const std::string& target_arn);
  // The rule's event pattern (parsed; null when it has none, a scheduled rule). An unknown rule is
  // an Error with reason "ResourceNotFoundException".
  Result<Json> DescribeRulePattern(const std::string& name);

 private:
  ServiceClient& client_;
};

}  // namespace karpenter::aws
