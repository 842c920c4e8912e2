#pragma once
// A stand-in for the Pricing API (moto has none) on a loopback port: GetProducts answers with the
// fixture pages of tests/testdata/aws/pricing (page 2 for NextToken "page-2"), or with an error
// while `fail` is set; it records each request's body. Plus AwsClients pointed at it.

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/sdk/curl_transport.h"
#include "aws/sdk/environment.h"
#include "aws/sdk/loopback_server.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/read_file.h"
#include "support/matchers.h"

namespace karpenter::aws::testing {

class PricingServer {
 public:
  PricingServer() {
    page1_ = ReadTestData("get_products_page1.json");
    page2_ = ReadTestData("get_products_page2.json");
    server_->Post("/", [this](const httplib::Request& request, httplib::Response& response) {
      const std::string target = request.get_header_value("X-Amz-Target");
      Json body = Json::parse(request.body, nullptr, false);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(body);
      }
      if (fail_ || target != "AWSPriceListService.GetProducts") {
        response.status = 400;
        response.set_content(
            R"({"__type":"com.amazonaws.pricing#InternalErrorException","message":"broken"})",
            "application/x-amz-json-1.1");
        return;
      }
      const bool second = body.is_object() && body.value("NextToken", "") == "page-2";
      response.set_content(second ? page2_ : page1_, "application/x-amz-json-1.1");
    });
    server_.Start();
  }

  // Clients for `region` whose every service is this server (one attempt per call).
  AwsClients Clients(const std::string& region) {
    const Environment environment({{"AWS_ENDPOINT_URL", "http://" + server_.host()},
                                   {"AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"},
                                   {"AWS_SECRET_ACCESS_KEY", "secret"},
                                   {"AWS_MAX_ATTEMPTS", "1"},
                                   {"AWS_EC2_METADATA_DISABLED", "true"}});
    Result<AwsClients> clients = AwsClients::Create(environment, region, transport_, clock_);
    EXPECT_THAT(clients, IsOk());
    return std::move(*clients);
  }

  void set_fail(bool fail) { fail_ = fail; }
  std::vector<Json> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  static std::string ReadTestData(const std::string& name) {
    Result<std::string> text = ReadFile(std::string(KARPENTER_TESTDATA) + "/aws/pricing/" + name);
    EXPECT_THAT(text, IsOk());
    return text.ok() ? *text : std::string();
  }

  LoopbackServer server_;
  CurlTransport transport_;
  RealClock clock_;
  std::string page1_;
  std::string page2_;
  std::atomic<bool> fail_{false};
  mutable std::mutex mutex_;
  std::vector<Json> requests_;
};

}  // namespace karpenter::aws::testing
