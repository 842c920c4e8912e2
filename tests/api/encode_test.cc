#include "api/encode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/labels.h"
#include "api/manifest.h"
#include "api/nodeclaim.h"
#include "common/json.h"
#include "support/matchers.h"

namespace karpenter::api {
namespace {

using json = Json;
using Op = NodeSelectorOperator;

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kMi = int64_t{1} << 20;

TEST(EncodeRequirementTest, KeyOperatorAndValues) {
  EXPECT_EQ(Encode(NodeSelectorRequirement{"kubernetes.io/arch", Op::kIn, {"amd64", "arm64"}, {}}),
            json::parse(R"({"key": "kubernetes.io/arch", "operator": "In",
                            "values": ["amd64", "arm64"]})"));
  EXPECT_EQ(Encode(NodeSelectorRequirement{"team", Op::kNotIn, {"a"}, {}}),
            json::parse(R"({"key": "team", "operator": "NotIn", "values": ["a"]})"));
  EXPECT_EQ(
      Encode(NodeSelectorRequirement{"karpenter.k8s.aws/instance-generation", Op::kGt, {"2"}, {}}),
      json::parse(R"({"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt",
                            "values": ["2"]})"));
  EXPECT_EQ(Encode(NodeSelectorRequirement{"cpu", Op::kLt, {"9"}, {}})["operator"], "Lt");
  EXPECT_EQ(Encode(NodeSelectorRequirement{"cpu", Op::kGte, {"9"}, {}})["operator"], "Gte");
  EXPECT_EQ(Encode(NodeSelectorRequirement{"cpu", Op::kLte, {"9"}, {}})["operator"], "Lte");
}

TEST(EncodeRequirementTest, ValuelessOperatorsHaveNoValuesField) {
  EXPECT_EQ(Encode(NodeSelectorRequirement{"gpu", Op::kExists, {}, {}}),
            json::parse(R"({"key": "gpu", "operator": "Exists"})"));
  EXPECT_EQ(Encode(NodeSelectorRequirement{"gpu", Op::kDoesNotExist, {}, {}}),
            json::parse(R"({"key": "gpu", "operator": "DoesNotExist"})"));
}

TEST(EncodeRequirementTest, MinValuesOnlyWhenSet) {
  const json with =
      Encode(NodeSelectorRequirement{std::string(kLabelInstanceType), Op::kIn, {"a", "b", "c"}, 2});
  EXPECT_EQ(with, json::parse(R"({"key": "node.kubernetes.io/instance-type", "operator": "In",
                                  "values": ["a", "b", "c"], "minValues": 2})"));
  EXPECT_TRUE(with["minValues"].is_number_integer());
  EXPECT_FALSE(Encode(NodeSelectorRequirement{"a", Op::kIn, {"x"}, {}}).contains("minValues"));
  EXPECT_EQ(Encode(NodeSelectorRequirement{"a", Op::kExists, {}, 1}),
            json::parse(R"({"key": "a", "operator": "Exists", "minValues": 1})"));
}

TEST(EncodeRequirementTest, ListKeepsOrderAndEmptyIsAnArray) {
  const json list = Encode(
      std::vector<NodeSelectorRequirement>{{"z", Op::kExists, {}, {}}, {"a", Op::kIn, {"1"}, {}}});
  ASSERT_TRUE(list.is_array());
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["key"], "z");
  EXPECT_EQ(list[1]["key"], "a");
  EXPECT_EQ(Encode(std::vector<NodeSelectorRequirement>{}), json::array());
}

TEST(EncodeTaintTest, EffectsAndOptionalValue) {
  EXPECT_EQ(Encode(Taint{"dedicated", "infra", TaintEffect::kNoSchedule}),
            json::parse(R"({"key": "dedicated", "value": "infra", "effect": "NoSchedule"})"));
  EXPECT_EQ(Encode(Taint{std::string(kTaintUnregistered), "", TaintEffect::kNoExecute}),
            json::parse(R"({"key": "karpenter.sh/unregistered", "effect": "NoExecute"})"));
  EXPECT_EQ(Encode(Taint{"soft", "", TaintEffect::kPreferNoSchedule}),
            json::parse(R"({"key": "soft", "effect": "PreferNoSchedule"})"));
}

TEST(EncodeTaintTest, ListKeepsOrderAndEmptyIsAnArray) {
  const json list = Encode(
      std::vector<Taint>{{"b", "", TaintEffect::kNoExecute}, {"a", "1", TaintEffect::kNoSchedule}});
  EXPECT_EQ(list, json::parse(R"([{"key": "b", "effect": "NoExecute"},
                                  {"key": "a", "value": "1", "effect": "NoSchedule"}])"));
  EXPECT_EQ(Encode(std::vector<Taint>{}), json::array());
}

TEST(EncodeResourcesTest, CanonicalQuantities) {
  ResourceList resources;
  resources.Set(kResourceCpu, Quantity::FromMilli(250));
  resources.Set(kResourceMemory, Quantity::FromUnits(4 * kGi));
  resources.Set(kResourcePods, Quantity::FromUnits(110));
  resources.Set(kResourceEphemeralStorage, Quantity::FromUnits(1536 * kMi));
  resources.Set(kResourceNvidiaGpu, Quantity::FromUnits(1));
  EXPECT_EQ(Encode(resources), json::parse(R"({"cpu": "250m", "memory": "4Gi", "pods": "110",
                                               "ephemeral-storage": "1536Mi",
                                               "nvidia.com/gpu": "1"})"));
}

TEST(EncodeResourcesTest, WholeCpusAndOddByteCounts) {
  ResourceList resources;
  resources.Set(kResourceCpu, Quantity::FromUnits(2));
  resources.Set(kResourceMemory, Quantity::FromUnits(1000));  // not a multiple of 1Ki
  EXPECT_EQ(Encode(resources), json::parse(R"({"cpu": "2", "memory": "1000"})"));
  resources.Set(kResourceCpu, Quantity::FromMilli(1500));
  resources.Set(kResourceMemory, Quantity::FromUnits(3 * 1024));
  EXPECT_EQ(Encode(resources), json::parse(R"({"cpu": "1500m", "memory": "3Ki"})"));
}

TEST(EncodeResourcesTest, EveryValueIsAStringThatParsesBack) {
  ResourceList resources;
  resources.Set(kResourceCpu, Quantity::FromMilli(3999));
  resources.Set(kResourceMemory, Quantity::FromUnits(7 * kGi + 512 * kMi));
  resources.Set("vpc.amazonaws.com/pod-eni", Quantity::FromUnits(9));
  const json encoded = Encode(resources);
  ResourceList decoded;
  for (const auto& [name, value] : encoded.items()) {
    ASSERT_TRUE(value.is_string()) << name;
    const Result<Quantity> quantity = Quantity::Parse(value.get<std::string>());
    ASSERT_THAT(quantity, IsOk()) << name << ": " << value;
    decoded.Set(name, *quantity);
  }
  EXPECT_EQ(decoded, resources);
}

TEST(EncodeResourcesTest, ZeroAmountsAreLeftOutAndEmptyIsAnObject) {
  ResourceList resources;
  resources.Set(kResourceCpu, Quantity::FromUnits(1));
  resources.Set(kResourceMemory, Quantity());
  EXPECT_EQ(Encode(resources), json::parse(R"({"cpu": "1"})"));
  EXPECT_EQ(Encode(ResourceList()), json::object());
}

TEST(EncodeLabelsTest, MapOfStrings) {
  const Labels labels = {{std::string(kLabelNodePool), "default"}, {"team", ""}};
  EXPECT_EQ(Encode(labels), json::parse(R"({"karpenter.sh/nodepool": "default", "team": ""})"));
  EXPECT_EQ(Encode(Labels()), json::object());
}

// What Encode writes, the decoder reads back as the same values.
TEST(EncodeTest, DecodingAnEncodedNodeClaimGivesTheSameFields) {
  NodeClaimSpec spec;
  spec.requirements = {{std::string(kLabelInstanceType), Op::kIn, {"m5.large", "m5.xlarge"}, 2},
                       {std::string(kLabelArch), Op::kNotIn, {"arm64"}, {}},
                       {"karpenter.k8s.aws/instance-generation", Op::kGt, {"4"}, {}},
                       {"example.com/gpu", Op::kDoesNotExist, {}, {}}};
  spec.taints = {{"dedicated", "infra", TaintEffect::kNoSchedule},
                 {"soft", "", TaintEffect::kPreferNoSchedule}};
  spec.startup_taints = {{"example.com/agent", "", TaintEffect::kNoExecute}};
  spec.resource_requests.Set(kResourceCpu, Quantity::FromMilli(1250));
  spec.resource_requests.Set(kResourceMemory, Quantity::FromUnits(3 * kGi));
  spec.resource_requests.Set(kResourcePods, Quantity::FromUnits(4));
  const Labels labels = {{std::string(kLabelNodePool), "default"}, {"team", "web"}};
  const json object = {
      {"apiVersion", "karpenter.sh/v1"},
      {"kind", "NodeClaim"},
      {"metadata", {{"name", "default-abcde"}, {"labels", Encode(labels)}}},
      {"spec",
       {{"requirements", Encode(spec.requirements)},
        {"taints", Encode(spec.taints)},
        {"startupTaints", Encode(spec.startup_taints)},
        {"resources", {{"requests", Encode(spec.resource_requests)}}},
        {"nodeClassRef",
         {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}};

  DecodeOutcome outcome = DecodeObject(object, "encoded");
  ASSERT_TRUE(outcome.errors.empty()) << outcome.errors.front();
  ASSERT_EQ(outcome.manifest.node_claims.size(), 1u);
  const NodeClaim& claim = outcome.manifest.node_claims.front();
  EXPECT_EQ(claim.metadata.labels, labels);
  EXPECT_EQ(claim.spec.taints, spec.taints);
  EXPECT_EQ(claim.spec.startup_taints, spec.startup_taints);
  EXPECT_EQ(claim.spec.resource_requests, spec.resource_requests);
  ASSERT_EQ(claim.spec.requirements.size(), spec.requirements.size());
  for (size_t i = 0; i < spec.requirements.size(); ++i) {
    EXPECT_EQ(claim.spec.requirements[i].key, spec.requirements[i].key);
    EXPECT_EQ(claim.spec.requirements[i].op, spec.requirements[i].op) << spec.requirements[i].key;
    EXPECT_EQ(claim.spec.requirements[i].values, spec.requirements[i].values);
    EXPECT_EQ(claim.spec.requirements[i].min_values, spec.requirements[i].min_values);
  }
}

}  // namespace
}  // namespace karpenter::api
