// `karpenter controller --cloud-provider sim` against the test cluster: the real kube-scheduler
// binds pods to the nodes our controller creates, kwok runs them.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "api/labels.h"
#include "integration/end_to_end.h"
#include "kube/client.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;

// How many NodeClaims `karpenter plan` computes for a manifest file.
size_t PlannedNodeClaims(const std::string& file) {
  const std::string command = std::string(KARPENTER_BINARY) + " plan --output json " + file;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return 0;
  std::string output;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  pclose(pipe);
  const kube::Object plan = kube::Object::parse(output, nullptr, false);
  if (!plan.is_object()) return 0;
  return Part(plan, "summary").value("nodeclaims", size_t{0});
}

class ControllerE2E : public ControllerEndToEnd {
 protected:
  ControllerE2E() : ControllerEndToEnd({"e2e", "e2e-limits", "e2e-bad"}) {}
};

TEST_F(ControllerE2E, ProvisionsNodesTheSchedulerBindsEveryPodTo) {
  StartController();
  const std::string manifests = kTestdata + "provisioning.yaml";
  ASSERT_OK(support::ApplyFile(*client_, manifests));
  constexpr size_t kPods = 13;
  ASSERT_TRUE(
      support::WaitFor([&] { return CountRunning(*client_, "e2e") == kPods; }, seconds(180)))
      << CountRunning(*client_, "e2e") << " of " << kPods << " pods Running";

  std::map<std::string, kube::Object> nodes;
  for (kube::Object& node : SimNodes(*client_)) nodes[std::string(kube::Name(node))] = node;
  std::map<std::string, std::map<std::string, int>> zone_counts;
  std::set<std::string> cache_nodes;
  for (const kube::Object& pod : List(*client_, kube::resources::kPods, "e2e")) {
    const std::string app = kube::Label(pod, "app").data();
    ASSERT_TRUE(nodes.contains(NodeName(pod))) << kube::Name(pod) << " runs on " << NodeName(pod)
                                               << ", not on a node our controller created";
    const kube::Object& node = nodes[NodeName(pod)];
    for (std::string_view key : {api::kLabelNodePool, api::kLabelInstanceType, api::kLabelZone,
                                 api::kLabelCapacityType, api::kLabelArch}) {
      EXPECT_FALSE(kube::Label(node, key).empty()) << kube::Name(node) << " lacks " << key;
    }
    if (app == "arm-app") {
      EXPECT_EQ(kube::Label(node, api::kLabelArch), "arm64");
      EXPECT_EQ(kube::Label(node, api::kLabelNodePool), "arm64");
      EXPECT_EQ(kube::Label(node, api::kLabelCapacityType), "on-demand");
    } else {
      // The arm64 pool's taint keeps everything else on the seed's pool.
      EXPECT_EQ(kube::Label(node, api::kLabelNodePool), "default") << kube::Name(pod);
      EXPECT_EQ(kube::Label(node, api::kLabelCapacityType), "spot");
    }
    if (app == "compute") {
      EXPECT_EQ(kube::Label(node, api::kLabelInstanceCategory), "c");
    }
    if (app == "cache") cache_nodes.insert(NodeName(pod));
    if (app == "web") ++zone_counts["web"][std::string(kube::Label(node, api::kLabelZone))];
  }
  EXPECT_EQ(cache_nodes.size(), 3u) << "hostname anti-affinity puts each cache pod on its own node";
  int most = 0;
  int least = 1000;
  for (const auto& [zone, count] : zone_counts["web"]) {
    most = std::max(most, count);
    least = std::min(least, count);
  }
  EXPECT_GE(zone_counts["web"].size(), 3u);
  EXPECT_LE(most - least, 1) << "zone spread with maxSkew 1";

  // Every NodeClaim launched, registered and initialized its node, and vice versa. Pods may run
  // a moment before their NodeClaim is marked initialized (the kube-scheduler binds as soon as
  // the node is Ready and untainted), so wait for that.
  const auto lifecycle_done = [](const kube::Object& claim) {
    for (const char* type : {"Launched", "Registered", "Initialized", "Ready"}) {
      bool found = false;
      for (const kube::Object& c :
           Part(claim, "status").value("conditions", kube::Object::array())) {
        found = found || (c.value("type", "") == type && c.value("status", "") == "True");
      }
      if (!found) return false;
    }
    return true;
  };
  std::vector<kube::Object> claims;
  EXPECT_TRUE(support::WaitFor(
      [&] {
        claims = List(*client_, kube::resources::kNodeClaims);
        return std::all_of(claims.begin(), claims.end(), lifecycle_done);
      },
      seconds(30)))
      << "not every NodeClaim reached Launched, Registered, Initialized and Ready";
  EXPECT_EQ(claims.size(), nodes.size());
  for (const kube::Object& claim : claims) {
    EXPECT_TRUE(nodes.contains(Part(claim, "status").value("nodeName", ""))) << kube::Name(claim);
  }
  nodes.clear();
  for (kube::Object& node : SimNodes(*client_)) nodes[std::string(kube::Name(node))] = node;
  for (const auto& [name, node] : nodes) {
    EXPECT_EQ(kube::Label(node, api::kLabelRegistered), "true") << name;
    EXPECT_EQ(kube::Label(node, api::kLabelInitialized), "true") << name;
    for (const kube::Object& taint : Part(node, "spec").value("taints", kube::Object::array())) {
      EXPECT_NE(taint.value("key", ""), api::kTaintUnregistered) << name;
    }
  }

  // Close to what the offline plan computes for the same manifests: at most 10% more nodes,
  // rounded up to a whole node (the kube-scheduler, not us, picks among nodes with room).
  const size_t planned = PlannedNodeClaims(manifests);
  ASSERT_GT(planned, 0u);
  EXPECT_LE(static_cast<double>(nodes.size()), std::ceil(1.1 * static_cast<double>(planned)))
      << nodes.size() << " nodes for " << planned << " planned";

  // NodePool status counts its nodes; the NodePool carries its template hash.
  ASSERT_TRUE(support::WaitFor(
      [&] {
        Result<kube::Object> pool = client_->Get(kube::resources::kNodePools, "", "default");
        return pool.ok() && !kube::Annotation(*pool, "karpenter.sh/nodepool-hash").empty() &&
               Part((*pool), "status").value("nodes", 0) > 0;
      },
      seconds(30)));
  EXPECT_TRUE(controller_->Running());
}

TEST_F(ControllerE2E, NodePoolLimitStopsProvisioningAndSaysWhy) {
  StartController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "limited.yaml"));
  // m5.xlarge has 4 vCPU: the 8 vCPU limit allows two nodes, each holding one 3-vCPU pod.
  ASSERT_TRUE(
      support::WaitFor([&] { return CountRunning(*client_, "e2e-limits") == 2; }, seconds(120)));
  std::string pending;
  for (const kube::Object& pod : List(*client_, kube::resources::kPods, "e2e-limits")) {
    if (Phase(pod) == "Pending") pending = kube::Name(pod);
  }
  ASSERT_FALSE(pending.empty());
  ASSERT_TRUE(support::WaitFor(
      [&] {
        for (const std::string& message :
             EventMessages(*client_, "e2e-limits", pending, "FailedScheduling")) {
          if (message.find("limits") != std::string::npos) return true;
        }
        return false;
      },
      seconds(60)))
      << "no FailedScheduling event naming the limit on " << pending;
  EXPECT_EQ(List(*client_, kube::resources::kNodeClaims).size(), 2u);
  EXPECT_EQ(CountRunning(*client_, "e2e-limits"), 2u);
}

TEST_F(ControllerE2E, RestartMidProvisioningNeitherDuplicatesNorLosesNodeClaims) {
  StartController();
  const std::string manifests = kTestdata + "provisioning.yaml";
  ASSERT_OK(support::ApplyFile(*client_, manifests));
  ASSERT_TRUE(
      support::WaitFor([&] { return !List(*client_, kube::resources::kNodeClaims).empty(); },
                       seconds(120), std::chrono::milliseconds(50)));
  controller_->Kill();  // a crash in the middle of launching
  StartController();
  ASSERT_TRUE(support::WaitFor([&] { return CountRunning(*client_, "e2e") == 13; }, seconds(180)));
  // Settle: nothing more should be created once every pod runs.
  std::this_thread::sleep_for(seconds(5));
  const std::vector<kube::Object> claims = List(*client_, kube::resources::kNodeClaims);
  const std::vector<kube::Object> nodes = SimNodes(*client_);
  EXPECT_EQ(claims.size(), nodes.size());
  std::set<std::string> claimed;
  for (const kube::Object& claim : claims)
    claimed.insert(Part(claim, "status").value("nodeName", ""));
  for (const kube::Object& node : nodes) {
    EXPECT_TRUE(claimed.contains(std::string(kube::Name(node))))
        << kube::Name(node) << " has no NodeClaim";
  }
  const size_t planned = PlannedNodeClaims(manifests);
  EXPECT_LE(static_cast<double>(claims.size()), std::ceil(1.1 * static_cast<double>(planned)));
}

TEST_F(ControllerE2E, BadObjectsGetEventsAndConditionsNotACrash) {
  StartController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "bad_objects.yaml"));
  ASSERT_TRUE(support::WaitFor(
      [&] {
        Result<kube::Object> pool = client_->Get(kube::resources::kNodePools, "", "orphan");
        if (!pool.ok()) return false;
        for (const kube::Object& c :
             Part((*pool), "status").value("conditions", kube::Object::array())) {
          if (c.value("type", "") == "NodeClassReady" && c.value("status", "") == "False") {
            return true;
          }
        }
        return false;
      },
      seconds(60)))
      << "NodePool orphan never got NodeClassReady=False";
  ASSERT_TRUE(support::WaitFor(
      [&] { return !EventMessages(*client_, "default", "orphan", "NotReady").empty(); },
      seconds(30)));
  ASSERT_TRUE(support::WaitFor(
      [&] { return !EventMessages(*client_, "e2e-bad", "huge", "FailedScheduling").empty(); },
      seconds(60)))
      << "no FailedScheduling event on the 10,000-CPU pod";
  const std::vector<std::string> messages =
      EventMessages(*client_, "e2e-bad", "huge", "FailedScheduling");
  EXPECT_THAT(messages.front(), ::testing::HasSubstr("cpu"));
  EXPECT_TRUE(List(*client_, kube::resources::kNodeClaims).empty());
  EXPECT_TRUE(controller_->Running());
}

}  // namespace
}  // namespace karpenter::integration
