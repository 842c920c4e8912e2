#include "aws/api/sqs_api.h"

#include <utility>

#include "aws/sdk/json_protocol.h"
#include "common/json.h"

namespace karpenter::aws {
namespace {

// The string member `field` of `object`, or an Error naming the operation and the field.
Result<std::string> RequiredString(const Json& object, const std::string& field,
                                   const std::string& operation) {
  const Json value = object.is_object() ? object.value(field, Json()) : Json();
  if (!value.is_string()) return Error{"sqs " + operation + ": the answer has no string " + field};
  return value.get<std::string>();
}

}  // namespace

Result<std::string> SqsApi::GetQueueUrl(const std::string& queue_name) {
  ASSIGN_OR_RETURN(Json output,
                   CallJson(client_, kSqsJson, "GetQueueUrl", {{"QueueName", queue_name}}));
  return RequiredString(output, "QueueUrl", "GetQueueUrl " + queue_name);
}

Result<std::vector<SqsMessage>> SqsApi::ReceiveMessage(const std::string& queue_url,
                                                       const ReceiveOptions& options) {
  const Json input = {{"QueueUrl", queue_url},
                      {"MaxNumberOfMessages", options.max_messages},
                      {"WaitTimeSeconds", options.wait_seconds},
                      {"VisibilityTimeout", options.visibility_seconds}};
  ASSIGN_OR_RETURN(Json output, CallJson(client_, kSqsJson, "ReceiveMessage", input));
  const Json listed = output.value("Messages", Json::array());
  if (!listed.is_array()) {
    return Error{"sqs ReceiveMessage " + queue_url + ": Messages is not a list"};
  }
  std::vector<SqsMessage> messages;
  for (const Json& message : listed) {
    const std::string operation =
        "ReceiveMessage " + queue_url + " Messages[" + std::to_string(messages.size()) + "]";
    ASSIGN_OR_RETURN(std::string id, RequiredString(message, "MessageId", operation));
    ASSIGN_OR_RETURN(std::string handle, RequiredString(message, "ReceiptHandle", operation));
    ASSIGN_OR_RETURN(std::string body, RequiredString(message, "Body", operation));
    messages.push_back(SqsMessage{std::move(id), std::move(handle), std::move(body)});
  }
  return messages;
}

Status SqsApi::DeleteMessage(const std::string& queue_url, const std::string& receipt_handle) {
  ASSIGN_OR_RETURN(Json output,
                   CallJson(client_, kSqsJson, "DeleteMessage",
                            {{"QueueUrl", queue_url}, {"ReceiptHandle", receipt_handle}}));
  return {};
}

Result<std::string> SqsApi::SendMessage(const std::string& queue_url, const std::string& body) {
  ASSIGN_OR_RETURN(Json output, CallJson(client_, kSqsJson, "SendMessage",
                                         {{"QueueUrl", queue_url}, {"MessageBody", body}}));
  return RequiredString(output, "MessageId", "SendMessage " + queue_url);
}

}  // namespace karpenter::aws
