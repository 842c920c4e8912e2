// Drift of an instance from its EC2NodeClass's resolved status: the newest AMI for its type,
// exactly the resolved security groups, one of the resolved subnets — in upstream's order, and
// nothing decided by a part of the status not resolved yet.

#include "aws/provider/drift.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "aws/catalog/aws_catalog.h"

namespace karpenter::aws {
namespace {

using api::NodeSelectorOperator;

class DriftTest : public ::testing::Test {
 protected:
  void SetUp() override {
    aws::AwsCatalogOptions options;
    options.zones = {"us-east-1a", "us-east-1b"};
    catalog_ = aws::BuildAwsCatalog(options);
    node_class_.status.subnets = {{"subnet-a", "us-east-1a", "use1-az1"},
                                  {"subnet-b", "us-east-1b", "use1-az2"}};
    node_class_.status.security_groups = {{"sg-nodes", "nodes"}, {"sg-extra", "extra"}};
    // Newest first: the amd64 image of the new release, then the old one, then arm64.
    node_class_.status.amis = {{"ami-new-amd64", "new", Arch("amd64")},
                               {"ami-old-amd64", "old", Arch("amd64")},
                               {"ami-arm64", "arm", Arch("arm64")}};
    instance_.instance_id = "i-0123";
    instance_.instance_type = "m5.large";
    instance_.image_id = "ami-new-amd64";
    instance_.subnet_id = "subnet-b";
    instance_.security_group_ids = {"sg-extra", "sg-nodes"};
  }

  static std::vector<api::NodeSelectorRequirement> Arch(std::string arch) {
    return {{std::string(api::kLabelArch), NodeSelectorOperator::kIn, {std::move(arch)}, {}}};
  }

  const cloud::InstanceType* Type(const std::string& name) const {
    for (const cloud::InstanceType& type : catalog_) {
      if (type.name == name) return &type;
    }
    ADD_FAILURE() << "no " << name << " in the catalog";
    return nullptr;
  }

  std::vector<cloud::InstanceType> catalog_;
  api::EC2NodeClass node_class_;
  Instance instance_;
};

TEST_F(DriftTest, AnInstanceOnWhatTheNodeClassResolvesToIsNotDrifted) {
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), "");
  instance_.instance_type = "m6g.large";
  instance_.image_id = "ami-arm64";
  EXPECT_EQ(DriftOf(instance_, Type("m6g.large"), node_class_), "");
}

TEST_F(DriftTest, AnOlderAmiForItsTypeIsAmiDrift) {
  instance_.image_id = "ami-old-amd64";  // still resolved, but no longer the newest for amd64
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), api::kDriftAmi);
  instance_.image_id = "ami-arm64";  // an image of the node class, but not for this type
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), api::kDriftAmi);
  // Without the type (no longer offered) the AMI decides nothing.
  EXPECT_EQ(DriftOf(instance_, nullptr, node_class_), "");
}

TEST_F(DriftTest, SecurityGroupsMustBeExactlyTheResolvedOnes) {
  instance_.security_group_ids = {"sg-nodes"};
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), api::kDriftSecurityGroup);
  instance_.security_group_ids = {"sg-nodes", "sg-extra", "sg-other"};
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), api::kDriftSecurityGroup);
}

TEST_F(DriftTest, ASubnetNoLongerSelectedIsSubnetDrift) {
  instance_.subnet_id = "subnet-gone";
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), api::kDriftSubnet);
}

TEST_F(DriftTest, TheAmiIsCheckedFirstThenSecurityGroupsThenTheSubnet) {
  instance_.image_id = "ami-old-amd64";
  instance_.security_group_ids = {"sg-other"};
  instance_.subnet_id = "subnet-gone";
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), api::kDriftAmi);
  instance_.image_id = "ami-new-amd64";
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), api::kDriftSecurityGroup);
  instance_.security_group_ids = {"sg-nodes", "sg-extra"};
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), api::kDriftSubnet);
}

TEST_F(DriftTest, WhatIsNotResolvedYetDecidesNothing) {
  instance_.image_id = "ami-elsewhere";
  instance_.security_group_ids = {"sg-other"};
  instance_.subnet_id = "subnet-gone";
  node_class_.status = {};
  EXPECT_EQ(DriftOf(instance_, Type("m5.large"), node_class_), "");
}

}  // namespace
}  // namespace karpenter::aws
