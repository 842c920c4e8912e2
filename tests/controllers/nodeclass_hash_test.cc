#include "controllers/nodeclass_hash.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace karpenter::controllers {
namespace {

kube::Object NodeClass() {
  return kube::Object::parse(R"({
    "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
    "metadata": {"name": "default", "resourceVersion": "7"},
    "spec": {
      "role": "KarpenterNodeRole-test",
      "amiSelectorTerms": [{"alias": "al2023@v20240807"}],
      "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}],
      "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}],
      "tags": {"team": "web"},
      "blockDeviceMappings": [
        {"deviceName": "/dev/xvda", "ebs": {"volumeSize": "50Gi", "volumeType": "gp3"}},
        {"deviceName": "/dev/xvdb", "ebs": {"volumeSize": "100Gi", "volumeType": "gp3"}}],
      "kubelet": {"maxPods": 110, "clusterDNS": ["10.0.0.10", "10.0.0.11"]},
      "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1}},
    "status": {"amis": [{"id": "ami-1"}]}})");
}

TEST(NodeClassHashTest, WhatSelectorsResolveAndWhatUpstreamIgnoresAreLeftOut) {
  const std::string original = NodeClassHash(NodeClass());
  kube::Object changed = NodeClass();
  changed["spec"]["subnetSelectorTerms"].push_back({{"id", "subnet-1"}});
  changed["spec"]["securityGroupSelectorTerms"] = {{{"name", "nodes"}}};
  changed["spec"]["amiSelectorTerms"] = {{{"alias", "al2023@latest"}}};
  changed["spec"]["capacityReservationSelectorTerms"] = {{{"id", "cr-0123456789abcdef0"}}};
  changed["spec"]["ipPrefixCount"] = 2;
  changed["metadata"]["resourceVersion"] = "8";
  changed["status"]["amis"] = kube::Object::array();
  EXPECT_EQ(NodeClassHash(changed), original);
}

TEST(NodeClassHashTest, TheFamilyInEffectCountsNotHowItIsWritten) {
  const std::string original = NodeClassHash(NodeClass());
  kube::Object written = NodeClass();
  written["spec"]["amiFamily"] = "AL2023";
  EXPECT_EQ(NodeClassHash(written), original);
  kube::Object custom = NodeClass();
  custom["spec"]["amiFamily"] = "Custom";  // the user's own user data with the alias's images
  EXPECT_NE(NodeClassHash(custom), original);
  kube::Object other = NodeClass();
  other["spec"]["amiSelectorTerms"] = {{{"alias", "bottlerocket@latest"}}};
  EXPECT_NE(NodeClassHash(other), original);
}

TEST(NodeClassHashTest, EmptyValuesAndListOrderDoNotCount) {
  const std::string original = NodeClassHash(NodeClass());
  kube::Object reordered = NodeClass();
  std::swap(reordered["spec"]["blockDeviceMappings"][0],
            reordered["spec"]["blockDeviceMappings"][1]);
  reordered["spec"]["kubelet"]["clusterDNS"] = {"10.0.0.11", "10.0.0.10"};
  EXPECT_EQ(NodeClassHash(reordered), original);
  kube::Object empty = NodeClass();
  empty["spec"]["userData"] = "";
  empty["spec"]["context"] = nullptr;
  empty["spec"]["kubelet"]["systemReserved"] = kube::Object::object();
  EXPECT_EQ(NodeClassHash(empty), original);
}

TEST(NodeClassHashTest, LaunchSettingsChangeIt) {
  const std::string original = NodeClassHash(NodeClass());
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, kube::Object>>{{"role", "other"},
                                                         {"tags", {{"team", "api"}}},
                                                         {"userData", "#!/bin/bash\necho hi"},
                                                         {"associatePublicIPAddress", false},
                                                         {"detailedMonitoring", true},
                                                         {"instanceStorePolicy", "RAID0"},
                                                         {"context", "cr-context"}}) {
    kube::Object changed = NodeClass();
    changed["spec"][field] = value;
    EXPECT_NE(NodeClassHash(changed), original) << field;
  }
  kube::Object volume = NodeClass();
  volume["spec"]["blockDeviceMappings"][1]["ebs"]["volumeSize"] = "200Gi";
  EXPECT_NE(NodeClassHash(volume), original);
  kube::Object kubelet = NodeClass();
  kubelet["spec"]["kubelet"]["maxPods"] = 58;
  EXPECT_NE(NodeClassHash(kubelet), original);
}

TEST(NodeClassHashTest, AMalformedObjectStillHashes) {
  EXPECT_FALSE(NodeClassHash(kube::Object::object()).empty());
  EXPECT_FALSE(NodeClassHash(kube::Object{{"spec", "not an object"}}).empty());
  kube::Object bad_terms = NodeClass();
  bad_terms["spec"]["amiSelectorTerms"] = {7, {{"alias", 5}}};
  EXPECT_FALSE(NodeClassHash(bad_terms).empty());
}

}  // namespace
}  // namespace karpenter::controllers
