// The chaos benchmark's counters count what they claim to: each is shown an injected case and the
// look-alikes that are not one.

#include "chaos_audit.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace karpenter::bench {
namespace {

using std::chrono::seconds;

TimePoint At(int second) { return TimePoint(seconds(1'800'000'000 + second)); }

std::string AuditLine(const std::string& verb, const std::string& pod,
                      const std::string& subresource, const std::string& agent, int second,
                      int code = 200) {
  std::string line = R"({"kind":"Event","stage":"ResponseComplete","user":{"username":"u"},)"
                     R"("verb":")" +
                     verb + R"(","userAgent":")" + agent +
                     R"(","objectRef":{"resource":"pods","namespace":"chaos","name":")" + pod +
                     R"(")";
  if (!subresource.empty()) line += R"(,"subresource":")" + subresource + R"(")";
  line += R"(},"responseStatus":{"code":)" + std::to_string(code) +
          R"(},"requestReceivedTimestamp":")" + FormatMicroTime(At(second)) + R"("})";
  return line + "\n";
}

TEST(ChaosAuditTest, ReadsTheRemovalsOfTheNamespaceSinceTheStart) {
  std::istringstream log(
      AuditLine("delete", "a", "", "kwok", 10) +
      AuditLine("create", "b", "eviction", "karpenter", 11) +
      AuditLine("delete", "old", "", "kwok", 1) + AuditLine("get", "c", "", "karpenter", 12) +
      AuditLine("create", "d", "binding", "kube-scheduler", 12) + "not json\n" +
      R"({"stage":"ResponseComplete","verb":"delete","objectRef":{"resource":"pods","namespace":"other","name":"e"},"requestReceivedTimestamp":"2027-01-15T08:00:10Z"})"
      "\n");
  const std::vector<PodRemoval> removals = ReadPodRemovals(log, "chaos", At(5));
  ASSERT_EQ(removals.size(), 2U);
  EXPECT_EQ(removals[0].pod, "a");
  EXPECT_FALSE(removals[0].eviction);
  EXPECT_EQ(removals[1].pod, "b");
  EXPECT_TRUE(removals[1].eviction);
  EXPECT_EQ(removals[1].user, "u");
  EXPECT_EQ(removals[1].user_agent, "karpenter");
}

TEST(ChaosAuditTest, ADeletionOfAReadyPodWhoseBudgetAllowsNoneIsAViolation) {
  const std::vector<ClusterSample> samples = {
      {At(0), {{"a-1", "a"}, {"a-2", "a"}}, {{"a", 0}}},
      {At(20), {{"a-2", "a"}}, {{"a", 0}}},
  };
  std::istringstream log(AuditLine("delete", "a-1", "", "curl/8", 10));
  const std::vector<PdbViolation> violations =
      PdbViolations(ReadPodRemovals(log, "chaos", At(0)), samples);
  ASSERT_EQ(violations.size(), 1U);
  EXPECT_EQ(violations[0].pod, "a-1");
  EXPECT_EQ(violations[0].workload, "a");
  EXPECT_EQ(violations[0].by, "u (curl/8)");
}

TEST(ChaosAuditTest, EvictionsScaleDownsRefusalsAndAllowedDeletionsAreNot) {
  const std::vector<ClusterSample> samples = {
      {At(0), {{"a-1", "a"}, {"a-2", "a"}, {"a-3", "a"}, {"b-1", "b"}}, {{"a", 0}, {"b", 1}}},
  };
  std::istringstream log(
      // The eviction API decided (it enforces budgets); the kubelet then finishes the removal.
      AuditLine("create", "a-1", "eviction", "karpenter", 10, 201) +
      AuditLine("delete", "a-1", "", "kwok", 11) +
      // A ReplicaSet scaling down is the workload's own choice.
      AuditLine("delete", "a-2", "", "kube-controller-manager/v1.33.0/replicaset-controller", 12) +
      // Refused: nothing removed.
      AuditLine("delete", "a-3", "", "curl/8", 13, 403) +
      // Its budget allowed one.
      AuditLine("delete", "b-1", "", "curl/8", 14));
  EXPECT_TRUE(PdbViolations(ReadPodRemovals(log, "chaos", At(0)), samples).empty());
}

TEST(ChaosAuditTest, APodLostWithItsNodeCountsToo) {
  const std::vector<ClusterSample> samples = {{At(0), {{"a-1", "a"}}, {{"a", 0}}}};
  std::istringstream log(
      AuditLine("delete", "a-1", "", "kube-controller-manager/v1.33.0/pod-garbage-collector", 5));
  EXPECT_EQ(PdbViolations(ReadPodRemovals(log, "chaos", At(0)), samples).size(), 1U);
}

TEST(ChaosAuditTest, AClaimForPodsAnotherInFlightClaimHoldsIsADuplicate) {
  const std::map<std::string, ClaimSighting> claims = {
      {"first", {At(0), At(30)}},    // in flight until 30 s
      {"second", {At(10), At(20)}},  // made at 10 s for the same pods
  };
  const std::vector<Nomination> nominations = {{"p", "first", At(0)},
                                               {"q", "first", At(0)},
                                               {"p", "second", At(10)},
                                               {"q", "second", At(10)}};
  EXPECT_EQ(DuplicateClaims(nominations, claims), std::vector<std::string>{"second"});
}

TEST(ChaosAuditTest, AClaimAfterTheFirstWasGoneOrForNewPodsIsNot) {
  // The first claim failed (no capacity) before the second was made.
  const std::map<std::string, ClaimSighting> gone = {{"first", {At(0), At(5)}},
                                                     {"second", {At(10), At(20)}}};
  const std::vector<Nomination> moved = {{"p", "first", At(0)}, {"p", "second", At(10)}};
  EXPECT_TRUE(DuplicateClaims(moved, gone).empty());
  // The second claim also holds a pod nobody provided for.
  const std::map<std::string, ClaimSighting> live = {{"first", {At(0), At(30)}},
                                                     {"second", {At(10), At(20)}}};
  const std::vector<Nomination> mixed = {
      {"p", "first", At(0)}, {"p", "second", At(10)}, {"new", "second", At(10)}};
  EXPECT_TRUE(DuplicateClaims(mixed, live).empty());
  // Pods nominated to an in-flight claim later in its life do not make it a duplicate.
  const std::vector<Nomination> later = {{"p", "second", At(10)}, {"p", "first", At(25)}};
  EXPECT_TRUE(DuplicateClaims(later, live).empty());
}

TEST(ChaosAuditTest, AClaimWithASecondInstanceWasLaunchedTwice) {
  EXPECT_EQ(ClaimsLaunchedTwice({{"a", {"i-1"}}, {"b", {"i-2", "i-3", "i-4"}}}),
            (std::map<std::string, size_t>{{"b", 3}}));
  EXPECT_TRUE(ClaimsLaunchedTwice({{"a", {"i-1"}}}).empty());
}

}  // namespace
}  // namespace karpenter::bench
