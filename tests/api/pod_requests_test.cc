#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/ec2nodeclass.h"
#include "api/node.h"
#include "api/node_selector.h"
#include "api/object_meta.h"
#include "api/pod.h"
#include "common/quantity.h"
#include "support/matchers.h"

namespace karpenter::api {
namespace {

ResourceList List(std::initializer_list<std::pair<std::string_view, std::string_view>> entries) {
  ResourceList list;
  for (const auto& [name, text] : entries) {
    const Result<Quantity> q = Quantity::Parse(text);
    EXPECT_THAT(q, IsOk()) << text;
    if (q.ok()) list.Set(name, *q);
  }
  return list;
}

Container Regular(ResourceList requests) {
  Container c;
  c.requests = std::move(requests);
  return c;
}

Container Sidecar(ResourceList requests) {
  Container c = Regular(std::move(requests));
  c.restart_always = true;
  return c;
}

TEST(EffectiveRequestsTest, EmptyPodRequestsNothing) {
  EXPECT_TRUE(EffectiveRequests(PodSpec()).empty());
}

TEST(EffectiveRequestsTest, ContainersAreSummed) {
  PodSpec spec;
  spec.containers = {Regular(List({{"cpu", "1"}, {"memory", "1Gi"}})),
                     Regular(List({{"cpu", "500m"}, {"memory", "512Mi"}})),
                     Regular(List({{"nvidia.com/gpu", "1"}}))};
  EXPECT_EQ(EffectiveRequests(spec),
            List({{"cpu", "1500m"}, {"memory", "1536Mi"}, {"nvidia.com/gpu", "1"}}));
}

TEST(EffectiveRequestsTest, InitContainersTakeTheMaximumPerResource) {
  PodSpec spec;
  spec.containers = {Regular(List({{"cpu", "1"}, {"memory", "1Gi"}}))};
  spec.init_containers = {Regular(List({{"cpu", "2"}, {"memory", "100Mi"}})),
                          Regular(List({{"cpu", "3"}})), Regular(List({{"amd.com/gpu", "1"}}))};
  // Init containers run one at a time: the largest, not their sum (2 + 3), sets cpu.
  EXPECT_EQ(EffectiveRequests(spec), List({{"cpu", "3"}, {"memory", "1Gi"}, {"amd.com/gpu", "1"}}));
}

TEST(EffectiveRequestsTest, SmallInitContainersChangeNothing) {
  PodSpec spec;
  spec.containers = {Regular(List({{"cpu", "2"}, {"memory", "2Gi"}}))};
  spec.init_containers = {Regular(List({{"cpu", "1"}, {"memory", "1Gi"}}))};
  EXPECT_EQ(EffectiveRequests(spec), List({{"cpu", "2"}, {"memory", "2Gi"}}));
}

TEST(EffectiveRequestsTest, SidecarsRunAlongsideContainers) {
  PodSpec spec;
  spec.containers = {Regular(List({{"cpu", "1"}, {"memory", "1Gi"}}))};
  spec.init_containers = {Sidecar(List({{"cpu", "250m"}, {"memory", "128Mi"}})),
                          Sidecar(List({{"cpu", "250m"}, {"memory", "128Mi"}}))};
  EXPECT_EQ(EffectiveRequests(spec), List({{"cpu", "1500m"}, {"memory", "1280Mi"}}));
}

TEST(EffectiveRequestsTest, InitContainerAddsTheSidecarsStartedBeforeIt) {
  PodSpec spec;
  spec.containers = {Regular(List({{"cpu", "1"}}))};
  spec.init_containers = {Sidecar(List({{"cpu", "500m"}})), Regular(List({{"cpu", "2"}}))};
  // The init container runs next to the sidecar: 2 + 0.5 > 1 + 0.5.
  EXPECT_EQ(EffectiveRequests(spec), List({{"cpu", "2500m"}}));
}

TEST(EffectiveRequestsTest, SidecarsStartedAfterAnInitContainerDoNotAddToIt) {
  PodSpec spec;
  spec.containers = {Regular(List({{"cpu", "1"}}))};
  spec.init_containers = {Regular(List({{"cpu", "2"}})), Sidecar(List({{"cpu", "500m"}}))};
  EXPECT_EQ(EffectiveRequests(spec), List({{"cpu", "2"}}));
}

TEST(EffectiveRequestsTest, SidecarsAndInitContainersInterleaved) {
  PodSpec spec;
  spec.containers = {Regular(List({{"cpu", "1"}, {"memory", "4Gi"}}))};
  spec.init_containers = {
      Sidecar(List({{"cpu", "1"}, {"memory", "1Gi"}})),
      Regular(List({{"cpu", "1"}, {"memory", "8Gi"}})),  // 2 cpu, 9Gi with the first sidecar
      Sidecar(List({{"cpu", "1"}, {"memory", "1Gi"}})),
      Regular(List({{"cpu", "2500m"}, {"memory", "1Gi"}})),  // 4.5 cpu, 3Gi with both sidecars
  };
  // Running: 1 + 1 + 1 = 3 cpu and 4 + 1 + 1 = 6Gi; the init peaks win on both resources.
  EXPECT_EQ(EffectiveRequests(spec), List({{"cpu", "4500m"}, {"memory", "9Gi"}}));
}

TEST(EffectiveRequestsTest, OverheadIsAddedAfterTheMaximum) {
  PodSpec spec;
  spec.containers = {Regular(List({{"cpu", "1"}}))};
  spec.init_containers = {Regular(List({{"cpu", "2"}}))};
  spec.overhead = List({{"cpu", "250m"}, {"memory", "120Mi"}});
  EXPECT_EQ(EffectiveRequests(spec), List({{"cpu", "2250m"}, {"memory", "120Mi"}}));
}

TEST(EffectiveRequestsTest, LimitsAreIgnored) {
  PodSpec spec;
  Container c = Regular(List({{"cpu", "100m"}}));
  c.limits = List({{"cpu", "4"}, {"memory", "8Gi"}});
  spec.containers = {c};
  EXPECT_EQ(EffectiveRequests(spec), List({{"cpu", "100m"}}));
}

OwnerReference Owner(std::string kind, std::string name, bool controller) {
  OwnerReference ref;
  ref.api_version = "apps/v1";
  ref.kind = std::move(kind);
  ref.name = std::move(name);
  ref.controller = controller;
  return ref;
}

TEST(ControllerOfTest, FindsTheControllingOwner) {
  ObjectMeta meta;
  EXPECT_EQ(ControllerOf(meta), nullptr);
  meta.owner_references = {Owner("ConfigMap", "cm", false)};
  EXPECT_EQ(ControllerOf(meta), nullptr);
  meta.owner_references.push_back(Owner("ReplicaSet", "web-abc", true));
  const OwnerReference* controller = ControllerOf(meta);
  ASSERT_NE(controller, nullptr);
  EXPECT_EQ(controller->kind, "ReplicaSet");
  EXPECT_EQ(controller->name, "web-abc");
  EXPECT_EQ(controller, &meta.owner_references[1]);
}

TEST(PodDeletionCostTest, AWholeInt32OrNothing) {
  Pod pod;
  EXPECT_EQ(PodDeletionCost(pod), 0);
  for (const auto& [text, cost] : std::initializer_list<std::pair<std::string, int32_t>>{
           {"-25", -25}, {"2147483647", 2147483647}, {"12abc", 0}, {"2147483648", 0}, {"", 0}}) {
    pod.metadata.annotations["controller.kubernetes.io/pod-deletion-cost"] = text;
    EXPECT_EQ(PodDeletionCost(pod), cost) << text;
  }
}

TEST(NamespacedNameTest, NamespacedAndClusterScoped) {
  ObjectMeta meta;
  meta.name = "web-0";
  EXPECT_EQ(NamespacedName(meta), "web-0");
  meta.namespace_ = "default";
  EXPECT_EQ(NamespacedName(meta), "default/web-0");
}

TEST(NodeTest, ReadyNeedsReadyTrue) {
  Node node;
  EXPECT_FALSE(node.Ready());
  node.status.conditions = {{"MemoryPressure", "False", "", ""}, {"Ready", "False", "", ""}};
  EXPECT_FALSE(node.Ready());
  node.status.conditions[1].status = "Unknown";
  EXPECT_FALSE(node.Ready());
  node.status.conditions[1].status = "True";
  EXPECT_TRUE(node.Ready());
  node.status.conditions = {{"DiskPressure", "True", "", ""}};
  EXPECT_FALSE(node.Ready());
}

TEST(NodeSelectorOperatorTest, RoundTripsEveryOperator) {
  const std::pair<NodeSelectorOperator, std::string_view> cases[] = {
      {NodeSelectorOperator::kIn, "In"},
      {NodeSelectorOperator::kNotIn, "NotIn"},
      {NodeSelectorOperator::kExists, "Exists"},
      {NodeSelectorOperator::kDoesNotExist, "DoesNotExist"},
      {NodeSelectorOperator::kGt, "Gt"},
      {NodeSelectorOperator::kLt, "Lt"},
      {NodeSelectorOperator::kGte, "Gte"},
      {NodeSelectorOperator::kLte, "Lte"},
  };
  for (const auto& [op, text] : cases) {
    EXPECT_EQ(ToString(op), text);
    EXPECT_EQ(ParseNodeSelectorOperator(text), std::optional(op)) << text;
  }
}

TEST(NodeSelectorOperatorTest, RejectsUnknownSpellings) {
  for (std::string_view text : {"", "in", "IN", "notin", "Exist", "gt", "GTE", "In "}) {
    EXPECT_EQ(ParseNodeSelectorOperator(text), std::nullopt) << text;
  }
}

EC2NodeClass NodeClass(std::string alias, std::string ami_family) {
  EC2NodeClass node_class;
  node_class.spec.ami_family = std::move(ami_family);
  if (!alias.empty()) {
    AmiSelectorTerm term;
    term.alias = std::move(alias);
    node_class.spec.ami_selector_terms.push_back(std::move(term));
  }
  return node_class;
}

TEST(EC2NodeClassTest, EffectiveAmiFamilyFromAlias) {
  const std::pair<std::string, std::string> cases[] = {
      {"al2023@latest", "AL2023"},
      {"al2@v20240807", "AL2"},
      {"bottlerocket@latest", "Bottlerocket"},
      {"windows2019@latest", "Windows2019"},
      {"windows2022@latest", "Windows2022"},
      {"windows2025@latest", "Windows2025"},
      {"al2023", "AL2023"},
  };
  for (const auto& [alias, family] : cases) {
    EXPECT_EQ(NodeClass(alias, "").EffectiveAmiFamily(), family) << alias;
    EXPECT_EQ(NodeClass(alias, family).EffectiveAmiFamily(), family) << alias;
    // Custom with an alias: the alias picks the AMI, the user data and volumes are the user's.
    EXPECT_EQ(NodeClass(alias, "Custom").EffectiveAmiFamily(), "Custom") << alias;
  }
}

TEST(EC2NodeClassTest, EffectiveAmiFamilyWithoutAlias) {
  EXPECT_EQ(NodeClass("", "AL2").EffectiveAmiFamily(), "AL2");
  EXPECT_EQ(NodeClass("", "Custom").EffectiveAmiFamily(), "Custom");
  EXPECT_EQ(NodeClass("", "").EffectiveAmiFamily(), "");
  EXPECT_EQ(NodeClass("ubuntu@latest", "Custom").EffectiveAmiFamily(), "Custom");

  EC2NodeClass by_id = NodeClass("", "Bottlerocket");
  AmiSelectorTerm term;
  term.id = "ami-0123456789abcdef0";
  by_id.spec.ami_selector_terms.push_back(term);
  EXPECT_EQ(by_id.EffectiveAmiFamily(), "Bottlerocket");
}

TEST(EC2NodeClassTest, EachFamilyLaunchesWithUpstreamsDefaultVolumes) {
  struct Expected {
    std::string device;
    int64_t gib;
  };
  const std::vector<std::pair<std::string, std::vector<Expected>>> cases = {
      {"al2023@latest", {{"/dev/xvda", 20}}},
      {"al2@latest", {{"/dev/xvda", 20}}},
      {"bottlerocket@latest", {{"/dev/xvda", 4}, {"/dev/xvdb", 20}}},
      {"windows2022@latest", {{"/dev/sda1", 50}}},
  };
  for (const auto& [alias, expected] : cases) {
    const std::vector<BlockDeviceMapping> mappings =
        NodeClass(alias, "").LaunchBlockDeviceMappings();
    ASSERT_EQ(mappings.size(), expected.size()) << alias;
    for (size_t i = 0; i < mappings.size(); ++i) {
      EXPECT_EQ(mappings[i].device_name, expected[i].device) << alias;
      ASSERT_TRUE(mappings[i].ebs.has_value()) << alias;
      EXPECT_EQ(mappings[i].ebs->volume_size, Quantity::FromUnits(expected[i].gib << 30)) << alias;
      EXPECT_EQ(mappings[i].ebs->volume_type, "gp3") << alias;
      EXPECT_EQ(mappings[i].ebs->encrypted, true) << alias;
    }
  }
  EXPECT_THAT(NodeClass("al2023@latest", "Custom").LaunchBlockDeviceMappings(), testing::IsEmpty());

  EC2NodeClass given = NodeClass("bottlerocket@latest", "");
  BlockDeviceMapping only;
  only.device_name = "/dev/xvdb";
  given.spec.block_device_mappings = {only};
  ASSERT_EQ(given.LaunchBlockDeviceMappings().size(), 1U) << "the user's mappings replace them";
}

TEST(EC2NodeClassTest, EphemeralStorageLivesOnTheRootVolumeOrTheFamilysDataDevice) {
  auto mapping = [](std::string device, std::string size, bool root) {
    BlockDeviceMapping out;
    out.device_name = std::move(device);
    out.ebs.emplace().volume_size = Quantity::Parse(size).value();
    out.root_volume = root;
    return out;
  };
  EC2NodeClass node_class = NodeClass("al2023@latest", "");
  EXPECT_EQ(node_class.EphemeralVolumeSize(), std::nullopt) << "no mappings: the default";
  node_class.spec.block_device_mappings = {mapping("/dev/xvda", "80Gi", false),
                                           mapping("/dev/xvdc", "200Gi", false)};
  EXPECT_EQ(node_class.EphemeralVolumeSize(), Quantity::Parse("80Gi").value());
  node_class.spec.block_device_mappings[1].root_volume = true;
  EXPECT_EQ(node_class.EphemeralVolumeSize(), Quantity::Parse("200Gi").value());

  EC2NodeClass bottlerocket = NodeClass("bottlerocket@latest", "");
  bottlerocket.spec.block_device_mappings = {mapping("/dev/xvda", "8Gi", false),
                                             mapping("/dev/xvdb", "120Gi", false)};
  EXPECT_EQ(bottlerocket.EphemeralVolumeSize(), Quantity::Parse("120Gi").value());

  EC2NodeClass custom = NodeClass("", "Custom");
  custom.spec.block_device_mappings = {mapping("/dev/sda1", "30Gi", false),
                                       mapping("/dev/sdb", "60Gi", false)};
  EXPECT_EQ(custom.EphemeralVolumeSize(), Quantity::Parse("60Gi").value()) << "the last one";

  EC2NodeClass elsewhere = NodeClass("al2023@latest", "");
  elsewhere.spec.block_device_mappings = {mapping("/dev/xvdz", "500Gi", false)};
  EXPECT_EQ(elsewhere.EphemeralVolumeSize(), std::nullopt) << "not the root device: the default";
}

}  // namespace
}  // namespace karpenter::api
