#pragma once
// Fakes for ServiceClient tests: a transport that answers from a script and records what it was
// sent, and a provider of fixed credentials. (The credential providers' tests answer by request
// instead, with FakeTransport in credentials_test_support.h.)

#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/http_transport.h"

namespace karpenter::aws::testing {

class ScriptedTransport final : public HttpTransport {
 public:
  // Queues the answer to the next unanswered request.
  ScriptedTransport& Then(Result<HttpResponse> answer) {
    answers_.push_back(std::move(answer));
    return *this;
  }
  ScriptedTransport& Then(int status, std::string body, HttpHeaders headers = {}) {
    return Then(HttpResponse{status, std::move(headers), std::move(body)});
  }
  // Runs before each answer (a test advances its clock here to stand for network time).
  void OnSend(std::function<void()> hook) { on_send_ = std::move(hook); }

  Result<HttpResponse> Send(const HttpRequest& request) override {
    sent_.push_back(request);
    if (on_send_) on_send_();
    if (answers_.empty()) return Error{"ScriptedTransport: no answer left", 0, "ConnectionError"};
    Result<HttpResponse> answer = std::move(answers_.front());
    answers_.pop_front();
    return answer;
  }

  const std::vector<HttpRequest>& sent() const { return sent_; }

 private:
  std::deque<Result<HttpResponse>> answers_;
  std::vector<HttpRequest> sent_;
  std::function<void()> on_send_;
};

class FixedCredentials final : public CredentialsProvider {
 public:
  explicit FixedCredentials(Result<Credentials> credentials)
      : credentials_(std::move(credentials)) {}
  Result<Credentials> Get() override { return credentials_; }

 private:
  Result<Credentials> credentials_;
};

}  // namespace karpenter::aws::testing
