#include "aws/sdk/web_identity_credentials.h"

#include <pugixml.hpp>
#include <utility>

#include "aws/sdk/sigv4.h"
#include "common/read_file.h"

namespace karpenter::aws {
namespace {

// The text of the element at `path` below `node` ("Error/Code"), or empty.
std::string ChildText(const pugi::xml_node& node, const char* path) {
  return node.first_element_by_path(path).text().as_string();
}

Result<Credentials> ParseResponse(const HttpResponse& response, const std::string& what) {
  pugi::xml_document document;
  const bool xml = document.load_buffer(response.body.data(), response.body.size());
  if (response.status != 200) {
    const pugi::xml_node error = document.child("ErrorResponse").child("Error");
    const std::string code = xml ? ChildText(error, "Code") : std::string();
    const std::string status = "HTTP " + std::to_string(response.status);
    if (code.empty()) return Error{what + ": " + status, response.status, ""};
    return Error{what + ": " + code + ": " + ChildText(error, "Message") + " (" + status + ")",
                 response.status, code};
  }
  const pugi::xml_node element = document.child("AssumeRoleWithWebIdentityResponse")
                                     .child("AssumeRoleWithWebIdentityResult")
                                     .child("Credentials");
  if (!xml || element.empty()) return Error{what + ": the response has no Credentials"};
  Credentials credentials{ChildText(element, "AccessKeyId"), ChildText(element, "SecretAccessKey"),
                          ChildText(element, "SessionToken"),
                          ParseTime(ChildText(element, "Expiration"))};
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty() ||
      credentials.session_token.empty() || !credentials.expiration.has_value()) {
    return Error{what + ": the response's Credentials lack a key, secret, token or expiration"};
  }
  return credentials;
}

}  // namespace

Result<WebIdentitySettings> WebIdentitySettingsFromEnvironment(const Environment& environment) {
  WebIdentitySettings settings{std::string(environment.Get("AWS_ROLE_ARN")),
                               std::string(environment.Get("AWS_WEB_IDENTITY_TOKEN_FILE")),
                               std::string(environment.Get("AWS_ROLE_SESSION_NAME"))};
  if (settings.role_arn.empty() && settings.token_file.empty()) {
    return Error{"AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE are not set", 0,
                 std::string(kNotConfigured)};
  }
  if (settings.token_file.empty()) {
    return Error{"AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not"};
  }
  if (settings.role_arn.empty()) {
    return Error{"AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not"};
  }
  return settings;
}

WebIdentityCredentialsProvider::WebIdentityCredentialsProvider(WebIdentitySettings settings,
                                                               StsEndpoint sts,
                                                               HttpTransport& transport,
                                                               const Clock& clock)
    : settings_(std::move(settings)), sts_(std::move(sts)), transport_(transport), clock_(clock) {}

Result<Credentials> WebIdentityCredentialsProvider::Get() {
  const std::string what = "STS AssumeRoleWithWebIdentity for " + settings_.role_arn;
  // Read each time: the kubelet replaces the token well before it expires.
  Result<std::string> token = ReadTokenFile(settings_.token_file);
  if (!token.ok()) return Error{what + ": " + token.error().message};
  std::string session_name = settings_.session_name;
  if (session_name.empty()) {
    session_name = "karpenter-" + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                                     clock_.Now().time_since_epoch())
                                                     .count());
  }
  HttpRequest request;
  request.method = "POST";
  request.scheme = sts_.scheme;
  request.host = sts_.host;
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
  request.body = "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" +
                 UriEncode(settings_.role_arn, false) +
                 "&RoleSessionName=" + UriEncode(session_name, false) +
                 "&WebIdentityToken=" + UriEncode(*token, false);
  Result<HttpResponse> response = transport_.Send(request);
  if (!response.ok()) {
    return Error{what + ": cannot reach " + sts_.scheme + "://" + sts_.host + ": " +
                 response.error().message};
  }
  return ParseResponse(*response, what);
}

}  // namespace karpenter::aws
