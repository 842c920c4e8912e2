#pragma once
// The moto server the CTest fixture `moto` started (scripts/testenv/moto-up): its endpoint and
// what it seeded, and AwsClients pointed at it (or at the fault proxy in front of it) with the
// seeded dummy credentials.

#include <gtest/gtest.h>
#include <httplib.h>
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
#include "support/matchers.h"

namespace karpenter::aws::testing {

inline std::string ReadMotoFile(const std::string& name) {
  const std::string path = std::string(KARPENTER_MOTO_DIR) + "/" + name;
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A URL moto-up wrote ("endpoint", "fault_endpoint"), without its line break.
inline std::string ReadMotoEndpoint(const std::string& name) {
  std::string endpoint = ReadMotoFile(name);
  while (!endpoint.empty() && (endpoint.back() == '\n' || endpoint.back() == '\r')) {
    endpoint.pop_back();
  }
  return endpoint;
}

// Sets the faults the proxy in front of moto injects (scripts/testenv/fault_proxy.py says which)
// and zeroes its counts of injected faults; an empty object clears them.
inline void SetFaults(const nlohmann::json& faults) {
  httplib::Client proxy(ReadMotoEndpoint("fault_endpoint"));
  httplib::Result answer = proxy.Post("/_faults", faults.dump(), "application/json");
  EXPECT_TRUE(answer && answer->status == 200) << "setting faults " << faults.dump();
}

// What the proxy reports of its faults and counts (GET /_faults); discarded JSON when unreadable.
inline nlohmann::json FaultProxyState() {
  httplib::Client proxy(ReadMotoEndpoint("fault_endpoint"));
  httplib::Result answer = proxy.Get("/_faults");
  EXPECT_TRUE(answer && answer->status == 200) << "reading faults";
  if (!answer || answer->status != 200) return nlohmann::json::value_t::discarded;
  return nlohmann::json::parse(answer->body, nullptr, false);
}

// How many faults of a kind ("insufficient_capacity", "throttled", "delayed") the proxy injected
// since they were set.
inline int InjectedFaults(const std::string& kind) {
  const nlohmann::json state = FaultProxyState();
  return state.is_object() ? state["injected"].value(kind, -1) : -1;
}

// How many requests of an action ("CreateFleet", "CreateTags", …) the proxy passed on to moto
// since the faults were set.
inline int ForwardedRequests(const std::string& action) {
  const nlohmann::json state = FaultProxyState();
  return state.is_object() ? state.value("forwarded", nlohmann::json::object()).value(action, 0)
                           : -1;
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
    const std::string endpoint =
        ReadMotoEndpoint(through_fault_proxy_ ? "fault_endpoint" : "endpoint");
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
    ASSERT_THAT(clients, IsOk());
    clients_.emplace(std::move(*clients));
  }

  // Set in a derived constructor to talk to moto through the fault proxy.
  bool through_fault_proxy_ = false;
  nlohmann::json seed_;
  std::string cluster_;
  Environment environment_;
  CurlTransport transport_;
  RealClock clock_;
  std::optional<AwsClients> clients_;
};

}  // namespace karpenter::aws::testing
