#include "aws/api/sqs_api.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "aws/sdk/json_protocol.h"

namespace karpenter::aws {
namespace {

// The string member `field` of `object`, or an Error naming the operation and the field.
Result<std::string> RequiredString(const nlohmann::json& object, const std::string& field,
                                   const std::string& operation) {
  const nlohmann::json value = object.value(field, nlohmann::json());
  if (!value.is_string()) return Error{"sqs " + operation + ": the answer has no string " + field};
  return value.get<std::string>();
}

}  // namespace

Result<std::string> SqsApi::GetQueueUrl(const std::string& queue_name) {
  Result<nlohmann::json> output =
      CallJson(client_, kSqsJson, "GetQueueUrl", {{"QueueName", queue_name}});
  if (!output.ok()) return output.error();
  return RequiredString(*output, "QueueUrl", "GetQueueUrl " + queue_name);
}

Result<std::vector<SqsMessage>> SqsApi::ReceiveMessage(const std::string& queue_url,
                                                       const ReceiveOptions& options) {
  const nlohmann::json input = {{"QueueUrl", queue_url},
                                {"MaxNumberOfMessages", options.max_messages},
                                {"WaitTimeSeconds", options.wait_seconds},
                                {"VisibilityTimeout", options.visibility_seconds}};
  Result<nlohmann::json> output = CallJson(client_, kSqsJson, "ReceiveMessage", input);
  if (!output.ok()) return output.error();
  std::vector<SqsMessage> messages;
  for (const nlohmann::json& message : output->value("Messages", nlohmann::json::array())) {
    const std::string operation =
        "ReceiveMessage " + queue_url + " Messages[" + std::to_string(messages.size()) + "]";
    Result<std::string> id = RequiredString(message, "MessageId", operation);
    if (!id.ok()) return id.error();
    Result<std::string> handle = RequiredString(message, "ReceiptHandle", operation);
    if (!handle.ok()) return handle.error();
    Result<std::string> body = RequiredString(message, "Body", operation);
    if (!body.ok()) return body.error();
    messages.push_back(SqsMessage{std::move(*id), std::move(*handle), std::move(*body)});
  }
  return messages;
}

Status SqsApi::DeleteMessage(const std::string& queue_url, const std::string& receipt_handle) {
  Result<nlohmann::json> output =
      CallJson(client_, kSqsJson, "DeleteMessage",
               {{"QueueUrl", queue_url}, {"ReceiptHandle", receipt_handle}});
  if (!output.ok()) return output.error();
  return {};
}

Result<std::string> SqsApi::SendMessage(const std::string& queue_url, const std::string& body) {
  Result<nlohmann::json> output =
      CallJson(client_, kSqsJson, "SendMessage", {{"QueueUrl", queue_url}, {"MessageBody", body}});
  if (!output.ok()) return output.error();
  return RequiredString(*output, "MessageId", "SendMessage " + queue_url);
}

}  // namespace karpenter::aws
