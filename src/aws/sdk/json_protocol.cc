#include "aws/sdk/json_protocol.h"

#include <string>

namespace karpenter::aws {
namespace {

// "com.amazonaws.sqs#QueueDoesNotExist" and "ThrottlingException:http://internal…" both name
// their code between the '#' and the ':'.
std::string_view BareCode(std::string_view type) {
  if (const size_t hash = type.rfind('#'); hash != std::string_view::npos) {
    type.remove_prefix(hash + 1);
  }
  return type.substr(0, type.find(':'));
}

std::string StringField(const Json& body, const char* name) {
  const auto found = body.find(name);
  return found != body.end() && found->is_string() ? found->get<std::string>() : "";
}

}  // namespace

HttpRequest JsonRequest(const JsonProtocol& protocol, std::string_view operation,
                        const Json& input) {
  HttpRequest request;
  request.method = "POST";
  request.headers.emplace_back("X-Amz-Target",
                               std::string(protocol.target_prefix) + "." + std::string(operation));
  request.headers.emplace_back("Content-Type",
                               "application/x-amz-json-" + std::string(protocol.version));
  // Services reject an empty body; an operation without input sends an empty object.
  request.body = input.is_null() ? "{}" : input.dump();
  return request;
}

Error ParseJsonError(const HttpResponse& response, std::string_view service,
                     std::string_view operation) {
  const std::string context = std::string(service) + " " + std::string(operation);
  const Json body = Json::parse(response.body, /*cb=*/nullptr, /*allow_exceptions=*/false);
  const bool object = body.is_object();
  std::string_view code = HeaderValue(response.headers, "x-amzn-query-error");
  code = code.substr(0, code.find(';'));  // "AWS.SimpleQueueService.NonExistentQueue;Sender"
  const std::string type = object ? StringField(body, "__type") : "";
  if (code.empty()) code = BareCode(type);
  if (code.empty()) code = BareCode(HeaderValue(response.headers, "x-amzn-errortype"));
  if (code.empty()) return UnrecognizedError(response, service, operation);
  std::string message = object ? StringField(body, "message") : "";
  if (message.empty() && object) message = StringField(body, "Message");
  return Error{std::string(code) + ": " + message + " (" + context + ", request " +
                   std::string(HeaderValue(response.headers, "x-amzn-RequestId")) + ")",
               response.status, std::string(code)};
}

Result<Json> CallJson(ServiceClient& client, const JsonProtocol& protocol,
                      std::string_view operation, const Json& input) {
  ASSIGN_OR_RETURN(HttpResponse response,
                   client.Call(operation, JsonRequest(protocol, operation, input)));
  if (response.body.empty()) return Json::object();
  Json output = Json::parse(response.body, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (output.is_discarded()) {
    return Error{client.service() + " " + std::string(operation) +
                 ": the response is not valid JSON"};
  }
  // Every output of the JSON protocol is an object; callers read members without checking
  // (fuzzing found a bare number answered to GetParameter throwing from them).
  if (!output.is_object()) {
    return Error{client.service() + " " + std::string(operation) +
                 ": the response is not a JSON object"};
  }
  return output;
}

}  // namespace karpenter::aws
