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
#include "kube/client.h"
#include "support/cluster.h"
#include "support/crds.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;

#define ASSERT_OK(expression)                             \
  do {                                                    \
    const Status status_ = (expression);                  \
    ASSERT_TRUE(status_.ok()) << status_.error().message; \
  } while (false)

const std::string kTestdata = std::string(KARPENTER_TESTDATA) + "/e2e/";

std::vector<kube::Object> List(kube::Client& client, const kube::Resource& resource,
                               const std::string& namespace_ = "") {
  kube::ListOptions options;
  options.namespace_ = namespace_;
  Result<kube::ObjectList> list = client.List(resource, options);
  EXPECT_TRUE(list.ok()) << list.error().message;
  return list.ok() ? std::move(list->items) : std::vector<kube::Object>{};
}

// object[field], or an empty object when it is absent (reading never throws).
kube::Object Part(const kube::Object& object, const char* field) {
  return object.value(field, kube::Object::object());
}

std::string Phase(const kube::Object& pod) {
  return pod.value("status", kube::Object::object()).value("phase", "");
}

std::string NodeName(const kube::Object& pod) {
  return pod.value("spec", kube::Object::object()).value("nodeName", "");
}

size_t CountRunning(kube::Client& client, const std::string& namespace_) {
  const std::vector<kube::Object> pods = List(client, kube::resources::kPods, namespace_);
  return static_cast<size_t>(std::count_if(
      pods.begin(), pods.end(), [](const kube::Object& p) { return Phase(p) == "Running"; }));
}

std::vector<kube::Object> SimNodes(kube::Client& client) {
  std::vector<kube::Object> out;
  for (kube::Object& node : List(client, kube::resources::kNodes)) {
    if (Part(node, "spec").value("providerID", "").rfind("sim://", 0) == 0)
      out.push_back(std::move(node));
  }
  return out;
}

// Our events (source component "karpenter", not the kube-scheduler's) about `name` in
// `namespace_` with `reason`.
std::vector<std::string> EventMessages(kube::Client& client, const std::string& namespace_,
                                       const std::string& name, const std::string& reason) {
  std::vector<std::string> out;
  for (const kube::Object& event : List(client, kube::resources::kEvents, namespace_)) {
    if (Part(event, "involvedObject").value("name", "") == name &&
        event.value("reason", "") == reason &&
        event.value("source", kube::Object::object()).value("component", "") == "karpenter") {
      out.push_back(event.value("message", ""));
    }
  }
  return out;
}

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

class ControllerEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<kube::Client>> client =
        support::ClusterClient(KARPENTER_TESTENV_KUBECONFIG);
    ASSERT_TRUE(client.ok()) << client.error().message;
    client_ = std::move(*client);
    Status installed = support::InstallCrds(*client_, KARPENTER_SOURCE_DIR);
    ASSERT_TRUE(installed.ok()) << installed.error().message;
    Status clean = support::CleanUp(*client_, {"e2e", "e2e-limits", "e2e-bad"});
    ASSERT_TRUE(clean.ok()) << clean.error().message;
  }
  void TearDown() override {
    if (HasFailure() && controller_) {
      const std::string log = controller_->Log();
      std::cerr << "--- controller log (last 6000 bytes) ---\n"
                << log.substr(log.size() > 6000 ? log.size() - 6000 : 0) << "\n";
    }
    controller_.reset();
    if (client_) {
      Status clean = support::CleanUp(*client_, {"e2e", "e2e-limits", "e2e-bad"});
      EXPECT_TRUE(clean.ok()) << clean.error().message;
    }
  }
  void StartController() {
    const std::string log = ::testing::TempDir() + "controller-" +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                            ".log";
    std::remove(log.c_str());
    controller_ = std::make_unique<support::ControllerProcess>(
        KARPENTER_BINARY, support::SimControllerArgs(KARPENTER_TESTENV_KUBECONFIG), log);
  }

  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<support::ControllerProcess> controller_;
};

TEST_F(ControllerEndToEnd, ProvisionsNodesTheSchedulerBindsEveryPodTo) {
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

TEST_F(ControllerEndToEnd, NodePoolLimitStopsProvisioningAndSaysWhy) {
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

TEST_F(ControllerEndToEnd, RestartMidProvisioningNeitherDuplicatesNorLosesNodeClaims) {
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

TEST_F(ControllerEndToEnd, BadObjectsGetEventsAndConditionsNotACrash) {
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
