#include "kube/event_recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"
#include "kube/forwarding_client.h"
#include "kube/memory/memory_client.h"
#include "support/matchers.h"
#include "support/object_copies.h"

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

// The windows and limits on a virtual clock: written on the caller's thread, as a simulation does.
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
    return list.ok() ? support::Copies(list->items) : std::vector<Object>{};
  }

  void Record(const Object& involved, EventType type, std::string_view reason,
              std::string_view message) {
    recorder_.Record(involved, type, reason, message);
  }

  VirtualClock clock_{kStart};
  memory::MemoryClient client_{clock_};
  EventRecorder recorder_{client_, clock_, "karpenter", {.synchronous = true}};
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

TEST_F(EventRecorderTest, WriteFailuresAreCounted) {
  Object nowhere = kPod;
  nowhere["metadata"]["namespace"] = "no-such-namespace";
  Record(nowhere, EventType::kNormal, "Nominated", "x");
  EXPECT_TRUE(Events().empty());
  EXPECT_EQ(recorder_.counts().failed, 1u);
  EXPECT_EQ(recorder_.counts().written, 0u);
}

TEST_F(EventRecorderTest, AFailedWriteIsNoRepeat) {
  Object early = kPod;
  early["metadata"]["namespace"] = "later";
  Record(early, EventType::kWarning, "FailedScheduling", "no fit");
  ASSERT_THAT(client_.Create(resources::kNamespaces, {{"metadata", {{"name", "later"}}}}, {}),
              IsOk());
  clock_.Advance(seconds(10));
  Record(early, EventType::kWarning, "FailedScheduling", "no fit");
  EXPECT_EQ(Events("later").size(), 1u);
}

TEST_F(EventRecorderTest, ALongerRepeatWindowHoldsRepeatsLonger) {
  const auto record = [&] {
    recorder_.Record(kNodeClaim, EventType::kNormal, "DisruptionBlocked", "budget",
                     std::chrono::minutes(15));
  };
  record();
  clock_.Advance(std::chrono::minutes(14));
  record();
  EXPECT_EQ(Events("default").size(), 1u);
  clock_.Advance(std::chrono::minutes(1));
  record();
  EXPECT_EQ(Events("default").size(), 2u);
  EXPECT_EQ(recorder_.counts().repeats, 1u);
}

TEST_F(EventRecorderTest, EachObjectGetsABurstThenOneEventPerRefill) {
  for (int i = 0; i < 30; ++i) {
    Record(kPod, EventType::kNormal, "Nominated", "attempt " + std::to_string(i));
  }
  // Another object has its own burst.
  Record(kNodeClaim, EventType::kNormal, "Launched", "x");
  EXPECT_EQ(Events("shop").size(), 25u);
  EXPECT_EQ(Events("default").size(), 1u);
  EXPECT_EQ(recorder_.counts().rate_limited, 5u);
  // One more after each 5 minutes.
  clock_.Advance(std::chrono::minutes(4));
  Record(kPod, EventType::kNormal, "Nominated", "after 4 minutes");
  EXPECT_EQ(Events("shop").size(), 25u);
  clock_.Advance(std::chrono::minutes(1));
  Record(kPod, EventType::kNormal, "Nominated", "after 5 minutes");
  Record(kPod, EventType::kNormal, "Nominated", "again");
  EXPECT_EQ(Events("shop").size(), 26u);
  EXPECT_EQ(recorder_.counts().rate_limited, 7u);
  EXPECT_EQ(recorder_.counts().written, 27u);
}

// A client whose Creates wait until the test opens the gate: an API server that is slow.
class GatedClient : public ForwardingClient {
 public:
  explicit GatedClient(Client& next) : ForwardingClient(next) {}

  Result<Object> Create(const Resource& resource, const Object& object,
                        const WriteOptions& options) override {
    {
      MutexLock lock(mutex_);
      ++waiting_;
      changed_.NotifyAll();
      while (!open_) changed_.Wait(lock);
      --waiting_;
    }
    return ForwardingClient::Create(resource, object, options);
  }
  void Open() {
    MutexLock lock(mutex_);
    open_ = true;
    changed_.NotifyAll();
  }
  // Until a Create is held at the gate.
  void AwaitWriter() {
    MutexLock lock(mutex_);
    while (waiting_ == 0) changed_.Wait(lock);
  }

 private:
  Mutex mutex_;
  CondVar changed_;
  bool open_ GUARDED_BY(mutex_) = false;
  int waiting_ GUARDED_BY(mutex_) = 0;
};

// As the controller runs it: written by the recorder's own thread.
class AsyncEventRecorderTest : public EventRecorderTest {
 protected:
  GatedClient gated_{client_};
};

TEST_F(AsyncEventRecorderTest, RecordingDoesNotWaitForTheApiServer) {
  EventRecorder recorder(gated_, clock_, "karpenter", {.queue_capacity = 3});
  // The first is taken by the writer, which the API server holds; three wait in the queue; the
  // queue is full for the rest. None of this waits.
  recorder.Record(kPod, EventType::kNormal, "Nominated", "0");
  gated_.AwaitWriter();
  for (int i = 1; i < 6; ++i) {
    recorder.Record(kPod, EventType::kNormal, "Nominated", std::to_string(i));
  }
  EXPECT_EQ(recorder.counts().queue_full, 2u);
  EXPECT_EQ(recorder.counts().written, 0u);
  gated_.Open();
  recorder.Flush();
  EXPECT_EQ(recorder.counts().written, 4u);
  std::set<std::string> messages;
  for (const Object& event : Events("shop")) messages.insert(event["message"].get<std::string>());
  EXPECT_THAT(messages, ElementsAre("0", "1", "2", "3"));
  // A dropped event was never recorded: recorded again, it is written.
  recorder.Record(kPod, EventType::kNormal, "Nominated", "5");
  recorder.Flush();
  EXPECT_EQ(Events("shop").size(), 5u);
}

TEST_F(AsyncEventRecorderTest, FailuresOnTheWritersThreadAreCounted) {
  EventRecorder recorder(client_, clock_, "karpenter");
  Object nowhere = kPod;
  nowhere["metadata"]["namespace"] = "no-such-namespace";
  recorder.Record(nowhere, EventType::kNormal, "Nominated", "x");
  recorder.Record(kPod, EventType::kNormal, "Nominated", "x");
  recorder.Flush();
  EXPECT_EQ(recorder.counts().failed, 1u);
  EXPECT_EQ(recorder.counts().written, 1u);
  // The failed one is no repeat.
  recorder.Record(nowhere, EventType::kNormal, "Nominated", "x");
  recorder.Flush();
  EXPECT_EQ(recorder.counts().failed, 2u);
  EXPECT_EQ(recorder.counts().repeats, 0u);
}

TEST_F(AsyncEventRecorderTest, StoppingDoesNotWaitForTheQueue) {
  {
    EventRecorder recorder(gated_, clock_, "karpenter");
    recorder.Record(kPod, EventType::kNormal, "Nominated", "held");
    gated_.AwaitWriter();
    recorder.Record(kPod, EventType::kNormal, "Nominated", "queued");
    gated_.Open();  // the held write finishes; the queued one is abandoned or written
  }
  std::set<std::string> messages;
  for (const Object& event : Events("shop")) messages.insert(event["message"].get<std::string>());
  EXPECT_TRUE(messages.contains("held"));  // the write in progress finished
  EXPECT_LE(messages.size(), 2u);
}

}  // namespace
}  // namespace karpenter::kube
