// Two `karpenter controller` replicas against the test cluster, each run as the chart runs it (the
// chart's ServiceAccount, Role and Lease): one leads, the other waits and takes over when the
// leader dies.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <memory>
#include <regex>
#include <string>

#include "support/cluster.h"
#include "support/matchers.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;
using std::chrono::steady_clock;

// A replica as the chart runs it: leader election on, the chart's Lease, under the chart's Role.
std::unique_ptr<support::ControllerProcess> Replica(const std::string& log) {
  Result<support::ChartIdentity> identity = support::ReadChartIdentity(KARPENTER_TESTENV_DIR);
  EXPECT_THAT(identity, IsOk());
  if (!identity.ok()) return nullptr;
  std::remove(log.c_str());
  return std::make_unique<support::ControllerProcess>(
      KARPENTER_BINARY, support::SimControllerArgs(*identity), log, identity->env);
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
  const std::unique_ptr<support::ControllerProcess> replica_a = Replica(dir + "leader-a.log");
  ASSERT_NE(replica_a, nullptr);
  support::ControllerProcess& a = *replica_a;
  // A Lease left by an earlier test's killed controller expires within its 15 s.
  ASSERT_TRUE(support::WaitFor([&] { return Leads(a); }, seconds(30))) << a.Log();
  const std::unique_ptr<support::ControllerProcess> replica_b = Replica(dir + "leader-b.log");
  support::ControllerProcess& b = *replica_b;
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
  // The follower times the lease's 15 s from when it saw the last renewal (before the death; it
  // looks every 250 ms), and looks again within 250 ms of the expiry: the bound is a property of
  // the protocol, with a second to spare for a loaded machine.
  EXPECT_LE(takeover, 16.5) << "took over after " << takeover << " s";
  RecordProperty("takeover_seconds", std::to_string(takeover));

  // A graceful stop releases the lease, so a new replica leads at once.
  EXPECT_EQ(b.Stop(), 0);
  const std::unique_ptr<support::ControllerProcess> c = Replica(dir + "leader-c.log");
  const auto started = steady_clock::now();
  ASSERT_TRUE(support::WaitFor([&] { return Leads(*c); }, seconds(10))) << c->Log();
  EXPECT_LT(std::chrono::duration<double>(steady_clock::now() - started).count(), 5.0);
}

}  // namespace
}  // namespace karpenter::integration
