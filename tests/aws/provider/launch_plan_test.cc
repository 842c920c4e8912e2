#include "aws/provider/launch_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/labels.h"
#include "aws/catalog/aws_catalog.h"
#include "cloud/cloud_provider.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using api::NodeSelectorOperator;
using api::NodeSelectorRequirement;

Quantity Q(std::string_view text) { return *Quantity::Parse(text); }

class LaunchPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    aws::AwsCatalogOptions options;
    options.zones = {"us-east-1a", "us-east-1b", "us-east-1c"};
    catalog_ = aws::BuildAwsCatalog(options);
    node_class_.metadata.name = "default";
    // Most free addresses first: us-east-1a's subnet-a1 beats subnet-a2.
    node_class_.status.subnets = {{"subnet-a1", "us-east-1a", "use1-az1"},
                                  {"subnet-b1", "us-east-1b", "use1-az2"},
                                  {"subnet-a2", "us-east-1a", "use1-az1"}};
    const NodeSelectorRequirement no_gpu{
        std::string(api::kLabelInstanceGpuCount), NodeSelectorOperator::kDoesNotExist, {}, {}};
    node_class_.status.amis = {
        {"ami-amd64",
         "standard-x86_64",
         {{std::string(api::kLabelArch), NodeSelectorOperator::kIn, {"amd64"}, {}}, no_gpu}},
        {"ami-arm64",
         "standard-arm64",
         {{std::string(api::kLabelArch), NodeSelectorOperator::kIn, {"arm64"}, {}}, no_gpu}}};
    claim_.metadata.name = "default-abcde";
    claim_.spec.resource_requests.Set(api::kResourceCpu, Q("1"));
    claim_.spec.resource_requests.Set(api::kResourceMemory, Q("1Gi"));
    Require(api::kLabelInstanceType, {"m5.large", "m6g.large", "c5.large", "r5.large"});
  }

  void Require(std::string_view key, std::vector<std::string> values) {
    claim_.spec.requirements.push_back(
        {std::string(key), NodeSelectorOperator::kIn, std::move(values), {}});
  }

  std::vector<cloud::InstanceType> catalog_;
  api::EC2NodeClass node_class_;
  api::NodeClaim claim_;
};

TEST_F(LaunchPlanTest, PrefersSpotAndListsCheapestTypesFirstWithTheirSubnetAndImage) {
  Result<LaunchPlan> plan = PlanLaunch(claim_, node_class_, catalog_);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->capacity_type, "spot");
  ASSERT_FALSE(plan->candidates.empty());
  std::set<std::string> types;
  double previous_cheapest = 0;
  std::string previous_type;
  for (const LaunchCandidate& candidate : plan->candidates) {
    types.insert(candidate.instance_type->name);
    // Zone c has no subnet, so none of its offerings is a candidate.
    EXPECT_NE(candidate.zone, "us-east-1c");
    EXPECT_EQ(candidate.subnet_id, candidate.zone == "us-east-1a" ? "subnet-a1" : "subnet-b1");
    EXPECT_EQ(candidate.image_id,
              candidate.instance_type->name == "m6g.large" ? "ami-arm64" : "ami-amd64");
    bool offered = false;
    for (const cloud::Offering& offering : candidate.instance_type->offerings) {
      if (offering.zone == candidate.zone && offering.capacity_type == "spot") {
        offered = offering.available && offering.price == candidate.price;
      }
    }
    EXPECT_TRUE(offered) << candidate.instance_type->name << " " << candidate.zone;
    // Types come in order of their cheapest candidate.
    if (candidate.instance_type->name != previous_type) {
      EXPECT_GE(candidate.price, previous_cheapest) << candidate.instance_type->name;
      previous_cheapest = candidate.price;
      previous_type = candidate.instance_type->name;
    }
  }
  EXPECT_EQ(types, (std::set<std::string>{"m5.large", "m6g.large", "c5.large", "r5.large"}));
}

TEST_F(LaunchPlanTest, OnDemandWhenTheNodeClaimAllowsOnlyThat) {
  Require(api::kLabelCapacityType, {"on-demand"});
  Result<LaunchPlan> plan = PlanLaunch(claim_, node_class_, catalog_);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->capacity_type, "on-demand");
}

TEST_F(LaunchPlanTest, OnDemandWhenNoSpotOfferingIsAvailable) {
  for (cloud::InstanceType& type : catalog_) {
    for (cloud::Offering& offering : type.offerings) {
      if (offering.capacity_type == "spot") offering.available = false;
    }
  }
  Result<LaunchPlan> plan = PlanLaunch(claim_, node_class_, catalog_);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->capacity_type, "on-demand");
  for (const LaunchCandidate& candidate : plan->candidates) EXPECT_GT(candidate.price, 0);
}

TEST_F(LaunchPlanTest, KeepsToTheZonesTheNodeClaimAllows) {
  Require(api::kLabelZone, {"us-east-1b"});
  Result<LaunchPlan> plan = PlanLaunch(claim_, node_class_, catalog_);
  ASSERT_THAT(plan, IsOk());
  ASSERT_FALSE(plan->candidates.empty());
  for (const LaunchCandidate& candidate : plan->candidates) {
    EXPECT_EQ(candidate.zone, "us-east-1b");
    EXPECT_EQ(candidate.subnet_id, "subnet-b1");
  }
}

TEST_F(LaunchPlanTest, TypesWithoutACompatibleImageAreLeftOut) {
  node_class_.status.amis.resize(1);  // amd64 only
  Result<LaunchPlan> plan = PlanLaunch(claim_, node_class_, catalog_);
  ASSERT_THAT(plan, IsOk());
  for (const LaunchCandidate& candidate : plan->candidates) {
    EXPECT_NE(candidate.instance_type->name, "m6g.large");
  }
}

TEST_F(LaunchPlanTest, AtMostSixtyTypesAndTheCheapestOnes) {
  claim_.spec.requirements.clear();
  Require(api::kLabelArch, {"amd64"});
  Result<LaunchPlan> plan = PlanLaunch(claim_, node_class_, catalog_);
  ASSERT_THAT(plan, IsOk());
  std::set<std::string> types;
  double most_expensive_kept = 0;
  for (const LaunchCandidate& candidate : plan->candidates) {
    types.insert(candidate.instance_type->name);
    most_expensive_kept = std::max(most_expensive_kept, candidate.price);
  }
  EXPECT_EQ(types.size(), kMaxLaunchInstanceTypes);
  // Some amd64 type left out has a cheapest spot offering above every kept one's cheapest.
  size_t left_out = 0;
  for (const cloud::InstanceType& type : catalog_) {
    if (!types.contains(type.name) && type.requirements.Get(api::kLabelArch) != nullptr &&
        type.requirements.Get(api::kLabelArch)->Has("amd64")) {
      ++left_out;
    }
  }
  EXPECT_GT(left_out, 0U);
  // Dropping the most expensive kept type from the catalog lets exactly one other type in.
  std::string priciest;
  double priciest_cheapest = -1;
  std::map<std::string, double> cheapest;
  for (const LaunchCandidate& candidate : plan->candidates) {
    auto [it, inserted] = cheapest.emplace(candidate.instance_type->name, candidate.price);
    if (!inserted) it->second = std::min(it->second, candidate.price);
  }
  for (const auto& [name, price] : cheapest) {
    if (price > priciest_cheapest) {
      priciest_cheapest = price;
      priciest = name;
    }
  }
  std::erase_if(catalog_, [&](const cloud::InstanceType& type) { return type.name == priciest; });
  Result<LaunchPlan> next = PlanLaunch(claim_, node_class_, catalog_);
  ASSERT_THAT(next, IsOk());
  std::set<std::string> next_types;
  for (const LaunchCandidate& candidate : next->candidates) {
    next_types.insert(candidate.instance_type->name);
    if (!types.contains(candidate.instance_type->name)) {
      EXPECT_GE(candidate.price, priciest_cheapest) << candidate.instance_type->name;
    }
  }
  EXPECT_EQ(next_types.size(), kMaxLaunchInstanceTypes);
  EXPECT_FALSE(next_types.contains(priciest));
}

TEST_F(LaunchPlanTest, NothingFitsIsInsufficientCapacity) {
  claim_.spec.resource_requests.Set(api::kResourceCpu, Q("100"));
  Result<LaunchPlan> plan = PlanLaunch(claim_, node_class_, catalog_);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().reason, cloud::kReasonInsufficientCapacity);
  EXPECT_NE(plan.error().message.find("default-abcde"), std::string::npos) << plan.error().message;
}

TEST_F(LaunchPlanTest, ANodeClassWithoutSubnetsOrImagesCannotLaunch) {
  api::EC2NodeClass no_subnets = node_class_;
  no_subnets.status.subnets.clear();
  Result<LaunchPlan> plan = PlanLaunch(claim_, no_subnets, catalog_);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("no resolved subnets"), std::string::npos);
  api::EC2NodeClass no_images = node_class_;
  no_images.status.amis.clear();
  plan = PlanLaunch(claim_, no_images, catalog_);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("no resolved AMIs"), std::string::npos);
}

}  // namespace
}  // namespace karpenter::aws
