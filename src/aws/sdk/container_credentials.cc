#include "aws/sdk/container_credentials.h"

#include <arpa/inet.h>

#include <array>
#include <cstring>
#include <utility>

#include "aws/sdk/credentials_document.h"
#include "common/read_file.h"

namespace karpenter::aws {
namespace {

constexpr std::string_view kEcsHost = "169.254.170.2";

// Whether `host` (an IP literal) is one http may be used with. Compares binary addresses so that
// other spellings of the same address ("fd00:ec2:0::23") match too.
bool AllowedHttpHost(std::string_view host) {
  const std::string name(HostName(host));
  std::array<unsigned char, 16> address{};
  if (inet_pton(AF_INET, name.c_str(), address.data()) == 1) {
    if (address[0] == 127) return true;  // 127.0.0.0/8
    for (const char* allowed : {"169.254.170.2", "169.254.170.23"}) {
      std::array<unsigned char, 4> other{};
      inet_pton(AF_INET, allowed, other.data());
      if (std::memcmp(address.data(), other.data(), other.size()) == 0) return true;
    }
    return false;
  }
  if (inet_pton(AF_INET6, name.c_str(), address.data()) == 1) {
    for (const char* allowed : {"::1", "fd00:ec2::23"}) {
      std::array<unsigned char, 16> other{};
      inet_pton(AF_INET6, allowed, other.data());
      if (address == other) return true;
    }
  }
  return false;
}

}  // namespace

Result<ContainerEndpoint> ContainerEndpointFromEnvironment(const Environment& environment) {
  const std::string_view relative = environment.Get("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
  const std::string_view full = environment.Get("AWS_CONTAINER_CREDENTIALS_FULL_URI");
  ContainerEndpoint endpoint;
  if (!relative.empty()) {
    const std::string separator = relative.starts_with('/') ? "" : "/";
    ASSIGN_OR_RETURN(Url url,
                     ParseUrl("http://" + std::string(kEcsHost) + separator + std::string(relative),
                              "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"));
    endpoint.url = std::move(url);
  } else if (!full.empty()) {
    ASSIGN_OR_RETURN(Url url, ParseUrl(full, "AWS_CONTAINER_CREDENTIALS_FULL_URI"));
    if (url.scheme == "http" && !AllowedHttpHost(url.host)) {
      return Error{
          "AWS_CONTAINER_CREDENTIALS_FULL_URI: http is allowed only to a loopback "
          "address, 169.254.170.2, 169.254.170.23 or fd00:ec2::23, not " +
          std::string(HostName(url.host))};
    }
    endpoint.url = std::move(url);
  } else {
    return Error{
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and AWS_CONTAINER_CREDENTIALS_FULL_URI are not set",
        0, std::string(kNotConfigured)};
  }
  endpoint.token = std::string(environment.Get("AWS_CONTAINER_AUTHORIZATION_TOKEN"));
  endpoint.token_file = std::string(environment.Get("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"));
  return endpoint;
}

ContainerCredentialsProvider::ContainerCredentialsProvider(ContainerEndpoint endpoint,
                                                           HttpTransport& transport)
    : endpoint_(std::move(endpoint)), transport_(transport) {}

Result<Credentials> ContainerCredentialsProvider::Get() {
  const std::string what = "container credentials endpoint " + endpoint_.url.scheme + "://" +
                           endpoint_.url.host + endpoint_.url.path;
  std::string token = endpoint_.token;
  if (!endpoint_.token_file.empty()) {
    // Read each time: the Pod Identity token is rotated in place.
    Result<std::string> read = ReadTokenFile(endpoint_.token_file);
    if (!read.ok()) return Error{what + ": " + read.error().message};
    token = std::move(*read);
  }
  if (token.find_first_of("\r\n") != std::string::npos) {
    return Error{what + ": the authorization token contains a line break"};
  }
  HttpRequest request;
  request.scheme = endpoint_.url.scheme;
  request.host = endpoint_.url.host;
  request.path = endpoint_.url.path;
  request.query = endpoint_.url.query;
  if (!token.empty()) request.headers.emplace_back("Authorization", std::move(token));
  Result<HttpResponse> response = transport_.Send(request);
  if (!response.ok()) return Error{what + ": " + response.error().message};
  if (response->status != 200) {
    return ParseCredentialsErrorDocument(response->status, response->body, what);
  }
  return ParseCredentialsDocument(response->body, what);
}

}  // namespace karpenter::aws
