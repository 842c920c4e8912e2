// What a cluster's managed node groups become: every derived NodePool and EC2NodeClass passes the
// CRDs' validation, keeps the node groups' labels, taints, capacity types, instance families and
// architectures, and what cannot be carried over is left out with a note naming the node group.

#include "migrate/node_pools.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/manifest.h"

namespace karpenter::migrate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

aws::EksNodegroup Group(std::string name, std::vector<std::string> types,
                        std::string ami_type = "AL2023_x86_64_STANDARD",
                        std::string capacity = "ON_DEMAND") {
  aws::EksNodegroup group;
  group.name = std::move(name);
  group.instance_types = std::move(types);
  group.ami_type = std::move(ami_type);
  group.capacity_type = std::move(capacity);
  group.min_size = 1;
  group.max_size = 3;
  group.desired_size = 2;
  return group;
}

// Decodes every derived object as a manifest would be: none may have a problem.
api::Manifest Decoded(const DerivedNodePools& derived) {
  api::Manifest manifest;
  std::vector<Json> objects = derived.node_classes;
  objects.insert(objects.end(), derived.node_pools.begin(), derived.node_pools.end());
  for (const Json& object : objects) {
    api::DecodeOutcome outcome = api::DecodeObject(object, "derived");
    EXPECT_THAT(outcome.errors, IsEmpty()) << object.dump();
    manifest.Append(std::move(outcome.manifest));
  }
  return manifest;
}

// The values a requirement of `pool` allows for `key`; empty when it has none.
std::vector<std::string> Allowed(const Json& pool, std::string_view key) {
  for (const Json& requirement : pool["spec"]["template"]["spec"]["requirements"]) {
    if (requirement["key"] == key) return requirement["values"].get<std::vector<std::string>>();
  }
  return {};
}

TEST(DeriveNodePools, OneNodeGroupBecomesTheSeedsDefaultNodePoolAndNodeClass) {
  const DerivedNodePools derived =
      DeriveNodePools({"prod", "v20240807", {Group("general", {"m5.xlarge", "m5.2xlarge"})}});
  const api::Manifest manifest = Decoded(derived);
  ASSERT_THAT(manifest.node_pools, SizeIs(1));
  ASSERT_THAT(manifest.node_classes, SizeIs(1));
  EXPECT_EQ(manifest.node_pools[0].metadata.name, "default");
  EXPECT_EQ(manifest.node_classes[0].metadata.name, "default");
  const Json& node_class = derived.node_classes[0];
  EXPECT_EQ(node_class["spec"]["role"], "KarpenterNodeRole-prod");
  EXPECT_EQ(node_class["spec"]["amiSelectorTerms"][0]["alias"], "al2023@v20240807");
  EXPECT_EQ(node_class["spec"]["subnetSelectorTerms"][0]["tags"]["karpenter.sh/discovery"], "prod");
  EXPECT_EQ(node_class["spec"]["securityGroupSelectorTerms"][0]["tags"]["karpenter.sh/discovery"],
            "prod");
  const Json& pool = derived.node_pools[0];
  EXPECT_THAT(Allowed(pool, "karpenter.k8s.aws/instance-family"), ElementsAre("m5"));
  EXPECT_THAT(Allowed(pool, "kubernetes.io/arch"), ElementsAre("amd64"));
  EXPECT_THAT(Allowed(pool, "karpenter.sh/capacity-type"), ElementsAre("on-demand"));
  EXPECT_THAT(Allowed(pool, "kubernetes.io/os"), ElementsAre("linux"));
  EXPECT_EQ(pool["spec"]["template"]["spec"]["nodeClassRef"]["name"], "default");
  EXPECT_EQ(pool["spec"]["template"]["spec"]["expireAfter"], "720h");
  EXPECT_EQ(pool["spec"]["disruption"]["consolidationPolicy"], "WhenEmptyOrUnderutilized");
  EXPECT_EQ(derived.node_groups, std::vector<std::vector<std::string>>{{"general"}});
  EXPECT_THAT(derived.notes, IsEmpty());
}

TEST(DeriveNodePools, NodeGroupsAlikeShareANodePoolWithTheirFamiliesAndArchitectures) {
  aws::EksNodegroup intel = Group("web-amd", {"c5.xlarge", "m5.large"});
  aws::EksNodegroup graviton = Group("web-arm", {"c7g.xlarge"}, "AL2023_ARM_64_STANDARD");
  for (aws::EksNodegroup* group : {&intel, &graviton}) {
    group->labels = {{"tier", "web"}};
    group->taints = {{"dedicated", "web", "NO_EXECUTE"}};
  }
  const DerivedNodePools derived = DeriveNodePools({"prod", "latest", {graviton, intel}});
  Decoded(derived);
  ASSERT_THAT(derived.node_pools, SizeIs(1));
  const Json& pool = derived.node_pools[0];
  EXPECT_THAT(Allowed(pool, "karpenter.k8s.aws/instance-family"), ElementsAre("c5", "c7g", "m5"));
  EXPECT_THAT(Allowed(pool, "kubernetes.io/arch"), ElementsAre("amd64", "arm64"));
  EXPECT_EQ(pool["spec"]["template"]["metadata"]["labels"]["tier"], "web");
  const Json& taint = pool["spec"]["template"]["spec"]["taints"][0];
  EXPECT_EQ(taint["key"], "dedicated");
  EXPECT_EQ(taint["value"], "web");
  EXPECT_EQ(taint["effect"], "NoExecute");
  EXPECT_THAT(derived.node_groups[0], ElementsAre("web-amd", "web-arm"));
}

TEST(DeriveNodePools, NodeGroupsThatDifferKeepNodePoolsOfTheirOwn) {
  aws::EksNodegroup general = Group("General_Workers", {"m6i.large"});
  aws::EksNodegroup batch = Group("batch", {"c6g.xlarge"}, "AL2023_ARM_64_STANDARD", "SPOT");
  batch.taints = {{"batch", "", "PREFER_NO_SCHEDULE"}};
  const DerivedNodePools derived = DeriveNodePools({"prod", "latest", {general, batch}});
  const api::Manifest manifest = Decoded(derived);
  ASSERT_THAT(manifest.node_pools, SizeIs(2));
  std::vector<std::string> names;
  for (const Json& pool : derived.node_pools) {
    names.push_back(pool["metadata"]["name"].get<std::string>());
    const bool spot =
        Allowed(pool, "karpenter.sh/capacity-type") == std::vector<std::string>{"spot"};
    EXPECT_EQ(spot, pool["spec"]["template"]["spec"].contains("taints")) << pool.dump();
    if (spot) {
      EXPECT_EQ(pool["spec"]["template"]["spec"]["taints"][0]["effect"], "PreferNoSchedule");
      EXPECT_FALSE(pool["spec"]["template"]["spec"]["taints"][0].contains("value"));
    }
  }
  EXPECT_THAT(names, ElementsAre("general-workers", "batch"));
}

TEST(DeriveNodePools, AmiFamiliesGetEC2NodeClassesOfTheirOwn) {
  const DerivedNodePools derived =
      DeriveNodePools({"prod",
                       "v20240807",
                       {Group("a", {"m5.large"}), Group("b", {"m5.large"}, "BOTTLEROCKET_x86_64"),
                        Group("c", {"m5.large"}, "AL2_x86_64")}});
  const api::Manifest manifest = Decoded(derived);
  ASSERT_THAT(manifest.node_classes, SizeIs(3));
  std::map<std::string, std::string> alias;
  for (const Json& node_class : derived.node_classes) {
    alias[node_class["metadata"]["name"].get<std::string>()] =
        node_class["spec"]["amiSelectorTerms"][0]["alias"].get<std::string>();
  }
  EXPECT_EQ(alias, (std::map<std::string, std::string>{{"al2", "al2@latest"},
                                                       {"al2023", "al2023@v20240807"},
                                                       {"bottlerocket", "bottlerocket@latest"}}));
  for (size_t i = 0; i < derived.node_pools.size(); ++i) {
    const std::string group = derived.node_groups[i].front();
    const std::string node_class =
        derived.node_pools[i]["spec"]["template"]["spec"]["nodeClassRef"]["name"];
    EXPECT_EQ(node_class, group == "a" ? "al2023" : group == "b" ? "bottlerocket" : "al2");
  }
}

TEST(DeriveNodePools, WhatCannotBeCarriedOverIsLeftOutWithANote) {
  aws::EksNodegroup custom = Group("custom", {"m5.large"}, "CUSTOM");
  aws::EksNodegroup block =
      Group("training", {"p5.48xlarge"}, "AL2023_x86_64_NVIDIA", "CAPACITY_BLOCK");
  aws::EksNodegroup labelled = Group("general", {});
  labelled.labels = {{"team", "core"},
                     {"node.kubernetes.io/role", "worker"},
                     {"eks.amazonaws.com/capacityType", "ON_DEMAND"}};
  const DerivedNodePools derived = DeriveNodePools({"prod", "latest", {custom, block, labelled}});
  Decoded(derived);
  ASSERT_THAT(derived.node_pools, SizeIs(1));
  EXPECT_THAT(derived.node_groups[0], ElementsAre("general"));
  EXPECT_EQ(derived.node_pools[0]["spec"]["template"]["metadata"]["labels"],
            (Json{{"team", "core"}}));
  // No instance types (a launch template's): the seed's categories and generations.
  EXPECT_THAT(Allowed(derived.node_pools[0], "karpenter.k8s.aws/instance-category"),
              ElementsAre("c", "m", "r"));
  ASSERT_THAT(derived.notes, SizeIs(4));
  EXPECT_THAT(derived.notes[0], HasSubstr("node group custom: AMI type CUSTOM"));
  EXPECT_THAT(derived.notes[1], HasSubstr("eks.amazonaws.com/capacityType"));
  EXPECT_THAT(derived.notes[2], HasSubstr("node.kubernetes.io/role"));
  EXPECT_THAT(derived.notes[3], HasSubstr("node group training: Capacity Blocks"));
}

TEST(DeriveNodePools, NoNodeGroupsNoNodePools) {
  const DerivedNodePools derived = DeriveNodePools({"prod", "latest", {}});
  EXPECT_THAT(derived.node_pools, IsEmpty());
  EXPECT_THAT(derived.node_classes, IsEmpty());
}

}  // namespace
}  // namespace karpenter::migrate
