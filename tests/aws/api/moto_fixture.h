#pragma once
// The moto server the CTest fixture `moto` started (scripts/testenv/moto-up): its endpoint and
// what it seeded, and AwsClients pointed at it with the seeded dummy credentials.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "aws/api/aws_clients.h"
#include "aws/sdk/curl_transport.h"
#include "aws/sdk/environment.h"
#include "common/clock.h"

namespace karpenter::aws::testing {

inline std::string ReadMotoFile(const std::string& name) {
  const std::string path = std::string(KARPENTER_MOTO_DIR) + "/" + name;
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A name no other test, run or process uses, so tests can run against a long-lived moto.
inline std::string UniqueName(const std::string& prefix) {
  static std::atomic<int> counter{0};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return prefix + "-" + std::to_string(getpid()) + "-" +
         std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) + "-" +
         std::to_string(++counter);
}

class MotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string endpoint = ReadMotoFile("endpoint");
    while (!endpoint.empty() && (endpoint.back() == '\n' || endpoint.back() == '\r')) {
      endpoint.pop_back();
    }
    ASSERT_FALSE(endpoint.empty())
        << "no moto endpoint in " << KARPENTER_MOTO_DIR << "; run through ctest, which starts moto";
    seed_ = nlohmann::json::parse(ReadMotoFile("seed.json"));
    cluster_ = seed_["cluster"].get<std::string>();
    environment_ = Environment({
        {"AWS_ENDPOINT_URL", endpoint},
        {"AWS_ACCESS_KEY_ID", seed_["credentials"]["access_key_id"].get<std::string>()},
        {"AWS_SECRET_ACCESS_KEY", seed_["credentials"]["secret_access_key"].get<std::string>()},
        {"AWS_REGION", seed_["region"].get<std::string>()},
        {"AWS_EC2_METADATA_DISABLED", "true"},
    });
    Result<AwsClients> clients =
        AwsClients::Create(environment_, seed_["region"].get<std::string>(), transport_, clock_);
    ASSERT_TRUE(clients.ok()) << clients.error().message;
    clients_.emplace(std::move(*clients));
  }

  nlohmann::json seed_;
  std::string cluster_;
  Environment environment_;
  CurlTransport transport_;
  RealClock clock_;
  std::optional<AwsClients> clients_;
};

}  // namespace karpenter::aws::testing
