// Two `karpenter controller` replicas against the test cluster: one leads, the other waits and
// takes over when the leader dies.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <regex>
#include <string>

#include "support/cluster.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;
using std::chrono::steady_clock;

std::vector<std::string> ReplicaArgs() {
  std::vector<std::string> args = support::SimControllerArgs(KARPENTER_TESTENV_KUBECONFIG);
  std::erase(args, "--leader-elect=false");
  // A lease of its own, so no other test's controller competes.
  args.insert(args.end(),
              {"--leader-elect=true", "--leader-election-name", "karpenter-leader-election-test"});
  return args;
}

bool Leads(const support::ControllerProcess& replica) {
  return replica.Log().find("acquired leadership") != std::string::npos;
}

// The port the replica serves /healthz and /readyz on, from its log; 0 before it says.
int HealthPort(const support::ControllerProcess& replica) {
  static const std::regex kServing(R"re("serving health probes"[^\n]*"port":(\d+))re");
  std::smatch match;
  const std::string log = replica.Log();
  return std::regex_search(log, match, kServing) ? std::stoi(match[1]) : 0;
}

TEST(LeaderElection, SecondReplicaWaitsThenTakesOverWithinTheLeaseDuration) {
  const std::string dir = ::testing::TempDir();
  std::remove((dir + "leader-a.log").c_str());
  std::remove((dir + "leader-b.log").c_str());
  support::ControllerProcess a(KARPENTER_BINARY, ReplicaArgs(), dir + "leader-a.log");
  ASSERT_TRUE(support::WaitFor([&] { return Leads(a); }, seconds(30))) << a.Log();
  support::ControllerProcess b(KARPENTER_BINARY, ReplicaArgs(), dir + "leader-b.log");
  ASSERT_TRUE(support::WaitFor(
      [&] { return b.Log().find("waiting for leadership") != std::string::npos; }, seconds(30)))
      << b.Log();
  std::this_thread::sleep_for(seconds(3));
  EXPECT_FALSE(Leads(b)) << "two leaders at once";
  // The standby is ready: the chart's PodDisruptionBudget (maxUnavailable 1) counts it as
  // available, so a drain of the leader's node is not blocked by it.
  const int port = HealthPort(b);
  ASSERT_GT(port, 0) << b.Log();
  httplib::Client health("127.0.0.1", port);
  const httplib::Result ready = health.Get("/readyz");
  ASSERT_TRUE(ready) << "no answer on " << port;
  EXPECT_EQ(ready->status, 200) << ready->body;

  a.Kill();  // dies without releasing the lease
  const auto died = steady_clock::now();
  ASSERT_TRUE(
      support::WaitFor([&] { return Leads(b); }, seconds(30), std::chrono::milliseconds(100)))
      << b.Log();
  const double takeover = std::chrono::duration<double>(steady_clock::now() - died).count();
  // The lease lasts 15 s from its last renewal (at most 1 s before the death); the follower
  // retries every 250 ms.
  EXPECT_LE(takeover, 15.5) << "took over after " << takeover << " s";
  RecordProperty("takeover_seconds", std::to_string(takeover));

  // A graceful stop releases the lease, so a new replica leads at once.
  EXPECT_EQ(b.Stop(), 0);
  support::ControllerProcess c(KARPENTER_BINARY, ReplicaArgs(), dir + "leader-c.log");
  const auto started = steady_clock::now();
  ASSERT_TRUE(support::WaitFor([&] { return Leads(c); }, seconds(10))) << c.Log();
  EXPECT_LT(std::chrono::duration<double>(steady_clock::now() - started).count(), 5.0);
}

}  // namespace
}  // namespace karpenter::integration
