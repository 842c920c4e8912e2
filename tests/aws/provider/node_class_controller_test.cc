// The EC2NodeClass controller against moto and the in-memory API server: with its spec unchanged,
// what its selectors resolve to is read again, each part at its own refresh interval, so an AMI
// published behind an SSM parameter and a subnet tagged later reach its status, and from there
// drift.

#include "aws/provider/node_class_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/condition.h"
#include "api/encode.h"
#include "api/labels.h"
#include "aws/api/moto_fixture.h"
#include "aws/catalog/aws_catalog.h"
#include "aws/nodeclass/seeded_resolver.h"
#include "aws/provider/drift.h"
#include "controllers/cluster_cache.h"
#include "controllers/nodeclass_hash.h"
#include "kube/memory/memory_client.h"
#include "kube/object.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using std::chrono::minutes;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

class NodeClassControllerTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    ec2_.emplace(clients_->ec2());
    ssm_.emplace(clients_->ssm());
    iam_.emplace(clients_->iam());
    resolver_.emplace(*ec2_, *ssm_, *iam_, testing::SeededResolverOptions(seed_, cluster_),
                      virtual_clock_);
    launch_templates_.emplace(*ec2_, cluster_, virtual_clock_);
    kube_.emplace(virtual_clock_);
    cluster_cache_.emplace(*kube_);
    events_.emplace(*kube_, virtual_clock_, "karpenter",
                    kube::EventRecorderOptions{.synchronous = true});
    // Each part its own interval, so that the test can tell them apart.
    controller_.emplace(*kube_, *cluster_cache_, *events_, *resolver_, *launch_templates_,
                        virtual_clock_, Logger(),
                        NodeClassRefresh{.amis = minutes(2),
                                         .subnets = minutes(5),
                                         .security_groups = minutes(5),
                                         .capacity_reservations = minutes(5),
                                         .everything = minutes(30)});
  }

  void TearDown() override {
    if (resolver_ && !name_.empty()) {
      api::EC2NodeClass node_class;
      node_class.metadata.name = name_;
      node_class.spec.role = seed_["node_role"].get<std::string>();
      (void)resolver_->Finalize(node_class);
    }
  }

  // One round of the controller loop, with the informer up to date before and after.
  void Reconcile() {
    ASSERT_THAT(cluster_cache_->node_classes().Sync(), IsOk());
    ASSERT_THAT(controller_->ReconcileAll(), IsOk());
    ASSERT_THAT(cluster_cache_->node_classes().Sync(), IsOk());
  }

  api::EC2NodeClass Current() {
    Result<kube::Object> object = kube_->Get(kube::resources::kEC2NodeClasses, "", name_);
    EXPECT_THAT(object, IsOk());
    std::string error;
    std::optional<api::EC2NodeClass> decoded =
        object.ok() ? controllers::DecodeEC2NodeClass(*object, &error) : std::nullopt;
    EXPECT_TRUE(decoded.has_value()) << error;
    return decoded.value_or(api::EC2NodeClass{});
  }
  // The hash of the spec, as the controller stamps it.
  std::string Hash() {
    Result<kube::Object> object = kube_->Get(kube::resources::kEC2NodeClasses, "", name_);
    EXPECT_THAT(object, IsOk());
    return object.ok() ? controllers::NodeClassHash(*object) : "";
  }
  std::vector<std::string> Amis() {
    std::vector<std::string> ids;
    for (const api::AmiStatus& ami : Current().status.amis) ids.push_back(ami.id);
    return ids;
  }
  std::set<std::string> Subnets() {
    std::set<std::string> ids;
    for (const api::SubnetStatus& subnet : Current().status.subnets) ids.insert(subnet.id);
    return ids;
  }

  // The controller's refresh intervals pass on this clock (the base class's clock_ is real).
  VirtualClock virtual_clock_{std::chrono::sys_days{std::chrono::year{2026} / 12 / 1}};
  std::optional<Ec2Api> ec2_;
  std::optional<SsmApi> ssm_;
  std::optional<IamApi> iam_;
  std::optional<NodeClassResolver> resolver_;
  std::optional<LaunchTemplates> launch_templates_;
  std::optional<kube::memory::MemoryClient> kube_;
  std::optional<controllers::ClusterCache> cluster_cache_;
  std::optional<kube::EventRecorder> events_;
  std::optional<NodeClassController> controller_;
  std::string name_;
};

TEST_F(NodeClassControllerTest, ANewAmiAndANewSubnetReachTheStatusAtTheirRefreshIntervals) {
  const std::string parameter = "/karpenter/test/" + testing::UniqueName("image");
  const std::string old_image =
      seed_["custom_images"]["custom_x86_64_old"]["id"].get<std::string>();
  const std::string new_image =
      seed_["custom_images"]["custom_x86_64_new"]["id"].get<std::string>();
  testing::PutParameter(clients_->ssm(), parameter, old_image);
  const std::string tag = testing::UniqueName("subnets");
  const std::string first_subnet = seed_["subnets"][0]["id"].get<std::string>();
  const std::string second_subnet = seed_["subnets"][1]["id"].get<std::string>();
  ASSERT_THAT(ec2_->CreateTags({first_subnet}, {{tag, "yes"}}), IsOk());

  name_ = testing::UniqueName("nodeclass");
  kube::Object object = {
      {"apiVersion", "karpenter.k8s.aws/v1"},
      {"kind", "EC2NodeClass"},
      {"metadata", {{"name", name_}}},
      {"spec",
       {{"amiFamily", "AL2023"},
        {"amiSelectorTerms", {{{"ssmParameter", parameter}}}},
        {"subnetSelectorTerms", {{{"tags", {{tag, "yes"}}}}}},
        {"securityGroupSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", cluster_}}}}}},
        {"role", seed_["node_role"]}}}};
  ASSERT_THAT(kube_->Create(kube::resources::kEC2NodeClasses, object, {}), IsOk());
  Reconcile();  // the finalizer and the hash
  Reconcile();  // the status
  ASSERT_TRUE(api::IsConditionTrue(Current().status.conditions, api::kConditionReady))
      << api::Encode(Current().status).dump();
  EXPECT_THAT(Amis(), ElementsAre(old_image));
  EXPECT_THAT(Subnets(), ElementsAre(first_subnet));
  const std::string hash = Hash();

  // A new release behind the parameter, a second subnet tagged: the spec is unchanged.
  testing::PutParameter(clients_->ssm(), parameter, new_image);
  ASSERT_THAT(ec2_->CreateTags({second_subnet}, {{tag, "yes"}}), IsOk());
  virtual_clock_.Advance(minutes(1));
  Reconcile();
  EXPECT_THAT(Amis(), ElementsAre(old_image)) << "read again before its interval";
  virtual_clock_.Advance(minutes(1));
  Reconcile();
  EXPECT_THAT(Amis(), ElementsAre(new_image));
  EXPECT_THAT(Subnets(), ElementsAre(first_subnet)) << "read again before its interval";
  virtual_clock_.Advance(minutes(3));
  Reconcile();
  EXPECT_THAT(Subnets(), UnorderedElementsAre(first_subnet, second_subnet));
  // Neither changed the spec's hash: the drift is the resolved AMI's, not a spec change.
  EXPECT_EQ(Hash(), hash);

  // An instance launched before the release now runs an AMI the class no longer resolves to.
  const std::vector<cloud::InstanceType> catalog = BuildAwsCatalog(AwsCatalogOptions{});
  const cloud::InstanceType* m5_large = nullptr;
  for (const cloud::InstanceType& type : catalog) {
    if (type.name == "m5.large") m5_large = &type;
  }
  ASSERT_NE(m5_large, nullptr);
  Instance instance;
  instance.instance_id = "i-0123456789abcdef0";
  instance.instance_type = "m5.large";
  instance.image_id = old_image;
  instance.subnet_id = first_subnet;
  for (const api::SecurityGroupStatus& group : Current().status.security_groups) {
    instance.security_group_ids.push_back(group.id);
  }
  EXPECT_EQ(DriftOf(instance, m5_large, Current()), api::kDriftAmi);
  instance.image_id = new_image;
  EXPECT_EQ(DriftOf(instance, m5_large, Current()), "");
}

}  // namespace
}  // namespace karpenter::aws
