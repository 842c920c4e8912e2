// InstanceTypeProvider against moto's DescribeInstanceTypes / DescribeInstanceTypeOfferings (the
// real list of types), with the PricingProvider on the Pricing API stand-in and moto's spot prices.

#include "aws/instancetypes/instance_type_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>

#include "api/labels.h"
#include "aws/api/moto_fixture.h"
#include "aws/catalog/aws_catalog.h"
#include "pricing_server.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using std::chrono::hours;
using ::testing::HasSubstr;

// Forwards to a real transport, or fails every request as a closed port would while `failing`.
class SwitchableTransport final : public HttpTransport {
 public:
  explicit SwitchableTransport(HttpTransport& real) : real_(real) {}
  Result<HttpResponse> Send(const HttpRequest& request) override {
    if (failing) return Error{"connection refused (test)"};
    return real_.Send(request);
  }
  std::atomic<bool> failing{false};

 private:
  HttpTransport& real_;
};

std::vector<std::string> Values(const cloud::InstanceType& type, std::string_view key) {
  const scheduling::Requirement* requirement = type.requirements.Get(key);
  if (requirement == nullptr) return {"<undefined>"};
  if (requirement->Operator() == api::NodeSelectorOperator::kDoesNotExist) {
    return {"<DoesNotExist>"};
  }
  std::vector<std::string> values = requirement->Values();
  std::sort(values.begin(), values.end());
  return values;
}

const cloud::InstanceType* Find(const InstanceTypeList& list, std::string_view name) {
  auto it = std::find_if(list->begin(), list->end(),
                         [&](const cloud::InstanceType& type) { return type.name == name; });
  return it == list->end() ? nullptr : &*it;
}

class InstanceTypeProviderTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    region_ = seed_["region"].get<std::string>();
    Environment environment({
        {"AWS_ENDPOINT_URL", std::string(environment_.Get("AWS_ENDPOINT_URL"))},
        {"AWS_ACCESS_KEY_ID", std::string(environment_.Get("AWS_ACCESS_KEY_ID"))},
        {"AWS_SECRET_ACCESS_KEY", std::string(environment_.Get("AWS_SECRET_ACCESS_KEY"))},
        {"AWS_MAX_ATTEMPTS", "1"},
        {"AWS_EC2_METADATA_DISABLED", "true"},
    });
    Result<AwsClients> clients = AwsClients::Create(environment, region_, switchable_, clock_);
    ASSERT_THAT(clients, IsOk());
    switchable_clients_.emplace(std::move(*clients));
    ec2_.emplace(switchable_clients_->ec2());
    pricing_clients_.emplace(server_.Clients("us-east-1"));
    pricing_api_.emplace(pricing_clients_->pricing());
    PricingProviderOptions pricing_options;
    pricing_options.region = region_;
    pricing_.emplace(*ec2_, &*pricing_api_, virtual_clock_, pricing_options);
    Status refreshed = pricing_->Refresh();
    ASSERT_THAT(refreshed, IsOk());
    InstanceTypeProviderOptions options;
    options.region = region_;
    provider_.emplace(*ec2_, *pricing_, unavailable_, virtual_clock_, options);
  }

  // A node class resolved to the first `subnets` seeded subnets.
  api::EC2NodeClass NodeClass(size_t subnets = 3) const {
    api::EC2NodeClass node_class;
    node_class.metadata.name = "default";
    node_class.spec.ami_family = "AL2023";
    for (size_t i = 0; i < subnets; ++i) {
      const Json& subnet = seed_["subnets"][i];
      node_class.status.subnets.push_back(api::SubnetStatus{subnet["id"].get<std::string>(),
                                                            subnet["zone"].get<std::string>(),
                                                            "usw2-az" + std::to_string(i + 1)});
    }
    return node_class;
  }

  std::string Zone(size_t i) const { return seed_["subnets"][i]["zone"].get<std::string>(); }

  InstanceTypeList List(const api::EC2NodeClass& node_class) {
    Result<InstanceTypeList> list = provider_->List(node_class);
    EXPECT_THAT(list, IsOk());
    return list.ok() ? *list : std::make_shared<const std::vector<cloud::InstanceType>>();
  }

  std::string region_;
  SwitchableTransport switchable_{transport_};
  std::optional<AwsClients> switchable_clients_;
  std::optional<Ec2Api> ec2_;
  testing::PricingServer server_;
  std::optional<AwsClients> pricing_clients_;
  std::optional<PricingApi> pricing_api_;
  VirtualClock virtual_clock_{*ParseTime("2026-12-01T00:00:00Z")};
  UnavailableOfferings unavailable_{virtual_clock_};
  std::optional<PricingProvider> pricing_;
  std::optional<InstanceTypeProvider> provider_;
};

TEST_F(InstanceTypeProviderTest, BuildsTheTypesEc2ReportsAsTheEmbeddedCatalogDoes) {
  const InstanceTypeList list = List(NodeClass());
  EXPECT_GT(list->size(), 300U);
  EXPECT_TRUE(std::is_sorted(
      list->begin(), list->end(),
      [](const cloud::InstanceType& a, const cloud::InstanceType& b) { return a.name < b.name; }));

  aws::AwsCatalogOptions options;  // AL2023, the defaults, as the node class asks
  for (const char* name : {"m5.large", "m6g.xlarge", "c5.4xlarge", "g4dn.xlarge", "inf2.xlarge",
                           "m5d.large", "c6gn.large"}) {
    SCOPED_TRACE(name);
    const cloud::InstanceType* type = Find(list, name);
    ASSERT_NE(type, nullptr);
    const aws::AwsInstanceTypeFacts* facts = aws::FindAwsInstanceTypeFacts(name);
    ASSERT_NE(facts, nullptr);
    const cloud::InstanceType embedded =
        aws::BuildAwsInstanceType(*facts, options, aws::SpotPriceModel());
    EXPECT_EQ(type->capacity, embedded.capacity);
    EXPECT_EQ(type->Allocatable(), embedded.Allocatable());
    EXPECT_EQ(type->exotic, embedded.exotic);
    for (std::string_view key :
         {api::kLabelArch, api::kLabelOs, api::kLabelInstanceCpu, api::kLabelInstanceMemory,
          api::kLabelInstanceFamily, api::kLabelInstanceSize, api::kLabelInstanceHypervisor,
          api::kLabelInstanceCpuManufacturer, api::kLabelInstanceGpuName,
          api::kLabelInstanceGpuCount, api::kLabelInstanceLocalNvme,
          api::kLabelInstanceAcceleratorName, api::kLabelInstanceAcceleratorCount,
          api::kLabelInstanceAcceleratorManufacturer, api::kLabelInstanceNetworkBandwidth,
          api::kLabelInstanceEncryptionInTransit, api::kLabelInstanceGeneration}) {
      EXPECT_EQ(Values(*type, key), Values(embedded, key)) << key;
    }
    EXPECT_EQ(Values(*type, api::kLabelRegion), std::vector<std::string>{region_});
  }
  const cloud::InstanceType* m5 = Find(list, "m5.large");
  ASSERT_NE(m5, nullptr);
  EXPECT_EQ(m5->capacity.Get(api::kResourcePods), Quantity::FromUnits(29));
  EXPECT_EQ(Values(*Find(list, "g4dn.xlarge"), api::kLabelInstanceGpuName),
            std::vector<std::string>{"t4"});
  EXPECT_EQ(Find(list, "inf2.xlarge")->capacity.Get(api::kResourceNeuron), Quantity::FromUnits(1));
  EXPECT_EQ(Values(*Find(list, "inf2.xlarge"), api::kLabelInstanceAcceleratorName),
            std::vector<std::string>{"inferentia2"});
  EXPECT_EQ(Values(*m5, api::kLabelInstanceNetworkBandwidth), std::vector<std::string>{"750"});
}

TEST_F(InstanceTypeProviderTest, OfferingsFollowTheNodeClassSubnetsAndPrices) {
  const InstanceTypeList list = List(NodeClass(2));
  const cloud::InstanceType* m5 = Find(list, "m5.large");
  ASSERT_NE(m5, nullptr);
  std::set<std::string> zones;
  for (const cloud::Offering& offering : m5->offerings) {
    zones.insert(offering.zone);
    EXPECT_TRUE(offering.available) << offering.zone << " " << offering.capacity_type;
    if (offering.capacity_type == "on-demand") {
      EXPECT_DOUBLE_EQ(offering.price, 0.096);  // the Pricing API stand-in's price
    } else {
      EXPECT_EQ(offering.capacity_type, "spot");
      EXPECT_DOUBLE_EQ(offering.price, *pricing_->SpotPrice("m5.large", offering.zone));
    }
  }
  EXPECT_EQ(zones, (std::set<std::string>{Zone(0), Zone(1)}));
  EXPECT_EQ(m5->offerings.size(), 4U);
  EXPECT_EQ(Values(*m5, api::kLabelZone), (std::vector<std::string>{Zone(0), Zone(1)}));
  EXPECT_EQ(Values(*m5, api::kLabelZoneId), (std::vector<std::string>{"usw2-az1", "usw2-az2"}));
  EXPECT_EQ(Values(*m5, api::kLabelCapacityType), (std::vector<std::string>{"on-demand", "spot"}));

  // A type the Pricing API gave no price for has only its spot offerings available.
  const cloud::InstanceType* r5 = Find(list, "r5.large");
  ASSERT_NE(r5, nullptr);
  for (const cloud::Offering& offering : r5->offerings) {
    EXPECT_EQ(offering.available, offering.capacity_type == "spot") << offering.capacity_type;
  }
  EXPECT_EQ(Values(*r5, api::kLabelCapacityType), std::vector<std::string>{"spot"});

  // No subnets, no zones: nothing to launch.
  EXPECT_TRUE(List(NodeClass(0))->empty());
}

TEST_F(InstanceTypeProviderTest, RepeatedCallsShareOneListUntilAnOfferingIsMarked) {
  const api::EC2NodeClass node_class = NodeClass();
  const InstanceTypeList first = List(node_class);
  const InstanceTypeList second = List(node_class);
  EXPECT_EQ(first.get(), second.get());

  unavailable_.MarkUnavailable("m5.large", Zone(0), "spot", "InsufficientInstanceCapacity");
  const InstanceTypeList third = List(node_class);
  EXPECT_NE(third.get(), first.get());
  const cloud::InstanceType* m5 = Find(third, "m5.large");
  ASSERT_NE(m5, nullptr);
  for (const cloud::Offering& offering : m5->offerings) {
    const bool marked = offering.zone == Zone(0) && offering.capacity_type == "spot";
    EXPECT_EQ(offering.available, !marked) << offering.zone << " " << offering.capacity_type;
  }
  EXPECT_EQ(List(node_class).get(), third.get());

  // The mark expires: the offering is back, in a new list.
  virtual_clock_.Advance(std::chrono::minutes(3));
  const InstanceTypeList fourth = List(node_class);
  EXPECT_NE(fourth.get(), third.get());
  for (const cloud::Offering& offering : Find(fourth, "m5.large")->offerings) {
    EXPECT_TRUE(offering.available);
  }

  // A different node class gets its own list.
  api::EC2NodeClass bigger = node_class;
  bigger.spec.kubelet = api::KubeletConfiguration{};
  bigger.spec.kubelet->max_pods = 20;
  const InstanceTypeList other = List(bigger);
  EXPECT_NE(other.get(), fourth.get());
  EXPECT_EQ(Find(other, "m5.large")->capacity.Get(api::kResourcePods), Quantity::FromUnits(20));
  EXPECT_EQ(List(node_class).get(), fourth.get());
}

TEST_F(InstanceTypeProviderTest, NodeClassSettingsShapeTheTypes) {
  api::EC2NodeClass node_class = NodeClass();
  api::BlockDeviceMapping root;
  root.device_name = "/dev/xvda";
  root.root_volume = true;
  root.ebs.emplace();
  root.ebs->volume_size = Quantity::FromUnits(int64_t{100} << 30);
  node_class.spec.block_device_mappings.push_back(root);
  const InstanceTypeList list = List(node_class);
  EXPECT_EQ(Find(list, "m5.large")->capacity.Get(api::kResourceEphemeralStorage),
            Quantity::FromUnits(int64_t{100} << 30));

  node_class.spec.instance_store_policy = "RAID0";
  const cloud::InstanceType* m5d = Find(List(node_class), "m5d.large");
  ASSERT_NE(m5d, nullptr);
  EXPECT_EQ(m5d->capacity.Get(api::kResourceEphemeralStorage),
            Quantity::FromUnits(int64_t{75} * 1000 * 1000 * 1000));

  api::EC2NodeClass windows = NodeClass();
  windows.spec.ami_family = "Windows2022";
  const InstanceTypeList windows_types = List(windows);
  EXPECT_FALSE(windows_types->empty());
  for (const cloud::InstanceType& type : *windows_types) {
    ASSERT_EQ(Values(type, api::kLabelArch), std::vector<std::string>{"amd64"}) << type.name;
  }
  EXPECT_EQ(Values(*Find(windows_types, "m5.large"), api::kLabelOs),
            std::vector<std::string>{"windows"});

  api::EC2NodeClass invalid = NodeClass();
  invalid.metadata.name = "broken";
  invalid.spec.kubelet = api::KubeletConfiguration{};
  invalid.spec.kubelet->kube_reserved["memory"] = "lots";
  Result<InstanceTypeList> failed = provider_->List(invalid);
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.error().message, HasSubstr("EC2NodeClass broken"));
  EXPECT_THAT(failed.error().message, HasSubstr("kubeReserved.memory"));
}

TEST_F(InstanceTypeProviderTest, AFailedRefreshKeepsTheOldList) {
  const api::EC2NodeClass node_class = NodeClass();
  const InstanceTypeList before = List(node_class);
  ASSERT_FALSE(before->empty());
  const uint64_t generation = provider_->Generation();

  switchable_.failing = true;
  server_.set_fail(true);
  virtual_clock_.Advance(hours(13));
  Status status = provider_->Refresh();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.error().message, HasSubstr("DescribeInstanceTypes"));
  EXPECT_EQ(provider_->Generation(), generation);
  // Prices expire too and fail to refresh: the old ones stay, so the list is the same one.
  EXPECT_FALSE(pricing_->Refresh().ok());
  const InstanceTypeList after = List(node_class);
  EXPECT_EQ(after.get(), before.get());

  switchable_.failing = false;
  ASSERT_THAT(provider_->Refresh(), IsOk());
  EXPECT_NE(provider_->Generation(), generation);
  EXPECT_EQ(List(node_class)->size(), before->size());
}

TEST_F(InstanceTypeProviderTest, WithoutAnyDataListIsAnErrorNamingTheNodeClass) {
  switchable_.failing = true;
  Result<InstanceTypeList> list = provider_->List(NodeClass());
  ASSERT_FALSE(list.ok());
  EXPECT_THAT(list.error().message, HasSubstr("EC2NodeClass default"));
  EXPECT_THAT(list.error().message, HasSubstr("DescribeInstanceTypes"));
}

}  // namespace
}  // namespace karpenter::aws
