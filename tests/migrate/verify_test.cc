// The checks of `karpenter migrate verify`, each shown to fail on the state it looks for and to
// pass on a migrated cluster.

#include "migrate/verify.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace karpenter::migrate {
namespace {

using kube::Object;

kube::SharedObject Shared(Object object) {
  return std::make_shared<const Object>(std::move(object));
}

kube::SharedObject Node(const std::string& name, Object labels) {
  return Shared({{"metadata", {{"name", name}, {"labels", std::move(labels)}}}});
}

kube::SharedObject ControllerPod(const std::string& name, const std::string& node,
                                 const std::string& phase = "Running") {
  return Shared({{"metadata",
                  {{"name", name},
                   {"namespace", "kube-system"},
                   {"labels", {{"app.kubernetes.io/name", "karpenter"}}}}},
                 {"spec", {{"nodeName", node}}},
                 {"status", {{"phase", phase}}}});
}

kube::SharedObject NodeClaim(const std::string& name, const std::string& ready) {
  return Shared({{"metadata", {{"name", name}}},
                 {"status", {{"conditions", {{{"type", "Ready"}, {"status", ready}}}}}}});
}

class VerifyTest : public ::testing::Test {
 protected:
  VerifyTest() {
    aws_.cluster.name = "prod";
    aws_.interruption_queue = true;
    aws_.interruption_events = {"AWS Health Event", "EC2 Instance Rebalance Recommendation",
                                "EC2 Instance State-change Notification",
                                "EC2 Spot Instance Interruption Warning"};
    for (int number = 1; number <= 9; ++number) {
      Step step;
      step.number = number;
      step.title = "step " + std::to_string(number);
      step.state = StepState::kDone;
      plan_.steps.push_back(step);
    }
    objects_.nodes = {Node("ng-0", {{"eks.amazonaws.com/nodegroup", "general"}}),
                      Node("k-0", {{"karpenter.sh/nodepool", "default"},
                                   {"node.kubernetes.io/instance-type", "m5.large"}})};
    objects_.pods = {ControllerPod("karpenter-a", "ng-0"), ControllerPod("karpenter-b", "ng-0")};
    objects_.node_claims = {NodeClaim("default-x", "True")};
  }

  std::map<std::string, Check> Checks() {
    std::map<std::string, Check> out;
    for (Check& check : VerifyMigration({&aws_, &objects_, &cluster_, &plan_, "kube-system"})) {
      out[check.name] = std::move(check);
    }
    return out;
  }

  // The checks that fail.
  std::vector<std::string> Failing() {
    std::vector<std::string> out;
    for (const auto& [name, check] : Checks()) {
      if (!check.ok) out.push_back(name);
    }
    return out;
  }

  AwsInventory aws_;
  ClusterObjects objects_;
  ClusterInventory cluster_;
  MigrationPlan plan_;
};

TEST_F(VerifyTest, AMigratedClusterPassesEveryCheck) {
  const std::map<std::string, Check> checks = Checks();
  EXPECT_EQ(checks.size(), 6);
  EXPECT_THAT(Failing(), ::testing::IsEmpty());
  EXPECT_EQ(checks.at("the controller runs on node-group nodes").detail, "2 pods Running");
}

TEST_F(VerifyTest, EachCheckFailsOnWhatItLooksFor) {
  plan_.steps[7].state = StepState::kToDo;
  plan_.steps[7].details = {"shrink node group general from 3 to 2 nodes"};
  EXPECT_THAT(Failing(), ::testing::ElementsAre("steps 1 to 8 done"));
  EXPECT_THAT(Checks().at("steps 1 to 8 done").detail, ::testing::HasSubstr("shrink node group"));
  plan_.steps[7].state = StepState::kDone;

  objects_.pods.push_back(ControllerPod("karpenter-c", "k-0"));
  EXPECT_THAT(Failing(), ::testing::ElementsAre("the controller runs on node-group nodes"));
  EXPECT_THAT(Checks().at("the controller runs on node-group nodes").detail,
              ::testing::HasSubstr("karpenter-c (Running, on k-0)"));
  objects_.pods.pop_back();
  objects_.pods.push_back(ControllerPod("karpenter-c", "ng-0", "Pending"));
  EXPECT_THAT(Failing(), ::testing::ElementsAre("the controller runs on node-group nodes"));
  objects_.pods.pop_back();

  objects_.node_claims.push_back(NodeClaim("default-y", "False"));
  EXPECT_THAT(Failing(), ::testing::ElementsAre("NodeClaims Ready"));
  objects_.node_claims.pop_back();

  objects_.nodes.push_back(Node("k-1", {{"karpenter.sh/nodepool", "default"}}));
  EXPECT_THAT(Failing(), ::testing::ElementsAre("Karpenter's nodes joined"));
  objects_.nodes.pop_back();
  objects_.nodes.pop_back();  // no Karpenter node at all
  EXPECT_THAT(Failing(), ::testing::ElementsAre("Karpenter's nodes joined"));
  objects_.nodes.push_back(Node("k-0", {{"karpenter.sh/nodepool", "default"},
                                        {"node.kubernetes.io/instance-type", "m5.large"}}));

  cluster_.pending_pods = 3;
  EXPECT_THAT(Failing(), ::testing::ElementsAre("no pod pending"));
  cluster_.pending_pods = 0;

  aws_.interruption_events.pop_back();  // no rule for spot interruptions
  EXPECT_THAT(Failing(), ::testing::ElementsAre("interruptions reach the controller"));
  EXPECT_THAT(Checks().at("interruptions reach the controller").detail,
              ::testing::HasSubstr("these events: EC2 Spot Instance Interruption Warning"));
  aws_.interruption_queue = false;
  EXPECT_THAT(Failing(), ::testing::ElementsAre("interruptions reach the controller"));
  EXPECT_THAT(Checks().at("interruptions reach the controller").detail,
              ::testing::HasSubstr("no SQS queue named prod"));
}

}  // namespace
}  // namespace karpenter::migrate
