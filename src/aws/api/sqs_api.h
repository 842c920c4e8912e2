#pragma once
// The SQS calls of the interruption controller: find the queue EventBridge feeds with spot
// interruptions, rebalance recommendations and instance state changes; receive its messages
// and delete those handled. SendMessage is for tests and tools that feed the queue.

#include <string>
#include <vector>

#include "aws/sdk/service_client.h"
#include "common/result.h"

namespace karpenter::aws {

struct SqsMessage {
  std::string message_id;
  std::string receipt_handle;  // what DeleteMessage needs; changes with every receipt
  std::string body;
};

struct ReceiveOptions {
  int max_messages = 10;        // 1 to 10
  int wait_seconds = 20;        // long polling: 0 to 20
  int visibility_seconds = 30;  // hidden from other receivers for this long
};

// Not thread-safe, as its ServiceClient is not.
class SqsApi {
 public:
  // `client` is the sqs ServiceClient (AwsClients::sqs()) and must outlive this.
  explicit SqsApi(ServiceClient& client) : client_(client) {}

  Result<std::string> GetQueueUrl(const std::string& queue_name);
  // Waits up to options.wait_seconds for messages; no messages is an empty list.
  Result<std::vector<SqsMessage>> ReceiveMessage(const std::string& queue_url,
                                                 const ReceiveOptions& options = {});
  Status DeleteMessage(const std::string& queue_url, const std::string& receipt_handle);
  // The new message's id.
  Result<std::string> SendMessage(const std::string& queue_url, const std::string& body);

 private:
  ServiceClient& client_;
};

}  // namespace karpenter::aws
