#include "kube/event_recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "kube/memory/memory_client.h"
#include "support/matchers.h"

namespace karpenter::kube {
namespace {

using std::chrono::seconds;
using testing::ElementsAre;

constexpr TimePoint kStart{seconds(1767225600)};  // 2026-01-01T00:00:00Z

const Object kPod = {{"apiVersion", "v1"},
                     {"kind", "Pod"},
                     {"metadata", {{"name", "web-1"}, {"namespace", "shop"}, {"uid", "uid-pod"}}}};
const Object kNodeClaim = {{"apiVersion", "karpenter.sh/v1"},
                           {"kind", "NodeClaim"},
                           {"metadata", {{"name", "default-x7k2p"}, {"uid", "uid-claim"}}}};

class EventRecorderTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(client_.Create(resources::kNamespaces, {{"metadata", {{"name", "shop"}}}}, {}),
                IsOk());
  }

  std::vector<Object> Events(const std::string& namespace_ = "") {
    ListOptions options;
    options.namespace_ = namespace_;
    Result<ObjectList> list = client_.List(resources::kEvents, options);
    EXPECT_THAT(list, IsOk());
    return list.ok() ? list->items : std::vector<Object>{};
  }

  void Record(const Object& involved, EventType type, std::string_view reason,
              std::string_view message) {
    Status recorded = recorder_.Record(involved, type, reason, message);
    ASSERT_THAT(recorded, IsOk());
  }

  VirtualClock clock_{kStart};
  memory::MemoryClient client_{clock_};
  EventRecorder recorder_{client_, clock_, "karpenter"};
};

TEST_F(EventRecorderTest, EventDescribesTheObjectAndWhy) {
  clock_.Advance(seconds(5));
  Record(kPod, EventType::kNormal, "Nominated", "Pod should schedule on: nodeclaim/default-x7k2p");
  const std::vector<Object> events = Events();
  ASSERT_EQ(events.size(), 1u);
  const Object& event = events[0];
  EXPECT_EQ(Namespace(event), "shop");
  EXPECT_EQ(event["involvedObject"], Object::parse(R"({"apiVersion": "v1", "kind": "Pod",
      "name": "web-1", "namespace": "shop", "uid": "uid-pod"})"));
  EXPECT_EQ(event["type"], "Normal");
  EXPECT_EQ(event["reason"], "Nominated");
  EXPECT_EQ(event["message"], "Pod should schedule on: nodeclaim/default-x7k2p");
  EXPECT_EQ(event["source"], Object::parse(R"({"component": "karpenter"})"));
  EXPECT_EQ(event["reportingComponent"], "karpenter");
  EXPECT_EQ(event["firstTimestamp"], "2026-01-01T00:00:05Z");
  EXPECT_EQ(event["lastTimestamp"], "2026-01-01T00:00:05Z");
  EXPECT_EQ(event["count"], 1);
  EXPECT_THAT(std::string(Name(event)), testing::StartsWith("web-1."));
}

TEST_F(EventRecorderTest, WarningType) {
  Record(kPod, EventType::kWarning, "FailedScheduling", "no instance type fits");
  ASSERT_EQ(Events().size(), 1u);
  EXPECT_EQ(Events()[0]["type"], "Warning");
}

TEST_F(EventRecorderTest, ClusterScopedObjectsGetEventsInDefault) {
  Record(kNodeClaim, EventType::kWarning, "InsufficientCapacityError", "no offering");
  ASSERT_EQ(Events("default").size(), 1u);
  const Object event = Events("default")[0];
  EXPECT_EQ(event["involvedObject"]["kind"], "NodeClaim");
  EXPECT_EQ(event["involvedObject"]["apiVersion"], "karpenter.sh/v1");
  EXPECT_EQ(event["involvedObject"]["name"], "default-x7k2p");
  EXPECT_EQ(event["involvedObject"]["namespace"], "");
  EXPECT_EQ(event["involvedObject"]["uid"], "uid-claim");
}

TEST_F(EventRecorderTest, RepeatsWithinAMinuteAreDropped) {
  Record(kPod, EventType::kWarning, "FailedScheduling", "no fit");
  clock_.Advance(seconds(30));
  Record(kPod, EventType::kWarning, "FailedScheduling", "no fit");
  clock_.Advance(seconds(29));
  Record(kPod, EventType::kWarning, "FailedScheduling", "no fit");
  EXPECT_EQ(Events().size(), 1u);
  // A minute after the one recorded, the same event is recorded again.
  clock_.Advance(seconds(1));
  Record(kPod, EventType::kWarning, "FailedScheduling", "no fit");
  const std::vector<Object> events = Events();
  ASSERT_EQ(events.size(), 2u);
  std::set<std::string> times;
  for (const Object& event : events) times.insert(event["firstTimestamp"].get<std::string>());
  EXPECT_THAT(times, ElementsAre("2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z"));
}

TEST_F(EventRecorderTest, DifferentReasonMessageOrObjectIsNotARepeat) {
  Record(kPod, EventType::kWarning, "FailedScheduling", "no fit");
  Record(kPod, EventType::kWarning, "FailedScheduling", "still no fit");
  Record(kPod, EventType::kNormal, "Nominated", "no fit");
  Object other = kPod;
  other["metadata"]["name"] = "web-2";
  other["metadata"]["uid"] = "uid-pod-2";
  Record(other, EventType::kWarning, "FailedScheduling", "no fit");
  // At the same instant: names stay unique.
  const std::vector<Object> events = Events();
  ASSERT_EQ(events.size(), 4u);
  std::set<std::string> names;
  for (const Object& event : events) names.emplace(Name(event));
  EXPECT_EQ(names.size(), 4u);
}

TEST_F(EventRecorderTest, ARecreatedObjectIsNotARepeat) {
  Record(kPod, EventType::kWarning, "FailedScheduling", "no fit");
  Object recreated = kPod;
  recreated["metadata"]["uid"] = "uid-pod-new";
  Record(recreated, EventType::kWarning, "FailedScheduling", "no fit");
  EXPECT_EQ(Events().size(), 2u);
}

TEST_F(EventRecorderTest, WriteFailuresAreReturned) {
  Object nowhere = kPod;
  nowhere["metadata"]["namespace"] = "no-such-namespace";
  const Status recorded = recorder_.Record(nowhere, EventType::kNormal, "Nominated", "x");
  ASSERT_FALSE(recorded.ok());
  EXPECT_EQ(recorded.error().status, 404);
  EXPECT_TRUE(Events().empty());
}

TEST_F(EventRecorderTest, AFailedWriteIsNoRepeat) {
  Object early = kPod;
  early["metadata"]["namespace"] = "later";
  ASSERT_FALSE(recorder_.Record(early, EventType::kWarning, "FailedScheduling", "no fit").ok());
  ASSERT_THAT(client_.Create(resources::kNamespaces, {{"metadata", {{"name", "later"}}}}, {}),
              IsOk());
  clock_.Advance(seconds(10));
  Record(early, EventType::kWarning, "FailedScheduling", "no fit");
  EXPECT_EQ(Events("later").size(), 1u);
}

}  // namespace
}  // namespace karpenter::kube
