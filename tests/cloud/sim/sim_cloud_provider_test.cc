#include "cloud/sim/sim_cloud_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "cloud/catalog.h"
#include "support/matchers.h"

namespace karpenter::cloud {
namespace {

using Op = api::NodeSelectorOperator;
using std::chrono::seconds;
using testing::ElementsAre;
using testing::HasSubstr;

constexpr TimePoint kStart{seconds(1767225600)};  // 2026-01-01T00:00:00Z

// Three types: the arm64 one is cheapest overall, the amd64 ones differ in size. Only small types
// reserve some overhead.
constexpr std::string_view kCatalog = R"({"instanceTypes": [
  {"name": "small-amd", "labels": {"kubernetes.io/arch": "amd64"},
   "capacity": {"cpu": "2", "memory": "4Gi", "pods": 20},
   "overhead": {"kubeReserved": {"cpu": "100m", "memory": "256Mi"}},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.10},
                 {"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.11},
                 {"zone": "us-east-1a", "capacityType": "spot", "price": 0.04}]},
  {"name": "large-amd", "labels": {"kubernetes.io/arch": "amd64"},
   "capacity": {"cpu": "8", "memory": "32Gi"},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.40},
                 {"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.38},
                 {"zone": "us-east-1b", "capacityType": "spot", "price": 0.15}]},
  {"name": "small-arm", "labels": {"kubernetes.io/arch": "arm64"},
   "capacity": {"cpu": "2", "memory": "4Gi"},
   "offerings": [{"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.08},
                 {"zone": "us-east-1b", "capacityType": "spot", "price": 0.03}]}
]})";

std::vector<InstanceType> Catalog() {
  Result<std::vector<InstanceType>> catalog = ParseCatalogJson(kCatalog, "test");
  EXPECT_THAT(catalog, IsOk());
  return catalog.ok() ? std::move(*catalog) : std::vector<InstanceType>{};
}

api::NodeClaim Claim(std::string name, std::vector<api::NodeSelectorRequirement> requirements = {},
                     int64_t milli_cpu = 1000) {
  api::NodeClaim claim;
  claim.metadata.name = std::move(name);
  claim.metadata.labels[std::string(api::kLabelNodePool)] = "default";
  claim.spec.requirements = std::move(requirements);
  claim.spec.resource_requests.Set(api::kResourceCpu, Quantity::FromMilli(milli_cpu));
  claim.spec.resource_requests.Set(api::kResourceMemory, Quantity::FromUnits(int64_t{1} << 30));
  return claim;
}

api::NodeSelectorRequirement In(std::string_view key, std::vector<std::string> values) {
  return {std::string(key), Op::kIn, std::move(values), {}};
}

class SimCloudProviderTest : public testing::Test {
 protected:
  // The instance type, zone, capacity type and price a claim launches as.
  std::string Launch(const api::NodeClaim& claim) {
    Result<Instance> instance = cloud_.Create(claim);
    if (!instance.ok()) return "error: " + instance.error().message;
    return instance->instance_type + " " + instance->zone + " " + instance->capacity_type + " " +
           std::to_string(instance->price).substr(0, 4);
  }

  VirtualClock clock_{kStart};
  SimCloudProvider cloud_{Catalog(), clock_, "us-east-1"};
};

TEST_F(SimCloudProviderTest, ChoosesTheCheapestCompatibleOffering) {
  EXPECT_EQ(Launch(Claim("any")), "small-arm us-east-1b spot 0.03");
  EXPECT_EQ(Launch(Claim("amd", {In(api::kLabelArch, {"amd64"})})),
            "small-amd us-east-1a spot 0.04");
  EXPECT_EQ(Launch(Claim("on-demand", {In(api::kLabelCapacityType, {"on-demand"})})),
            "small-arm us-east-1b on-demand 0.08");
  EXPECT_EQ(Launch(Claim("amd-on-demand", {In(api::kLabelArch, {"amd64"}),
                                           In(api::kLabelCapacityType, {"on-demand"})})),
            "small-amd us-east-1a on-demand 0.10");
  EXPECT_EQ(Launch(Claim("zone-b", {In(api::kLabelArch, {"amd64"}),
                                    In(api::kLabelCapacityType, {"on-demand"}),
                                    In(api::kLabelZone, {"us-east-1b"})})),
            "small-amd us-east-1b on-demand 0.11");
  EXPECT_EQ(Launch(Claim("type", {In(api::kLabelInstanceType, {"large-amd"}),
                                  In(api::kLabelCapacityType, {"on-demand"})})),
            "large-amd us-east-1b on-demand 0.38");
  EXPECT_EQ(
      Launch(Claim("not-spot", {{std::string(api::kLabelCapacityType), Op::kNotIn, {"spot"}, {}},
                                In(api::kLabelZone, {"us-east-1a", "us-east-1c"})})),
      "small-amd us-east-1a on-demand 0.10");
}

// Equal prices in several zones: each launch goes where fewest of our instances run, so a fleet of
// ties spreads over the zones instead of piling into the first.
TEST(SimCloudProviderZones, TiesBetweenZonesGoWhereFewestInstancesRun) {
  Result<std::vector<InstanceType>> catalog = ParseCatalogJson(R"({"instanceTypes": [
    {"name": "even", "labels": {"kubernetes.io/arch": "amd64"},
     "capacity": {"cpu": "2", "memory": "4Gi"},
     "offerings": [{"zone": "z-a", "capacityType": "on-demand", "price": 0.10},
                   {"zone": "z-b", "capacityType": "on-demand", "price": 0.10},
                   {"zone": "z-c", "capacityType": "on-demand", "price": 0.10},
                   {"zone": "z-d", "capacityType": "on-demand", "price": 0.12}]}]})",
                                                               "test");
  ASSERT_THAT(catalog, IsOk());
  VirtualClock clock{kStart};
  SimCloudProvider cloud(std::move(*catalog), clock, "test");
  std::vector<std::string> zones;
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    Result<Instance> instance = cloud.Create(Claim("claim-" + std::to_string(i)));
    ASSERT_THAT(instance, IsOk());
    zones.push_back(instance->zone);
    ids.push_back(instance->provider_id);
  }
  EXPECT_THAT(zones, ElementsAre("z-a", "z-b", "z-c", "z-a"));
  // Deleting z-b's instance makes it the emptiest tied zone again.
  ASSERT_THAT(cloud.Delete(ids[1]), IsOk());
  Result<Instance> next = cloud.Create(Claim("claim-4"));
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ(next->zone, "z-b");
}

TEST_F(SimCloudProviderTest, RequestsMustFitTheAllocatable) {
  // 1900m is what small-amd leaves after its overhead: fits.
  EXPECT_EQ(Launch(Claim("fits", {In(api::kLabelArch, {"amd64"})}, 1900)),
            "small-amd us-east-1a spot 0.04");
  // 2 CPUs is small-amd's capacity but not its allocatable.
  EXPECT_EQ(Launch(Claim("capacity", {In(api::kLabelArch, {"amd64"})}, 2000)),
            "large-amd us-east-1b spot 0.15");
  // small-arm reserves nothing: 2 CPUs fit there.
  EXPECT_EQ(Launch(Claim("arm", {}, 2000)), "small-arm us-east-1b spot 0.03");
}

TEST_F(SimCloudProviderTest, NothingFitsIsInsufficientCapacity) {
  const Result<Instance> huge = cloud_.Create(Claim("huge", {}, 64000));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().reason, kReasonInsufficientCapacity);
  EXPECT_THAT(huge.error().message, HasSubstr("huge"));
  EXPECT_THAT(huge.error().message, HasSubstr("64"));
  const Result<Instance> arch = cloud_.Create(Claim("s390x", {In(api::kLabelArch, {"s390x"})}));
  ASSERT_FALSE(arch.ok());
  EXPECT_EQ(arch.error().reason, kReasonInsufficientCapacity);
  const Result<Instance> zone = cloud_.Create(
      Claim("zone", {In(api::kLabelArch, {"arm64"}), In(api::kLabelZone, {"us-east-1a"})}));
  ASSERT_FALSE(zone.ok());
  EXPECT_EQ(zone.error().reason, kReasonInsufficientCapacity);
  EXPECT_TRUE(cloud_.List()->empty());
}

TEST_F(SimCloudProviderTest, InstanceDescribesTheMachine) {
  clock_.Advance(seconds(42));
  api::NodeClaim claim =
      Claim("default-abcde", {In(api::kLabelArch, {"amd64"}), In("team", {"web"}),
                              In(api::kLabelZone, {"us-east-1a", "us-east-1b"}),
                              In(api::kLabelCapacityType, {"on-demand"})});
  claim.metadata.labels["owner"] = "me";
  claim.spec.taints = {{"dedicated", "web", api::TaintEffect::kNoSchedule}};
  claim.spec.startup_taints = {{"agent", "", api::TaintEffect::kNoExecute}};
  const Result<Instance> instance = cloud_.Create(claim);
  ASSERT_THAT(instance, IsOk());

  EXPECT_EQ(instance->provider_id, "sim:///us-east-1a/i-00000000000000001");
  EXPECT_EQ(instance->node_claim, "default-abcde");
  EXPECT_EQ(instance->node_pool, "default");
  EXPECT_EQ(instance->instance_type, "small-amd");
  EXPECT_EQ(instance->zone, "us-east-1a");
  EXPECT_EQ(instance->capacity_type, "on-demand");
  EXPECT_EQ(instance->image_id, "sim-image");
  EXPECT_EQ(instance->node_name, "ip-10-0-0-1.us-east-1.compute.internal");
  EXPECT_DOUBLE_EQ(instance->price, 0.10);
  EXPECT_EQ(instance->launch_time, kStart + seconds(42));

  const api::Labels& labels = instance->labels;
  EXPECT_EQ(labels.at(std::string(api::kLabelInstanceType)), "small-amd");
  EXPECT_EQ(labels.at(std::string(api::kLabelZone)), "us-east-1a");
  EXPECT_EQ(labels.at(std::string(api::kLabelRegion)), "us-east-1");
  EXPECT_EQ(labels.at(std::string(api::kLabelCapacityType)), "on-demand");
  EXPECT_EQ(labels.at(std::string(api::kLabelNodePool)), "default");
  EXPECT_EQ(labels.at(std::string(api::kLabelHostname)), instance->node_name);
  EXPECT_EQ(labels.at(std::string(api::kLabelArch)), "amd64");
  EXPECT_EQ(labels.at("team"), "web");  // a single-valued requirement of the claim
  EXPECT_EQ(labels.at("owner"), "me");  // a label of the claim

  EXPECT_THAT(instance->taints,
              ElementsAre(api::Taint{"dedicated", "web", api::TaintEffect::kNoSchedule},
                          api::Taint{"agent", "", api::TaintEffect::kNoExecute},
                          api::Taint{std::string(api::kTaintUnregistered), "",
                                     api::TaintEffect::kNoExecute}));
  EXPECT_EQ(instance->capacity.cpu(), Quantity::FromUnits(2));
  EXPECT_EQ(instance->capacity.pods(), Quantity::FromUnits(20));
  EXPECT_EQ(instance->allocatable.cpu(), Quantity::FromMilli(1900));
  EXPECT_EQ(instance->allocatable.memory(), Quantity::FromUnits(int64_t{3840} << 20));
}

TEST_F(SimCloudProviderTest, CreateIsIdempotentPerNodeClaim) {
  const Result<Instance> first = cloud_.Create(Claim("a"));
  ASSERT_THAT(first, IsOk());
  clock_.Advance(seconds(5));
  // Even with other requirements: the NodeClaim already has its instance.
  const Result<Instance> again = cloud_.Create(Claim("a", {In(api::kLabelArch, {"amd64"})}));
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->provider_id, first->provider_id);
  EXPECT_EQ(again->instance_type, first->instance_type);
  EXPECT_EQ(again->launch_time, first->launch_time);
  const Result<Instance> other = cloud_.Create(Claim("b"));
  ASSERT_THAT(other, IsOk());
  EXPECT_NE(other->provider_id, first->provider_id);
  EXPECT_NE(other->node_name, first->node_name);
  EXPECT_EQ(cloud_.List()->size(), 2u);
}

TEST_F(SimCloudProviderTest, GetListAndDelete) {
  const Result<Instance> a = cloud_.Create(Claim("a"));
  const Result<Instance> b = cloud_.Create(Claim("b", {In(api::kLabelArch, {"amd64"})}));
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  const Result<Instance> got = cloud_.Get(a->provider_id);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->node_claim, "a");
  const Result<std::vector<Instance>> instances = cloud_.List();
  ASSERT_THAT(instances, IsOk());
  std::vector<std::string> listed;
  for (const Instance& instance : *instances) listed.push_back(instance.provider_id);
  EXPECT_THAT(listed, ElementsAre(b->provider_id, a->provider_id));  // by provider ID

  ASSERT_THAT(cloud_.Delete(a->provider_id), IsOk());
  const Result<Instance> gone = cloud_.Get(a->provider_id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().reason, kReasonNotFound);
  EXPECT_EQ(gone.error().status, 404);
  const Status again = cloud_.Delete(a->provider_id);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().reason, kReasonNotFound);
  const Status never = cloud_.Delete("sim:///us-east-1a/i-000000000000000ff");
  ASSERT_FALSE(never.ok());
  EXPECT_EQ(never.error().reason, kReasonNotFound);
  const Status foreign = cloud_.Delete("aws:///us-east-1a/i-0123456789abcdef0");
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().reason, kReasonNotOwned);
  EXPECT_EQ(cloud_.Get("aws:///us-east-1a/i-0123456789abcdef0").error().reason, kReasonNotOwned);
  ASSERT_EQ(cloud_.List()->size(), 1u);
  EXPECT_EQ(cloud_.List()->front().provider_id, b->provider_id);

  // The NodeClaim's instance is gone: creating for it again launches a new one.
  const Result<Instance> relaunched = cloud_.Create(Claim("a"));
  ASSERT_THAT(relaunched, IsOk());
  EXPECT_NE(relaunched->provider_id, a->provider_id);
}

TEST_F(SimCloudProviderTest, UnavailableOfferingsAreSkippedAndReported) {
  Result<std::shared_ptr<const std::vector<InstanceType>>> before =
      cloud_.GetInstanceTypes(api::NodePool());
  ASSERT_THAT(before, IsOk());
  cloud_.SetOfferingAvailable("small-arm", "us-east-1b", "spot", false);
  EXPECT_EQ(Launch(Claim("a", {In(api::kLabelArch, {"arm64"})})),
            "small-arm us-east-1b on-demand 0.08");

  Result<std::shared_ptr<const std::vector<InstanceType>>> after =
      cloud_.GetInstanceTypes(api::NodePool());
  ASSERT_THAT(after, IsOk());
  const auto unavailable = [](const std::vector<InstanceType>& types) {
    std::vector<std::string> out;
    for (const InstanceType& type : types) {
      for (const Offering& offering : type.offerings) {
        if (!offering.available) {
          out.push_back(type.name + " " + offering.zone + " " + offering.capacity_type);
        }
      }
    }
    return out;
  };
  EXPECT_THAT(unavailable(**after), ElementsAre("small-arm us-east-1b spot"));
  // A catalog handed out before is a snapshot: it does not change under its holder.
  EXPECT_TRUE(unavailable(**before).empty());

  // With no arm64 offering left, an arm64 claim cannot launch; others still can.
  cloud_.SetOfferingAvailable("small-arm", "us-east-1b", "on-demand", false);
  const Result<Instance> arm = cloud_.Create(Claim("c", {In(api::kLabelArch, {"arm64"})}));
  ASSERT_FALSE(arm.ok());
  EXPECT_EQ(arm.error().reason, kReasonInsufficientCapacity);
  EXPECT_EQ(Launch(Claim("b")), "small-amd us-east-1a spot 0.04");

  cloud_.SetOfferingAvailable("small-arm", "us-east-1b", "spot", true);
  EXPECT_EQ(Launch(Claim("c", {In(api::kLabelArch, {"arm64"})})), "small-arm us-east-1b spot 0.03");
  // Instances already running are not affected.
  EXPECT_EQ(cloud_.List()->size(), 3u);
}

// What another part (the interruption controller's record) says is unavailable, by its sequence
// number: a stand-in for aws::UnavailableOfferings.
class Marked final : public OfferingAvailability {
 public:
  bool IsUnavailable(std::string_view instance_type, std::string_view zone,
                     std::string_view capacity_type) const override {
    return marked_.contains(std::string(instance_type) + " " + std::string(zone) + " " +
                            std::string(capacity_type));
  }
  uint64_t SeqNum() const override { return seq_num_; }

  void Mark(const std::string& offering) {
    marked_.insert(offering);
    ++seq_num_;
  }
  void Clear() {
    marked_.clear();
    ++seq_num_;
  }

 private:
  std::set<std::string> marked_;
  uint64_t seq_num_ = 0;
};

TEST_F(SimCloudProviderTest, OfferingsAnotherRecordMarksAreUnavailableUntilItChanges) {
  Marked marked;
  cloud_.ConsultAvailability(marked);
  EXPECT_EQ(Launch(Claim("a")), "small-arm us-east-1b spot 0.03");
  marked.Mark("small-arm us-east-1b spot");
  EXPECT_EQ(Launch(Claim("b")), "small-amd us-east-1a spot 0.04");
  Result<std::shared_ptr<const std::vector<InstanceType>>> types =
      cloud_.GetInstanceTypes(api::NodePool());
  ASSERT_THAT(types, IsOk());
  std::vector<std::string> unavailable;
  for (const InstanceType& type : **types) {
    for (const Offering& offering : type.offerings) {
      if (!offering.available) {
        unavailable.push_back(type.name + " " + offering.zone + " " + offering.capacity_type);
      }
    }
  }
  EXPECT_THAT(unavailable, ElementsAre("small-arm us-east-1b spot"));
  // Its own fault injection still applies beside the record.
  cloud_.SetOfferingAvailable("small-amd", "us-east-1a", "spot", false);
  EXPECT_EQ(Launch(Claim("c")), "small-arm us-east-1b on-demand 0.08");
  cloud_.SetOfferingAvailable("small-amd", "us-east-1a", "spot", true);
  // Once the record drops the entry (it expired), the offering is back.
  marked.Clear();
  EXPECT_EQ(Launch(Claim("d")), "small-arm us-east-1b spot 0.03");
}

TEST_F(SimCloudProviderTest, AdoptedInstancesAreListedAndTheirIdsNotReused) {
  Instance adopted;
  adopted.provider_id = "sim:///us-east-1a/i-0000000000000000a";
  adopted.node_claim = "old";
  adopted.node_name = "ip-10-0-0-10.us-east-1.compute.internal";
  adopted.instance_type = "small-amd";
  cloud_.Adopt(adopted);
  cloud_.Adopt(adopted);  // once only
  ASSERT_EQ(cloud_.List()->size(), 1u);
  ASSERT_THAT(cloud_.Get(adopted.provider_id), IsOk());
  // Its NodeClaim finds it rather than launching another.
  const Result<Instance> old = cloud_.Create(Claim("old"));
  ASSERT_THAT(old, IsOk());
  EXPECT_EQ(old->provider_id, adopted.provider_id);

  const Result<Instance> next = cloud_.Create(Claim("new"));
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ(next->provider_id, "sim:///us-east-1b/i-0000000000000000b");
  EXPECT_EQ(next->node_name, "ip-10-0-0-11.us-east-1.compute.internal");

  // Adopting an older one does not wind the counter back.
  Instance older = adopted;
  older.provider_id = "sim:///us-east-1a/i-00000000000000003";
  older.node_claim = "older";
  cloud_.Adopt(older);
  const Result<Instance> after = cloud_.Create(Claim("after"));
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->provider_id, "sim:///us-east-1b/i-0000000000000000c");
  EXPECT_EQ(cloud_.List()->size(), 4u);

  ASSERT_THAT(cloud_.Delete(adopted.provider_id), IsOk());
  EXPECT_FALSE(cloud_.Get(adopted.provider_id).ok());
}

TEST_F(SimCloudProviderTest, CatalogAndName) {
  EXPECT_EQ(cloud_.Name(), "sim");
  const Result<std::shared_ptr<const std::vector<InstanceType>>> types =
      cloud_.GetInstanceTypes(api::NodePool());
  ASSERT_THAT(types, IsOk());
  std::vector<std::string> names;
  for (const InstanceType& type : **types) names.push_back(type.name);
  EXPECT_THAT(names, ElementsAre("small-amd", "large-amd", "small-arm"));
}

}  // namespace
}  // namespace karpenter::cloud
