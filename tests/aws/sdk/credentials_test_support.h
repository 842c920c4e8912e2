#pragma once
// What the credential providers' tests share: a transport that answers from a test's handler and
// records what was sent, a temporary directory for shared files and token files, a fixture holding
// both with a virtual clock, and secrets that no error message may ever contain. The tests live in
// this namespace so that all of it is at hand unqualified.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aws/sdk/credentials.h"
#include "aws/sdk/environment.h"
#include "aws/sdk/http_transport.h"
#include "common/clock.h"

namespace karpenter::aws::testing {

inline constexpr std::string_view kKeyId = "ASIAEXAMPLEKEYID1234";
inline constexpr std::string_view kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYsecretKEY";
inline constexpr std::string_view kSessionToken = "IQoJb3JpZ2luX2VjSESSIONtokenVALUE";
inline constexpr std::string_view kWebIdentityToken = "eyJhbGciOiJSUzI1NiJ9.webIDENTITYjwt";

// Fails the test when `message` shows any of the secrets above.
inline void ExpectNoSecrets(std::string_view message) {
  for (const std::string_view secret : {kSecret, kSessionToken, kWebIdentityToken}) {
    EXPECT_EQ(message.find(secret), std::string_view::npos) << message;
  }
}

// Expects `credentials` to be the ones with the secrets above, expiring at `expiration`.
inline void ExpectTheSecrets(const Credentials& credentials, std::string_view expiration) {
  EXPECT_EQ(credentials.access_key_id, kKeyId);
  EXPECT_EQ(credentials.secret_access_key, kSecret);
  EXPECT_EQ(credentials.session_token, kSessionToken);
  EXPECT_EQ(credentials.expiration, ParseTime(expiration));
}

inline HttpResponse Respond(int status, std::string body) { return {status, {}, std::move(body)}; }

// A successful AssumeRoleWithWebIdentity answer carrying the secrets above.
inline std::string StsCredentialsXml(std::string_view expiration) {
  return "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
         "<AssumeRoleWithWebIdentityResult><Credentials>"
         "<AccessKeyId>" +
         std::string(kKeyId) +
         "</AccessKeyId>"
         "<SecretAccessKey>" +
         std::string(kSecret) +
         "</SecretAccessKey>"
         "<SessionToken>" +
         std::string(kSessionToken) +
         "</SessionToken>"
         "<Expiration>" +
         std::string(expiration) +
         "</Expiration>"
         "</Credentials></AssumeRoleWithWebIdentityResult>"
         "<ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata>"
         "</AssumeRoleWithWebIdentityResponse>";
}

// The container endpoint's and IMDS's JSON credentials document with the secrets above.
inline std::string CredentialsJson(std::string_view expiration) {
  return R"({"Code":"Success","Type":"AWS-HMAC","AccessKeyId":")" + std::string(kKeyId) +
         R"(","SecretAccessKey":")" + std::string(kSecret) + R"(","Token":")" +
         std::string(kSessionToken) + R"(","Expiration":")" + std::string(expiration) + R"("})";
}

// Answers every request with `handler` and keeps each request. Thread-safe. (ServiceClient tests
// use ScriptedTransport instead, which answers from a queue in the order requests come.)
class FakeTransport final : public HttpTransport {
 public:
  using Handler = std::function<Result<HttpResponse>(const HttpRequest&)>;

  explicit FakeTransport(Handler handler) : handler_(std::move(handler)) {}

  Result<HttpResponse> Send(const HttpRequest& request) override {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(request);
    return handler_(request);
  }

  std::vector<HttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  Handler handler_;
  mutable std::mutex mutex_;
  std::vector<HttpRequest> requests_;
};

// A handler that answers every request with `status` and `body`.
inline FakeTransport::Handler Always(int status, std::string body) {
  return [status, body = std::move(body)](const HttpRequest& /*request*/) -> Result<HttpResponse> {
    return Respond(status, body);
  };
}

// A transport for tests in which nothing must be sent.
inline Result<HttpResponse> Unreachable(const HttpRequest& /*request*/) {
  return Error{"connection refused"};
}

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "aws-credentials-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes (or replaces) `name` under the directory; returns its path.
  std::string Write(const std::string& name, std::string_view text) const {
    std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    return file;
  }

 private:
  std::string path_;
};

using Variables = std::map<std::string, std::string, std::less<>>;

// A credential provider's test: a temporary directory and a clock standing at `start_`.
class CredentialsTest : public ::testing::Test {
 protected:
  const TimePoint start_ = *ParseTime("2026-05-01T12:00:00Z");
  TempDir dir_;
  VirtualClock clock_{start_};
};

}  // namespace karpenter::aws::testing
