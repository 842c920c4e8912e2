// Leader election on the memory store with a virtual clock: two replicas, "a" and "b", share one
// Lease.

#include "kube/leader_election.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/clock.h"
#include "kube/memory/memory_client.h"
#include "support/matchers.h"

namespace karpenter::kube {
namespace {

using std::chrono::seconds;

constexpr TimePoint kStart{seconds(1767225600)};  // 2026-01-01T00:00:00Z

LeaderElectionOptions Options(std::string identity) {
  LeaderElectionOptions options;
  options.identity = std::move(identity);
  options.lease_duration = seconds(15);
  return options;
}

bool Leads(LeaderElector& elector) {
  Result<bool> result = elector.TryAcquireOrRenew();
  EXPECT_THAT(result, IsOk());
  return result.ok() && *result;
}

// Passes every call to the store, and runs `before_write` (once) just before the next Create or
// Update: another replica acting between our read and our write.
class InterleavingClient final : public Client {
 public:
  explicit InterleavingClient(Client& inner) : inner_(inner) {}

  std::function<void()> before_write;

  Result<Object> Get(const Resource& resource, std::string_view namespace_,
                     std::string_view name) override {
    return inner_.Get(resource, namespace_, name);
  }
  Result<ObjectList> List(const Resource& resource, const ListOptions& options) override {
    return inner_.List(resource, options);
  }
  Result<std::unique_ptr<Watch>> StartWatch(const Resource& resource,
                                            const WatchOptions& options) override {
    return inner_.StartWatch(resource, options);
  }
  Result<Object> Create(const Resource& resource, const Object& object,
                        const WriteOptions& options) override {
    Interleave();
    return inner_.Create(resource, object, options);
  }
  Result<Object> Update(const Resource& resource, const Object& object,
                        Subresource subresource) override {
    Interleave();
    return inner_.Update(resource, object, subresource);
  }
  Result<Object> Patch(const Resource& resource, std::string_view namespace_, std::string_view name,
                       PatchType type, const Object& patch, Subresource subresource) override {
    return inner_.Patch(resource, namespace_, name, type, patch, subresource);
  }
  Status Delete(const Resource& resource, std::string_view namespace_, std::string_view name,
                const DeleteOptions& options) override {
    return inner_.Delete(resource, namespace_, name, options);
  }
  Status Evict(std::string_view namespace_, std::string_view pod_name,
               const DeleteOptions& options) override {
    return inner_.Evict(namespace_, pod_name, options);
  }

 private:
  void Interleave() {
    if (!before_write) return;
    std::function<void()> run = std::move(before_write);
    before_write = nullptr;
    run();
  }

  Client& inner_;
};

class LeaderElectionTest : public testing::Test {
 protected:
  Object Lease() {
    Result<Object> lease =
        client_.Get(resources::kLeases, "kube-system", "karpenter-leader-election");
    EXPECT_THAT(lease, IsOk());
    return lease.ok() ? (*lease)["spec"] : Object();
  }

  VirtualClock clock_{kStart};
  memory::MemoryClient client_{clock_};
  LeaderElector a_{client_, clock_, Options("a")};
  LeaderElector b_{client_, clock_, Options("b")};
};

TEST_F(LeaderElectionTest, FirstAcquiresAndTheSecondIsRefused) {
  EXPECT_TRUE(Leads(a_));
  EXPECT_FALSE(Leads(b_));
  const Object lease = Lease();
  EXPECT_EQ(lease["holderIdentity"], "a");
  EXPECT_EQ(lease["leaseDurationSeconds"], 15);
  EXPECT_EQ(lease["leaseTransitions"], 0);
  EXPECT_EQ(lease["acquireTime"], "2026-01-01T00:00:00.000000Z");
  EXPECT_EQ(lease["renewTime"], "2026-01-01T00:00:00.000000Z");
}

TEST_F(LeaderElectionTest, RenewalKeepsTheLeaseAcrossManyDurations) {
  ASSERT_TRUE(Leads(a_));
  for (int i = 0; i < 10; ++i) {
    clock_.Advance(seconds(10));
    EXPECT_TRUE(Leads(a_)) << i;
    clock_.Advance(seconds(4));
    EXPECT_FALSE(Leads(b_)) << i;  // 4s since a renewed: well within 15s
  }
  const Object lease = Lease();
  EXPECT_EQ(lease["holderIdentity"], "a");
  EXPECT_EQ(lease["acquireTime"], "2026-01-01T00:00:00.000000Z");
  EXPECT_EQ(lease["renewTime"], "2026-01-01T00:02:16.000000Z");
  EXPECT_EQ(lease["leaseTransitions"], 0);
}

TEST_F(LeaderElectionTest, TakesOverOnceTheLeaseExpires) {
  ASSERT_TRUE(Leads(a_));
  EXPECT_FALSE(Leads(b_));  // b sees the Lease from now on
  clock_.Advance(seconds(14));
  EXPECT_FALSE(Leads(b_));
  clock_.Advance(seconds(1));  // 15s since a last renewed
  EXPECT_TRUE(Leads(b_));
  Object lease = Lease();
  EXPECT_EQ(lease["holderIdentity"], "b");
  EXPECT_EQ(lease["leaseTransitions"], 1);
  EXPECT_EQ(lease["acquireTime"], "2026-01-01T00:00:15.000000Z");
  // The old leader learns it lost.
  EXPECT_FALSE(Leads(a_));
  EXPECT_TRUE(Leads(b_));

  clock_.Advance(seconds(20));
  EXPECT_TRUE(Leads(a_));
  lease = Lease();
  EXPECT_EQ(lease["holderIdentity"], "a");
  EXPECT_EQ(lease["leaseTransitions"], 2);
}

TEST_F(LeaderElectionTest, LeaseDurationOfTheHolderCounts) {
  LeaderElectionOptions long_lease = Options("slow");
  long_lease.lease_duration = seconds(60);
  LeaderElector slow(client_, clock_, long_lease);
  ASSERT_TRUE(Leads(slow));
  EXPECT_FALSE(Leads(b_));
  clock_.Advance(seconds(30));
  // b's own duration is 15s, but the Lease says 60.
  EXPECT_FALSE(Leads(b_));
  clock_.Advance(seconds(30));
  EXPECT_TRUE(Leads(b_));
}

// Expiry is timed from when a follower saw the Lease last change, on its monotonic clock: neither a
// renewTime written by a clock far behind nor the follower's own wall clock stepping matters.
TEST_F(LeaderElectionTest, ExpiryIsTimedFromWhenTheFollowerSawTheLeaseChange) {
  VirtualClock behind(kStart - std::chrono::hours(1));  // the holder's wall clock is an hour late
  LeaderElector late(client_, behind, Options("late"));
  ASSERT_TRUE(Leads(late));
  EXPECT_FALSE(Leads(b_));  // its renewTime is an hour old by b's wall clock; b just saw it
  clock_.Set(clock_.Now() - std::chrono::hours(2));  // b's wall clock is stepped back
  clock_.Advance(seconds(14));
  behind.Advance(seconds(14));
  EXPECT_FALSE(Leads(b_));
  EXPECT_TRUE(Leads(late));  // renewed: b times afresh from when it sees this
  clock_.Advance(seconds(1));
  EXPECT_FALSE(Leads(b_));
  clock_.Advance(seconds(14));
  EXPECT_FALSE(Leads(b_));
  clock_.Advance(seconds(1));
  EXPECT_TRUE(Leads(b_));  // 15 s since b saw the last renewal
}

TEST_F(LeaderElectionTest, SomeoneWhoNeverSawTheLeaseWaitsAFullDuration) {
  ASSERT_TRUE(Leads(a_));
  clock_.Advance(seconds(60));  // long unrenewed, but b has only just looked
  EXPECT_FALSE(Leads(b_));
  clock_.Advance(seconds(15));
  EXPECT_TRUE(Leads(b_));
}

TEST_F(LeaderElectionTest, ReleaseLetsAnotherAcquireAtOnce) {
  ASSERT_TRUE(Leads(a_));
  ASSERT_THAT(a_.Release(), IsOk());
  EXPECT_EQ(Lease()["holderIdentity"], "");
  EXPECT_TRUE(Leads(b_));
  EXPECT_EQ(Lease()["holderIdentity"], "b");
  EXPECT_EQ(Lease()["leaseTransitions"], 1);
  EXPECT_FALSE(Leads(a_));
}

TEST_F(LeaderElectionTest, ReleaseByANonHolderChangesNothing) {
  EXPECT_THAT(b_.Release(), IsOk());  // no Lease yet
  ASSERT_TRUE(Leads(a_));
  const Object before = Lease();
  EXPECT_THAT(b_.Release(), IsOk());
  EXPECT_EQ(Lease(), before);
  EXPECT_FALSE(Leads(b_));
}

TEST_F(LeaderElectionTest, RacingCreatesMakeOneLeader) {
  InterleavingClient racing(client_);
  LeaderElector a(racing, clock_, Options("a"));
  // Both find no Lease; b creates it between a's read and a's create.
  bool b_leads = false;
  racing.before_write = [&] { b_leads = Leads(b_); };
  EXPECT_FALSE(Leads(a));
  EXPECT_TRUE(b_leads);
  EXPECT_EQ(Lease()["holderIdentity"], "b");
}

TEST_F(LeaderElectionTest, RacingTakeoversMakeOneLeader) {
  ASSERT_TRUE(Leads(a_));
  InterleavingClient racing(client_);
  LeaderElector c(racing, clock_, Options("c"));
  EXPECT_FALSE(Leads(b_));
  EXPECT_FALSE(Leads(c));
  clock_.Advance(seconds(20));  // a stopped renewing: the Lease expired
  // c and b both read the expired Lease; b writes first, so c's write is stale.
  bool b_leads = false;
  racing.before_write = [&] { b_leads = Leads(b_); };
  EXPECT_FALSE(Leads(c));
  EXPECT_TRUE(b_leads);
  Object lease = Lease();
  EXPECT_EQ(lease["holderIdentity"], "b");
  EXPECT_EQ(lease["leaseTransitions"], 1);
  // Only b leads now.
  EXPECT_FALSE(Leads(c));
  EXPECT_FALSE(Leads(a_));
  EXPECT_TRUE(Leads(b_));
}

TEST_F(LeaderElectionTest, ARenewalRacingATakeoverKeepsOneLeader) {
  ASSERT_TRUE(Leads(a_));
  EXPECT_FALSE(Leads(b_));
  clock_.Advance(seconds(16));
  InterleavingClient racing(client_);
  LeaderElector a(racing, clock_, Options("a"));
  // a renews late; b took over between a's read and a's write.
  bool b_leads = false;
  racing.before_write = [&] { b_leads = Leads(b_); };
  EXPECT_FALSE(Leads(a));
  EXPECT_TRUE(b_leads);
  EXPECT_EQ(Lease()["holderIdentity"], "b");
}

TEST_F(LeaderElectionTest, NamespaceAndNameComeFromTheOptions) {
  LeaderElectionOptions options = Options("x");
  options.namespace_ = "default";
  options.lease_name = "other";
  LeaderElector x(client_, clock_, options);
  ASSERT_TRUE(Leads(x));
  EXPECT_THAT(client_.Get(resources::kLeases, "default", "other"), IsOk());
  // A different Lease: a is not in competition with x.
  EXPECT_TRUE(Leads(a_));
  EXPECT_EQ(x.options().lease_name, "other");
}

}  // namespace
}  // namespace karpenter::kube
