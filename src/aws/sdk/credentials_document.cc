#include "aws/sdk/credentials_document.h"

#include <string>

#include "common/json.h"

namespace karpenter::aws {
namespace {

// The string member `name`, or empty when missing or not a string.
std::string StringMember(const Json& object, const char* name) {
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

Result<Credentials> ParseCredentialsDocument(std::string_view body, std::string_view source) {
  const std::string prefix(source);
  // No exceptions: a parse error's text would quote the input around the failure.
  const Json document = Json::parse(body, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    return Error{prefix + ": the response is not a JSON object"};
  }
  if (const std::string code = StringMember(document, "Code"); !code.empty() && code != "Success") {
    return Error{prefix + ": the response's Code is " + code, 0, code};
  }
  Credentials credentials{StringMember(document, "AccessKeyId"),
                          StringMember(document, "SecretAccessKey"),
                          StringMember(document, "Token"), std::nullopt};
  if (credentials.access_key_id.empty()) return Error{prefix + ": the response has no AccessKeyId"};
  if (credentials.secret_access_key.empty()) {
    return Error{prefix + ": the response has no SecretAccessKey"};
  }
  if (const std::string expiration = StringMember(document, "Expiration"); !expiration.empty()) {
    credentials.expiration = ParseTime(expiration);
    if (!credentials.expiration.has_value()) {
      return Error{prefix + ": the response's Expiration \"" + expiration +
                   "\" is not an RFC 3339 time"};
    }
  }
  return credentials;
}

Error ParseCredentialsErrorDocument(int status, std::string_view body, std::string_view source) {
  std::string message = std::string(source) + ": HTTP " + std::to_string(status);
  const Json document = Json::parse(body, nullptr, false);
  if (!document.is_object()) return Error{std::move(message), status, ""};
  std::string code = StringMember(document, "code");
  if (!code.empty()) message += ": " + code;
  if (const std::string detail = StringMember(document, "message"); !detail.empty()) {
    message += ": " + detail;
  }
  return Error{std::move(message), status, std::move(code)};
}

}  // namespace karpenter::aws
