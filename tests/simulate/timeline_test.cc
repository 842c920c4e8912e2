#include "simulate/timeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "support/matchers.h"

namespace karpenter::simulate {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::HasSubstr;

TEST(Timeline, ParsesNodeGroupsAndEveryActionSortedByTime) {
  Result<Timeline> timeline = ParseTimeline(R"(
nodeGroups:
  - {name: general, instanceType: m5.xlarge, size: 6, zones: [us-east-1a, us-east-1b],
     capacityType: SPOT, labels: {role: general}}
actions:
  - {at: 10m, interruptSpot: {zone: us-east-1a}}
  - {at: 30s, scaleNodeGroup: {name: general, size: 2, batch: 3}}
  - {at: 5m, scale: {kind: Deployment, namespace: shop, name: web, replicas: 12}}
  - {at: 6m, apply: {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}}}
  - {at: 7m, delete: {kind: Deployment, namespace: shop, name: web}}
  - {at: 12m, unavailable: {instanceType: c6i.xlarge, zone: us-east-1a, capacityType: spot}}
  - {at: 0s, note: CAS scaled to 0}
  - {at: 15m, nodeCondition: {nodePool: default, nodes: 2, type: Ready, status: "False"}}
)",
                                            "timeline.yaml");
  ASSERT_THAT(timeline, IsOk());
  ASSERT_EQ(timeline->node_groups.size(), 1u);
  const NodeGroupSpec& group = timeline->node_groups[0];
  EXPECT_EQ(group.name, "general");
  EXPECT_EQ(group.instance_type, "m5.xlarge");
  EXPECT_EQ(group.size, 6);
  EXPECT_TRUE(group.spot);
  EXPECT_EQ(group.zones, (std::vector<std::string>{"us-east-1a", "us-east-1b"}));
  EXPECT_EQ(group.labels.at("role"), "general");

  ASSERT_EQ(timeline->actions.size(), 8u);
  std::vector<milliseconds> times;
  for (const Action& action : timeline->actions) times.push_back(action.at);
  EXPECT_EQ(times, (std::vector<milliseconds>{seconds(0), seconds(30), minutes(5), minutes(6),
                                              minutes(7), minutes(10), minutes(12), minutes(15)}));
  EXPECT_EQ(Describe(timeline->actions[0].kind), "CAS scaled to 0");
  const auto& scale = std::get<ScaleNodeGroup>(timeline->actions[1].kind);
  EXPECT_EQ(scale.size, 2);
  EXPECT_EQ(scale.batch, 3);
  EXPECT_EQ(Describe(timeline->actions[1].kind), "scale node group general to 2 (3 at a time)");
  const auto& workload = std::get<ScaleWorkload>(timeline->actions[2].kind);
  EXPECT_EQ(workload.namespace_, "shop");
  EXPECT_EQ(workload.replicas, 12);
  EXPECT_EQ(Describe(timeline->actions[3].kind), "apply Pod default/p");
  EXPECT_EQ(Describe(timeline->actions[4].kind), "delete Deployment shop/web");
  EXPECT_EQ(Describe(timeline->actions[5].kind), "interrupt spot capacity in us-east-1a");
  EXPECT_EQ(Describe(timeline->actions[6].kind), "make c6i.xlarge spot in us-east-1a unavailable");
  const auto& condition = std::get<SetNodeCondition>(timeline->actions[7].kind);
  EXPECT_EQ(condition.node_pool, "default");
  EXPECT_EQ(condition.nodes, 2);
  EXPECT_EQ(Describe(timeline->actions[7].kind), "set Ready=False on 2 nodes of NodePool default");
}

TEST(Timeline, ANodeGroupMayShrinkAsMigrateApplyDoes) {
  Result<Timeline> timeline = ParseTimeline(R"(
actions:
  - {at: 1m, scaleNodeGroup: {name: ng, size: 0, batch: 2, settle: true}}
)",
                                            "t.yaml");
  ASSERT_THAT(timeline, IsOk());
  EXPECT_TRUE(std::get<ScaleNodeGroup>(timeline->actions[0].kind).settle);
  EXPECT_EQ(Describe(timeline->actions[0].kind),
            "scale node group ng to 0 (2 at a time, each batch settled)");
  Result<Timeline> bad = ParseTimeline(R"(
actions:
  - {at: 1m, scaleNodeGroup: {name: ng, size: 0, settle: sometimes}}
)",
                                       "bad.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("actions[0].scaleNodeGroup.settle:"));
}

TEST(Timeline, DefaultsBatchToOneAndNamespaceToDefault) {
  Result<Timeline> timeline = ParseTimeline(R"({"actions": [
    {"at": "1m", "scaleNodeGroup": {"name": "ng", "size": 0}},
    {"at": "2m", "scale": {"kind": "StatefulSet", "name": "db", "replicas": 3}}]})",
                                            "t.json");
  ASSERT_THAT(timeline, IsOk());
  EXPECT_EQ(std::get<ScaleNodeGroup>(timeline->actions[0].kind).batch, 1);
  EXPECT_FALSE(std::get<ScaleNodeGroup>(timeline->actions[0].kind).settle);
  EXPECT_EQ(std::get<ScaleWorkload>(timeline->actions[1].kind).namespace_, "default");
}

TEST(Timeline, EmptyTimelineIsValid) {
  Result<Timeline> timeline = ParseTimeline("actions: []\n", "t.yaml");
  ASSERT_THAT(timeline, IsOk());
  EXPECT_TRUE(timeline->actions.empty());
  EXPECT_TRUE(timeline->node_groups.empty());
}

// Every problem is reported, each naming the file, the line, the entry and the field.
TEST(Timeline, ErrorsNameTheEntryAndTheField) {
  Result<Timeline> timeline = ParseTimeline(R"(nodeGroups:
  - {name: a, instanceType: m5.large, size: 1}
  - {name: a, instanceType: m5.large, size: -1, capacityType: RESERVED}
  - {instanceType: m5.large, size: 1, color: blue}
actions:
  - {at: soon, note: x}
  - {at: -1m, note: x}
  - {at: 1m, a: {}}
  - {at: 1m, note: x, interruptSpot: {zone: a}}
  - {at: 1m, scale: {kind: CronJob, name: x, replicas: 1}}
  - {at: 1m, scaleNodeGroup: {name: a, size: 1, batch: 0}}
  - {at: 1m, unavailable: {instanceType: x, capacityType: cheap}}
  - {note: no time}
  - {at: 1m, nodeCondition: {nodePool: a, nodeGroup: b, type: Ready, status: Bad, nodes: 0}}
)",
                                            "bad.yaml");
  ASSERT_FALSE(timeline.ok());
  const std::string& message = timeline.error().message;
  EXPECT_THAT(message, HasSubstr("bad.yaml:1: nodeGroups[1].name: duplicate node group \"a\""));
  EXPECT_THAT(message, HasSubstr("bad.yaml:1: nodeGroups[1].size:"));
  EXPECT_THAT(message, HasSubstr("nodeGroups[1].capacityType: unknown capacity type \"RESERVED\""));
  EXPECT_THAT(message, HasSubstr("nodeGroups[2].name: required"));
  EXPECT_THAT(message, HasSubstr("nodeGroups[2].color: unknown field"));
  EXPECT_THAT(message, HasSubstr("actions[0].at: invalid duration \"soon\""));
  EXPECT_THAT(message, HasSubstr("actions[1].at: must not be negative"));
  EXPECT_THAT(message, HasSubstr("actions[2].a: unknown action; expected scaleNodeGroup"));
  EXPECT_THAT(message, HasSubstr("actions[3]: needs exactly one of"));
  EXPECT_THAT(message, HasSubstr("actions[4].scale.kind: must be Deployment, ReplicaSet"));
  EXPECT_THAT(message, HasSubstr("actions[5].scaleNodeGroup.batch: must be at least 1"));
  EXPECT_THAT(message, HasSubstr("actions[6].unavailable.capacityType: must be spot"));
  EXPECT_THAT(message, HasSubstr("actions[7].at: required"));
  EXPECT_THAT(message, HasSubstr("actions[8].nodeCondition: needs one of nodePool and nodeGroup"));
  EXPECT_THAT(message, HasSubstr("actions[8].nodeCondition.nodes: must be at least 1"));
  EXPECT_THAT(message,
              HasSubstr("actions[8].nodeCondition.status: must be True, False or Unknown"));
}

TEST(Timeline, RejectsMoreThanOneDocumentAndBadYaml) {
  Result<Timeline> two = ParseTimeline("actions: []\n---\nactions: []\n", "two.yaml");
  ASSERT_FALSE(two.ok());
  EXPECT_THAT(two.error().message, HasSubstr("two.yaml: a timeline is one document, found 2"));
  Result<Timeline> broken = ParseTimeline("actions: [\n", "broken.yaml");
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.error().message, HasSubstr("broken.yaml:"));
}

}  // namespace
}  // namespace karpenter::simulate
