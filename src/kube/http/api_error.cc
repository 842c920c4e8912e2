#include "kube/http/api_error.h"

#include <string>

namespace karpenter::kube::http {
namespace {

std::string StringField(const Json& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string Prefix(std::string_view method, std::string_view path) {
  std::string out(method);
  out.append(" ").append(path);
  return out;
}

}  // namespace

std::string_view ReasonForStatus(int status) {
  // The reasons of k8s.io/apimachinery's StatusReason for the codes it maps.
  switch (status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return status >= 500 ? "InternalError" : "Unknown";
  }
}

Error StatusError(std::string_view context, const Json& status) {
  int code = 500;  // an ERROR event without a code is still a failure
  std::string reason;
  std::string message;
  if (status.is_object()) {
    if (const auto it = status.find("code"); it != status.end() && it->is_number_integer()) {
      code = it->get<int>();
    }
    reason = StringField(status, "reason");
    message = StringField(status, "message");
  }
  if (reason.empty()) reason = ReasonForStatus(code);
  if (message.empty()) message = reason;
  return Error{std::string(context) + ": " + message, code, std::move(reason)};
}

Error ResponseError(std::string_view method, std::string_view path, int status,
                    std::string_view body) {
  const Json parsed = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && StringField(parsed, "kind") == "Status") {
    Error error = StatusError(Prefix(method, path), parsed);
    // The HTTP status is authoritative; the Status's code normally equals it.
    error.status = status;
    if (StringField(parsed, "reason").empty()) error.reason = ReasonForStatus(status);
    return error;
  }
  // Not from the API server itself (a proxy, a load balancer): show the start of what came back.
  constexpr size_t kShown = 200;
  std::string message = Prefix(method, path) + ": HTTP " + std::to_string(status);
  if (!body.empty()) {
    message.append(": ").append(body.substr(0, kShown));
    if (body.size() > kShown) message.append("...");
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) {
      message.pop_back();
    }
  }
  return Error{std::move(message), status, std::string(ReasonForStatus(status))};
}

Error TransportError(std::string_view method, std::string_view path, std::string_view message) {
  return Error{Prefix(method, path) + ": " + std::string(message), 0, "Unavailable"};
}

}  // namespace karpenter::kube::http
