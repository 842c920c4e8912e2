#include "simulate/simulated_machines.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <stop_token>
#include <string_view>
#include <thread>

#include "api/labels.h"
#include "cloud/fake_catalog.h"
#include "cloud/sim/sim_cloud_provider.h"
#include "common/clock.h"
#include "controllers/conditions.h"
#include "kube/memory/memory_client.h"
#include "operator/manager.h"
#include "support/matchers.h"

namespace karpenter::simulate {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

api::NodeClaim Claim() {
  api::NodeClaim claim;
  claim.metadata.name = "default-abcde";
  claim.metadata.labels[std::string(api::kLabelNodePool)] = "default";
  claim.spec.resource_requests.Set(api::kResourceCpu, Quantity::FromMilli(500));
  return claim;
}

// As `karpenter controller --cloud-provider sim` runs them: the machines boot on their own thread
// while no round of the manager runs — but only once Start() has recovered the instances recorded
// on Nodes, the manager's first step.
TEST(SimulatedMachinesTest, OnTheirOwnThreadMachinesBootWithoutTheManagersRounds) {
  const RealClock clock;
  kube::memory::MemoryClient client(clock);
  cloud::SimCloudProvider cloud(cloud::BuildFakeCatalog(4), clock, "us-east-1");
  op::Manager manager(client, cloud, clock, Logger(), op::ManagerOptions{});
  SimulatedMachines machines(manager, client, cloud, clock, Logger(),
                             cloud::NodeBooterOptions{.mark_ready = true}, BootLoop::kOwnThread);
  for (kube::Informer* informer : manager.cluster().all()) ASSERT_THAT(informer->Sync(), IsOk());
  const Result<cloud::Instance> launched = cloud.Create(Claim());
  ASSERT_THAT(launched, IsOk());
  auto node = [&] { return client.Get(kube::resources::kNodes, "", launched->node_name); };

  std::jthread loop([&machines](const std::stop_token& stop) { machines.RunBootLoop(stop); });
  std::this_thread::sleep_for(milliseconds(300));  // six of the loop's ticks
  EXPECT_FALSE(node().ok()) << "booted before the recorded instances were recovered";

  machines.Start();
  for (auto waited = milliseconds(0); !node().ok() && waited < seconds(30);
       waited += milliseconds(10)) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  const Result<kube::Object> booted = node();
  ASSERT_THAT(booted, IsOk());
  EXPECT_EQ(kube::StringAt(*booted, {"spec", "providerID"}), launched->provider_id);
  EXPECT_EQ(controllers::ConditionStatus(*booted, "Ready"), "True");
  // The manager's rounds leave booting to the thread, and never wait for it.
  EXPECT_FALSE(machines.NextWake().has_value());
}

}  // namespace
}  // namespace karpenter::simulate
