#include "aws/catalog/aws_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "support/matchers.h"
#include "support/param_name.h"

namespace karpenter::aws {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;

Quantity Mi(int64_t n) { return Quantity::FromUnits(n * kMi); }
Quantity Gi(int64_t n) { return Quantity::FromUnits(n * kGi); }

// The types of us-east-1's DescribeInstanceTypes that DescribeInstanceTypeOfferings does not offer
// in any us-east-1 zone (so the catalog leaves them out).
const std::set<std::string, std::less<>> kNotOfferedInUsEast1 = {
    "dl2q.24xlarge",  "hpc6a.48xlarge",    "hpc6id.32xlarge",   "hpc7a.12xlarge", "hpc7a.24xlarge",
    "hpc7a.48xlarge", "hpc7a.96xlarge",    "hpc8a.96xlarge",    "p5e.48xlarge",   "trn2.3xlarge",
    "trn2.48xlarge",  "x8aedz.12xlarge",   "x8aedz.24xlarge",   "x8aedz.3xlarge", "x8aedz.6xlarge",
    "x8aedz.large",   "x8aedz.metal-12xl", "x8aedz.metal-24xl", "x8aedz.xlarge",
};

// mac* types: arm64_mac / x86_64_mac, which Karpenter never launches.
const std::set<std::string, std::less<>> kNotLaunchable = {
    "mac-m3ultra.metal",  "mac-m4.metal",  "mac-m4max.metal",  "mac-m4pro.metal", "mac1.metal",
    "mac2-m1ultra.metal", "mac2-m2.metal", "mac2-m2pro.metal", "mac2.metal",
};

std::vector<std::string> Values(const cloud::InstanceType& type, std::string_view key) {
  const scheduling::Requirement* requirement = type.requirements.Get(key);
  if (requirement == nullptr) return {"<undefined>"};
  if (requirement->Operator() == api::NodeSelectorOperator::kDoesNotExist) {
    return {"<DoesNotExist>"};
  }
  return requirement->Values();
}

std::string Value(const cloud::InstanceType& type, std::string_view key) {
  std::vector<std::string> values = Values(type, key);
  return values.size() == 1 ? values[0] : "<" + std::to_string(values.size()) + " values>";
}

class AwsCatalogTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    catalog_ = new std::vector<cloud::InstanceType>(BuildAwsCatalog(AwsCatalogOptions{}));
  }
  static void TearDownTestSuite() {
    delete catalog_;
    catalog_ = nullptr;
  }

  static const cloud::InstanceType& Get(std::string_view name) {
    auto it = std::find_if(catalog_->begin(), catalog_->end(),
                           [&](const cloud::InstanceType& t) { return t.name == name; });
    EXPECT_NE(it, catalog_->end()) << name;
    static const cloud::InstanceType kEmpty;
    return it == catalog_->end() ? kEmpty : *it;
  }

  static std::vector<cloud::InstanceType>* catalog_;
};

std::vector<cloud::InstanceType>* AwsCatalogTest::catalog_ = nullptr;

TEST(AwsCatalogDataTest, EmbedsEveryDescribedTypeSortedByName) {
  const AwsCatalogData data = EmbeddedAwsCatalogData();
  EXPECT_STREQ(data.region, "us-east-1");
  ASSERT_EQ(data.instance_types.size(), 1373u);
  for (size_t i = 1; i < data.instance_types.size(); ++i) {
    EXPECT_LT(std::string_view(data.instance_types[i - 1].name),
              std::string_view(data.instance_types[i].name));
  }
  ASSERT_EQ(data.zones.size(), 6u);
  EXPECT_STREQ(data.zones[0], "us-east-1a");
  EXPECT_STREQ(data.zones[5], "us-east-1f");
  EXPECT_STREQ(data.accelerators[0].gpu_name, "");
  size_t unsupported = 0;
  for (const AwsInstanceTypeFacts& facts : data.instance_types) {
    if (facts.arch == kAwsArchUnsupported) {
      ++unsupported;
      EXPECT_TRUE(kNotLaunchable.contains(facts.name)) << facts.name;
    }
  }
  EXPECT_EQ(unsupported, kNotLaunchable.size());
}

TEST(AwsCatalogDataTest, FindsFactsByName) {
  const AwsInstanceTypeFacts* m5 = FindAwsInstanceTypeFacts("m5.xlarge");
  ASSERT_NE(m5, nullptr);
  EXPECT_EQ(m5->vcpus, 4);
  EXPECT_EQ(m5->memory_mib, 16384u);
  EXPECT_EQ(m5->arch, kAwsArchAmd64);
  EXPECT_EQ(m5->enis, 4);
  EXPECT_EQ(m5->ipv4_per_eni, 15);
  EXPECT_EQ(m5->branch_enis, 18);
  EXPECT_DOUBLE_EQ(m5->on_demand_price, 0.192);
  EXPECT_EQ(FindAwsInstanceTypeFacts("m5.huge"), nullptr);
  EXPECT_EQ(FindAwsInstanceTypeFacts(""), nullptr);
  EXPECT_NE(FindAwsInstanceTypeFacts("a1.2xlarge"), nullptr);  // first row
  EXPECT_NE(FindAwsInstanceTypeFacts("z1d.xlarge"), nullptr);
}

struct NameCase {
  std::string_view name;
  InstanceTypeNameParts parts;
};

class ParseInstanceTypeNameTest : public testing::TestWithParam<NameCase> {};

TEST_P(ParseInstanceTypeNameTest, SplitsCategoryFamilyGenerationSize) {
  const NameCase& c = GetParam();
  const InstanceTypeNameParts parts = ParseInstanceTypeName(c.name);
  EXPECT_EQ(parts.category, c.parts.category) << c.name;
  EXPECT_EQ(parts.family, c.parts.family) << c.name;
  EXPECT_EQ(parts.generation, c.parts.generation) << c.name;
  EXPECT_EQ(parts.size, c.parts.size) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Names, ParseInstanceTypeNameTest,
    testing::Values(NameCase{"m5.xlarge", {"m", "m5", "5", "xlarge"}},
                    NameCase{"m7i-flex.large", {"m", "m7i-flex", "7", "large"}},
                    NameCase{"u-6tb1.metal", {"u", "u-6tb1", "1", "metal"}},
                    NameCase{"u7in-32tb.224xlarge", {"u", "u7in-32tb", "7", "224xlarge"}},
                    NameCase{"c6gn.16xlarge", {"c", "c6gn", "6", "16xlarge"}},
                    NameCase{"inf2.xlarge", {"inf", "inf2", "2", "xlarge"}},
                    NameCase{"p4de.24xlarge", {"p", "p4de", "4", "24xlarge"}},
                    NameCase{"p6-b200.48xlarge", {"p", "p6-b200", "6", "48xlarge"}},
                    NameCase{"mac2.metal", {"mac", "mac2", "2", "metal"}},
                    NameCase{"mac2-m2pro.metal", {"mac", "mac2-m2pro", "2", "metal"}},
                    NameCase{"mac-m4.metal", {"", "mac-m4", "", "metal"}},
                    NameCase{"x8aedz.metal-12xl", {"x", "x8aedz", "8", "metal-12xl"}},
                    NameCase{"hpc7g.16xlarge", {"hpc", "hpc7g", "7", "16xlarge"}},
                    NameCase{"t3", {"", "", "", ""}}, NameCase{"", {"", "", "", ""}},
                    NameCase{"a.b.c", {"", "", "", ""}}),
    ::karpenter::ReadableParamName());

TEST(AwsCatalogHelpersTest, ZoneIds) {
  EXPECT_EQ(AwsZoneId("us-east-1a"), "use1-az1");
  EXPECT_EQ(AwsZoneId("us-east-1f"), "use1-az6");
  EXPECT_EQ(AwsZoneId("us-east-1g"), "");
  EXPECT_EQ(AwsZoneId("us-west-2a"), "");
  EXPECT_EQ(AwsZoneId("test-zone-1"), "");
}

TEST(AwsCatalogHelpersTest, KubeReservedCpuLadder) {
  EXPECT_EQ(AwsKubeReservedMilliCpu(1), 60);
  EXPECT_EQ(AwsKubeReservedMilliCpu(2), 70);
  EXPECT_EQ(AwsKubeReservedMilliCpu(3), 75);
  EXPECT_EQ(AwsKubeReservedMilliCpu(4), 80);
  EXPECT_EQ(AwsKubeReservedMilliCpu(8), 90);
  EXPECT_EQ(AwsKubeReservedMilliCpu(96), 310);
  EXPECT_EQ(AwsKubeReservedMilliCpu(448), 1190);
}

TEST(AwsCatalogHelpersTest, EniLimitedPods) {
  const AwsInstanceTypeFacts* m5 = FindAwsInstanceTypeFacts("m5.xlarge");
  ASSERT_NE(m5, nullptr);
  EXPECT_EQ(AwsEniLimitedPods(*m5, 0), 58);  // 4 × (15 − 1) + 2
  EXPECT_EQ(AwsEniLimitedPods(*m5, 1), 44);
  EXPECT_EQ(AwsEniLimitedPods(*m5, 4), 0);
  EXPECT_EQ(AwsEniLimitedPods(*m5, 9), 0);
}

TEST_F(AwsCatalogTest, CountsAndOfferings) {
  // 1,373 described − 9 mac − 19 not offered in us-east-1.
  EXPECT_EQ(catalog_->size(), 1345u);
  const AwsCatalogData data = EmbeddedAwsCatalogData();
  std::set<std::string, std::less<>> built;
  for (const cloud::InstanceType& type : *catalog_) built.insert(type.name);
  for (const AwsInstanceTypeFacts& facts : data.instance_types) {
    const bool documented =
        kNotLaunchable.contains(facts.name) || kNotOfferedInUsEast1.contains(facts.name);
    EXPECT_NE(built.contains(facts.name), documented) << facts.name;
  }
  for (const cloud::InstanceType& type : *catalog_) {
    ASSERT_FALSE(type.offerings.empty()) << type.name;
    for (const cloud::Offering& offering : type.offerings) {
      EXPECT_TRUE(offering.available) << type.name << " " << offering.zone;
      EXPECT_GT(offering.price, 0) << type.name;
      EXPECT_TRUE(offering.capacity_type == "on-demand" || offering.capacity_type == "spot");
    }
    EXPECT_FALSE(type.capacity.cpu().is_zero()) << type.name;
    EXPECT_GT(type.Allocatable().memory(), Quantity()) << type.name;
    EXPECT_EQ(Values(type, api::kLabelRegion), std::vector<std::string>{"us-east-1"});
    EXPECT_EQ(Value(type, api::kLabelInstanceType), type.name);
  }
  for (size_t i = 1; i < catalog_->size(); ++i) {
    EXPECT_LT((*catalog_)[i - 1].name, (*catalog_)[i].name);
  }
}

TEST_F(AwsCatalogTest, M5XlargeMatchesHandComputedValues) {
  const cloud::InstanceType& t = Get("m5.xlarge");
  // Capacity: 16384 MiB − ceil(16384 × 0.075) = 16384 − 1229.
  EXPECT_EQ(t.capacity.cpu(), Quantity::FromUnits(4));
  EXPECT_EQ(t.capacity.memory(), Mi(15155));
  EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(58));
  EXPECT_EQ(t.capacity.ephemeral_storage(), Gi(20));
  EXPECT_EQ(t.capacity.Get(api::kResourcePodEni), Quantity::FromUnits(18));
  EXPECT_TRUE(t.capacity.Get(api::kResourceNvidiaGpu).is_zero());
  // Overhead: 11 × 58 + 255 = 893Mi; 60 + 10 + 10 = 80m; 1Gi; eviction 100Mi and 10% of 20Gi.
  EXPECT_EQ(t.kube_reserved.cpu(), Quantity::FromMilli(80));
  EXPECT_EQ(t.kube_reserved.memory(), Mi(893));
  EXPECT_EQ(t.kube_reserved.ephemeral_storage(), Gi(1));
  EXPECT_TRUE(t.system_reserved.empty());
  EXPECT_EQ(t.eviction_threshold.memory(), Mi(100));
  EXPECT_EQ(t.eviction_threshold.ephemeral_storage(), Quantity::FromUnits(2 * kGi));
  const api::ResourceList allocatable = t.Allocatable();
  EXPECT_EQ(allocatable.cpu(), Quantity::FromMilli(3920));
  EXPECT_EQ(allocatable.memory(), Mi(14162));
  EXPECT_EQ(allocatable.ephemeral_storage(), Gi(17));
  EXPECT_EQ(allocatable.pods(), Quantity::FromUnits(58));
  EXPECT_FALSE(t.exotic);
  // Labels.
  EXPECT_EQ(Value(t, api::kLabelArch), "amd64");
  EXPECT_EQ(Value(t, api::kLabelOs), "linux");
  EXPECT_EQ(Value(t, api::kLabelWindowsBuild), "<DoesNotExist>");
  EXPECT_EQ(Value(t, api::kLabelInstanceCategory), "m");
  EXPECT_EQ(Value(t, api::kLabelInstanceFamily), "m5");
  EXPECT_EQ(Value(t, api::kLabelInstanceGeneration), "5");
  EXPECT_EQ(Value(t, api::kLabelInstanceSize), "xlarge");
  EXPECT_EQ(Value(t, api::kLabelInstanceCpu), "4");
  EXPECT_EQ(Value(t, api::kLabelInstanceCpuManufacturer), "intel");
  EXPECT_EQ(Value(t, api::kLabelInstanceMemory), "16384");
  EXPECT_EQ(Value(t, api::kLabelInstanceHypervisor), "nitro");
  EXPECT_EQ(Value(t, api::kLabelInstanceEncryptionInTransit), "false");
  EXPECT_EQ(Value(t, api::kLabelInstanceNetworkBandwidth), "1250");
  EXPECT_EQ(Value(t, api::kLabelInstanceLocalNvme), "<DoesNotExist>");
  EXPECT_EQ(Value(t, api::kLabelInstanceGpuName), "<DoesNotExist>");
  EXPECT_EQ(Value(t, api::kLabelInstanceGpuCount), "<DoesNotExist>");
  EXPECT_EQ(Value(t, api::kLabelInstanceAcceleratorName), "<DoesNotExist>");
  const std::vector<std::string> zones = {"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d",
                                          "us-east-1f"};
  EXPECT_EQ(Values(t, api::kLabelZone), zones);
  EXPECT_EQ(Values(t, api::kLabelZoneId),
            (std::vector<std::string>{"use1-az1", "use1-az2", "use1-az3", "use1-az4", "use1-az6"}));
  EXPECT_EQ(Values(t, api::kLabelCapacityType), (std::vector<std::string>{"on-demand", "spot"}));
  // Offerings: zone × {on-demand, spot}.
  ASSERT_EQ(t.offerings.size(), 10u);
  EXPECT_EQ(t.offerings[0].zone, "us-east-1a");
  EXPECT_EQ(t.offerings[0].capacity_type, "on-demand");
  EXPECT_DOUBLE_EQ(t.offerings[0].price, 0.192);
  EXPECT_EQ(t.offerings[1].capacity_type, "spot");
  EXPECT_LT(t.offerings[1].price, 0.192 * 0.45 + 1e-9);
  EXPECT_GT(t.offerings[1].price, 0.192 * 0.20 - 1e-9);
}

TEST_F(AwsCatalogTest, T3Micro) {
  const cloud::InstanceType& t = Get("t3.micro");
  EXPECT_EQ(t.capacity.cpu(), Quantity::FromUnits(2));
  EXPECT_EQ(t.capacity.memory(), Mi(1024 - 77));
  EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(4));  // 2 × (2 − 1) + 2
  EXPECT_EQ(t.kube_reserved.memory(), Mi(11 * 4 + 255));
  EXPECT_EQ(t.kube_reserved.cpu(), Quantity::FromMilli(70));
  EXPECT_TRUE(t.capacity.Get(api::kResourcePodEni).is_zero());  // not trunking compatible
  EXPECT_DOUBLE_EQ(t.offerings[0].price, 0.0104);
  EXPECT_EQ(Value(t, api::kLabelInstanceCategory), "t");
  EXPECT_EQ(Value(t, api::kLabelInstanceSize), "micro");
  EXPECT_EQ(Value(t, api::kLabelInstanceEncryptionInTransit), "false");
  EXPECT_EQ(Value(t, api::kLabelInstanceNetworkBandwidth), "64");
  EXPECT_EQ(Value(Get("m6i.large"), api::kLabelInstanceEncryptionInTransit), "true");
}

TEST_F(AwsCatalogTest, NvidiaGpuType) {
  const cloud::InstanceType& t = Get("g4dn.xlarge");
  EXPECT_TRUE(t.exotic);
  EXPECT_EQ(t.capacity.Get(api::kResourceNvidiaGpu), Quantity::FromUnits(1));
  EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(29));  // 3 × 9 + 2
  EXPECT_EQ(t.kube_reserved.memory(), Mi(11 * 29 + 255));
  EXPECT_EQ(Value(t, api::kLabelInstanceGpuName), "t4");
  EXPECT_EQ(Value(t, api::kLabelInstanceGpuManufacturer), "nvidia");
  EXPECT_EQ(Value(t, api::kLabelInstanceGpuCount), "1");
  EXPECT_EQ(Value(t, api::kLabelInstanceGpuMemory), "16384");
  EXPECT_EQ(Value(t, api::kLabelInstanceLocalNvme), "125");
  EXPECT_EQ(Value(t, api::kLabelInstanceAcceleratorName), "<DoesNotExist>");

  const cloud::InstanceType& p4d = Get("p4d.24xlarge");
  EXPECT_EQ(p4d.capacity.Get(api::kResourceNvidiaGpu), Quantity::FromUnits(8));
  EXPECT_EQ(p4d.capacity.Get(api::kResourceEfa), Quantity::FromUnits(4));
  // ENIs of the default network card (15), not of all four cards (60).
  EXPECT_EQ(p4d.capacity.pods(), Quantity::FromUnits(15 * 49 + 2));
  EXPECT_EQ(Value(p4d, api::kLabelInstanceGpuName), "a100");
  EXPECT_EQ(Value(p4d, api::kLabelInstanceGpuMemory), "40960");
  EXPECT_EQ(Value(p4d, api::kLabelInstanceLocalNvme), "8000");
}

TEST_F(AwsCatalogTest, AmdGpuAndNeuronTypes) {
  const cloud::InstanceType& g4ad = Get("g4ad.xlarge");
  EXPECT_EQ(g4ad.capacity.Get(api::kResourceAmdGpu), Quantity::FromUnits(1));
  EXPECT_EQ(Value(g4ad, api::kLabelInstanceGpuName), "radeon-pro-v520");
  EXPECT_EQ(Value(g4ad, api::kLabelInstanceGpuManufacturer), "amd");
  EXPECT_TRUE(g4ad.exotic);

  const cloud::InstanceType& inf2 = Get("inf2.xlarge");
  EXPECT_TRUE(inf2.exotic);
  EXPECT_EQ(inf2.capacity.Get(api::kResourceNeuron), Quantity::FromUnits(1));
  EXPECT_EQ(inf2.capacity.Get("aws.amazon.com/neuroncore"), Quantity::FromUnits(2));
  EXPECT_EQ(Value(inf2, api::kLabelInstanceAcceleratorName), "inferentia2");
  EXPECT_EQ(Value(inf2, api::kLabelInstanceAcceleratorManufacturer), "aws");
  EXPECT_EQ(Value(inf2, api::kLabelInstanceAcceleratorCount), "1");
  EXPECT_EQ(Value(inf2, api::kLabelInstanceGpuName), "<DoesNotExist>");
  EXPECT_EQ(Value(inf2, api::kLabelInstanceCategory), "inf");

  const cloud::InstanceType& trn1 = Get("trn1.32xlarge");
  EXPECT_EQ(trn1.capacity.Get(api::kResourceNeuron), Quantity::FromUnits(16));
  EXPECT_EQ(Value(trn1, api::kLabelInstanceAcceleratorName), "trainium");
}

TEST_F(AwsCatalogTest, Arm64Type) {
  const cloud::InstanceType& t = Get("m6g.large");
  EXPECT_EQ(Value(t, api::kLabelArch), "arm64");
  EXPECT_EQ(Value(t, api::kLabelInstanceCpuManufacturer), "aws");
  // 8192 − 64 (Graviton CMA) = 8128; − ceil(8128 × 0.075) = 610.
  EXPECT_EQ(t.capacity.memory(), Mi(7518));
  EXPECT_EQ(Value(t, api::kLabelInstanceMemory), "8192");
  EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(29));
  EXPECT_EQ(t.capacity.Get(api::kResourcePodEni), Quantity::FromUnits(9));
  EXPECT_EQ(Value(t, api::kLabelInstanceGeneration), "6");
}

TEST_F(AwsCatalogTest, BareMetalType) {
  const cloud::InstanceType& t = Get("c5.metal");
  EXPECT_TRUE(t.exotic);
  EXPECT_EQ(Value(t, api::kLabelInstanceHypervisor), "");  // none on metal, as upstream
  EXPECT_EQ(Value(t, api::kLabelInstanceSize), "metal");
  EXPECT_EQ(t.capacity.cpu(), Quantity::FromUnits(96));
  EXPECT_EQ(t.capacity.memory(), Mi(196608 - 14746));
  EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(737));  // 15 × 49 + 2
  EXPECT_EQ(t.kube_reserved.cpu(), Quantity::FromMilli(310));
  EXPECT_EQ(t.kube_reserved.memory(), Mi(11 * 737 + 255));
  EXPECT_DOUBLE_EQ(t.offerings[0].price, 4.08);
}

TEST_F(AwsCatalogTest, ExoticIsGpusAcceleratorsAndMetalOnly) {
  size_t exotic = 0;
  for (const cloud::InstanceType& t : *catalog_) {
    const bool expected = !t.capacity.Get(api::kResourceNvidiaGpu).is_zero() ||
                          !t.capacity.Get(api::kResourceAmdGpu).is_zero() ||
                          !t.capacity.Get(api::kResourceNeuron).is_zero() ||
                          Value(t, api::kLabelInstanceGpuName) != "<DoesNotExist>" ||
                          Value(t, api::kLabelInstanceAcceleratorName) != "<DoesNotExist>" ||
                          Value(t, api::kLabelInstanceSize).find("metal") != std::string::npos;
    EXPECT_EQ(t.exotic, expected) << t.name;
    exotic += t.exotic;
  }
  EXPECT_GT(exotic, 100u);
  EXPECT_LT(exotic, 400u);
}

TEST(AwsCatalogOptionsTest, ZonesRestrictOfferings) {
  AwsCatalogOptions options;
  options.zones = {"us-east-1e"};
  const std::vector<cloud::InstanceType> catalog = BuildAwsCatalog(options);
  EXPECT_GT(catalog.size(), 10u);
  EXPECT_LT(catalog.size(), 100u);
  for (const cloud::InstanceType& t : catalog) {
    for (const cloud::Offering& o : t.offerings) EXPECT_EQ(o.zone, "us-east-1e");
    EXPECT_EQ(Values(t, api::kLabelZone), std::vector<std::string>{"us-east-1e"});
    EXPECT_EQ(Values(t, api::kLabelZoneId), std::vector<std::string>{"use1-az5"});
  }
}

TEST(AwsCatalogOptionsTest, ReservedEnisAndKubeletPods) {
  const AwsInstanceTypeFacts& m5 = *FindAwsInstanceTypeFacts("m5.xlarge");
  const SpotPriceModel spot;
  AwsCatalogOptions options;
  options.reserved_enis = 1;
  cloud::InstanceType t = BuildAwsInstanceType(m5, options, spot);
  EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(44));
  EXPECT_EQ(t.kube_reserved.memory(), Mi(893));  // AL2023: ENI-limited pods, no reserved ENIs

  options.ami_family = "Bottlerocket";
  t = BuildAwsInstanceType(m5, options, spot);
  EXPECT_EQ(t.kube_reserved.memory(), Mi(11 * 44 + 255));

  options = AwsCatalogOptions{};
  options.kubelet.emplace();
  options.kubelet->max_pods = 110;
  t = BuildAwsInstanceType(m5, options, spot);
  EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(110));
  EXPECT_EQ(t.kube_reserved.memory(), Mi(893));
  options.ami_family = "Bottlerocket";
  t = BuildAwsInstanceType(m5, options, spot);
  EXPECT_EQ(t.kube_reserved.memory(), Mi(11 * 110 + 255));

  options = AwsCatalogOptions{};
  options.kubelet.emplace();
  options.kubelet->pods_per_core = 10;
  t = BuildAwsInstanceType(m5, options, spot);
  EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(40));
  options.ami_family = "Bottlerocket";  // ignores podsPerCore
  t = BuildAwsInstanceType(m5, options, spot);
  EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(58));
}

TEST(AwsCatalogOptionsTest, KubeletReservationsAndEviction) {
  const AwsInstanceTypeFacts& m5 = *FindAwsInstanceTypeFacts("m5.xlarge");
  AwsCatalogOptions options;
  options.kubelet.emplace();
  options.kubelet->kube_reserved = {{"cpu", "200m"}, {"pid", "100"}};
  options.kubelet->system_reserved = {{"memory", "1Gi"}, {"cpu", "100m"}};
  options.kubelet->eviction_hard = {
      {"memory.available", "5%"}, {"nodefs.available", "15%"}, {"nodefs.inodesFree", "5%"}};
  ASSERT_THAT(ValidateAwsCatalogOptions(options), IsOk());
  const cloud::InstanceType t = BuildAwsInstanceType(m5, options, SpotPriceModel());
  EXPECT_EQ(t.kube_reserved.cpu(), Quantity::FromMilli(200));
  EXPECT_EQ(t.kube_reserved.memory(), Mi(893));
  EXPECT_TRUE(t.kube_reserved.Get("pid").is_zero());
  EXPECT_EQ(t.system_reserved.memory(), Gi(1));
  EXPECT_EQ(t.system_reserved.cpu(), Quantity::FromMilli(100));
  // ceil(15155Mi × 5%) and ceil(20Gi × 15%), in bytes.
  EXPECT_EQ(t.eviction_threshold.memory(), Quantity::FromUnits(794558464));
  EXPECT_EQ(t.eviction_threshold.ephemeral_storage(), Quantity::FromUnits(3221225472));

  options.kubelet->eviction_hard = {{"memory.available", "500Mi"}, {"nodefs.available", "100%"}};
  const cloud::InstanceType u = BuildAwsInstanceType(m5, options, SpotPriceModel());
  EXPECT_EQ(u.eviction_threshold.memory(), Mi(500));
  EXPECT_TRUE(u.eviction_threshold.ephemeral_storage().is_zero());
}

TEST(AwsCatalogOptionsTest, StorageAndMemoryOverhead) {
  const AwsInstanceTypeFacts& i3 = *FindAwsInstanceTypeFacts("i3.large");
  AwsCatalogOptions options;
  options.root_volume_size = Gi(100);
  options.vm_memory_overhead_percent = 0;
  cloud::InstanceType t = BuildAwsInstanceType(i3, options, SpotPriceModel());
  EXPECT_EQ(t.capacity.ephemeral_storage(), Gi(100));
  EXPECT_EQ(t.eviction_threshold.ephemeral_storage(), Quantity::FromUnits(10 * kGi));
  EXPECT_EQ(t.capacity.memory(), Mi(15616));
  options.instance_store_raid0 = true;
  t = BuildAwsInstanceType(i3, options, SpotPriceModel());
  EXPECT_EQ(t.capacity.ephemeral_storage(), Quantity::FromUnits(int64_t{475} * 1000000000));
}

TEST(AwsCatalogOptionsTest, WindowsFamily) {
  AwsCatalogOptions options;
  options.ami_family = "Windows2022";
  const std::vector<cloud::InstanceType> catalog = BuildAwsCatalog(options);
  ASSERT_FALSE(catalog.empty());
  for (const cloud::InstanceType& t : catalog) {
    ASSERT_EQ(Value(t, api::kLabelArch), "amd64") << t.name;
  }
  auto it = std::find_if(catalog.begin(), catalog.end(),
                         [](const cloud::InstanceType& t) { return t.name == "m5.xlarge"; });
  ASSERT_NE(it, catalog.end());
  EXPECT_EQ(Value(*it, api::kLabelOs), "windows");
  EXPECT_EQ(Value(*it, api::kLabelWindowsBuild), "10.0.20348");
  EXPECT_EQ(it->capacity.pods(), Quantity::FromUnits(110));
  EXPECT_EQ(it->capacity.ephemeral_storage(), Gi(50));
  EXPECT_EQ(it->kube_reserved.memory(), Mi(11 * 110 + 255));
  EXPECT_EQ(it->capacity.Get("vpc.amazonaws.com/PrivateIPv4Address"), Quantity::FromUnits(14));
}

TEST(AwsCatalogOptionsTest, ValidationNamesTheOption) {
  auto error = [](const AwsCatalogOptions& options) {
    const Status s = ValidateAwsCatalogOptions(options);
    return s.ok() ? std::string("ok") : s.error().message;
  };
  AwsCatalogOptions options;
  EXPECT_EQ(error(options), "ok");
  options.region = "eu-west-1";
  EXPECT_NE(error(options).find("region \"eu-west-1\""), std::string::npos) << error(options);
  options = {};
  options.zones = {"us-east-1a", "us-east-1z"};
  EXPECT_NE(error(options).find("zones: \"us-east-1z\""), std::string::npos) << error(options);
  options = {};
  options.ami_family = "Ubuntu";
  EXPECT_NE(error(options).find("amiFamily \"Ubuntu\""), std::string::npos) << error(options);
  options = {};
  options.reserved_enis = -1;
  EXPECT_NE(error(options).find("reservedENIs"), std::string::npos) << error(options);
  options = {};
  options.vm_memory_overhead_percent = 1.5;
  EXPECT_NE(error(options).find("vmMemoryOverheadPercent"), std::string::npos);
  options = {};
  options.kubelet.emplace();
  options.kubelet->kube_reserved = {{"memory", "5Gx"}};
  EXPECT_NE(error(options).find("kubelet.kubeReserved.memory: invalid quantity \"5Gx\""),
            std::string::npos)
      << error(options);
  options.kubelet->kube_reserved.clear();
  options.kubelet->eviction_hard = {{"memory.available", "120%"}};
  EXPECT_NE(error(options).find("kubelet.evictionHard.memory.available"), std::string::npos)
      << error(options);
  options.kubelet->eviction_hard = {{"memory.available", "abc"}};
  EXPECT_NE(error(options).find("kubelet.evictionHard.memory.available"), std::string::npos);
  options.kubelet->eviction_hard.clear();
  options.kubelet->max_pods = -3;
  EXPECT_NE(error(options).find("kubelet.maxPods"), std::string::npos);
}

TEST(AwsCatalogOptionsTest, SpotSeedChangesOnlySpotPrices) {
  AwsCatalogOptions a;
  AwsCatalogOptions b;
  b.spot_seed = 42;
  const std::vector<cloud::InstanceType> x = BuildAwsCatalog(a);
  const std::vector<cloud::InstanceType> y = BuildAwsCatalog(b);
  ASSERT_EQ(x.size(), y.size());
  size_t differing = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(x[i].offerings.size(), y[i].offerings.size());
    for (size_t j = 0; j < x[i].offerings.size(); ++j) {
      if (x[i].offerings[j].capacity_type == "on-demand") {
        EXPECT_EQ(x[i].offerings[j].price, y[i].offerings[j].price);
      } else {
        differing += x[i].offerings[j].price != y[i].offerings[j].price;
      }
    }
  }
  EXPECT_GT(differing, 1000u);
  // And the same seed gives the same catalog.
  const std::vector<cloud::InstanceType> z = BuildAwsCatalog(a);
  for (size_t i = 0; i < x.size(); ++i) {
    for (size_t j = 0; j < x[i].offerings.size(); ++j) {
      EXPECT_EQ(x[i].offerings[j].price, z[i].offerings[j].price);
    }
  }
}

TEST(AwsCatalogPerformanceTest, BuildsQuickly) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<cloud::InstanceType> catalog = BuildAwsCatalog(AwsCatalogOptions{});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(catalog.size(), 1345u);
  // A few ms in Release; generous for sanitizer/debug builds on a loaded machine.
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 2000);
  RecordProperty("build_ms",
                 std::to_string(std::chrono::duration<double, std::milli>(elapsed).count()));
}

}  // namespace
}  // namespace karpenter::aws
