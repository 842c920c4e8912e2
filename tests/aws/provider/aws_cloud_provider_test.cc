// The AWS cloud provider against moto: launches through launch templates and CreateFleet with the
// ownership tags (one request for equal launches, a karpenter.sh/nodeclaim tag for each
// instance), finds, lists and terminates only what it owns.

#include "aws/provider/aws_cloud_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "aws/api/iam_api.h"
#include "aws/api/moto_fixture.h"
#include "aws/api/ssm_api.h"
#include "aws/instancetypes/pricing_provider.h"
#include "aws/nodeclass/node_class_resolver.h"
#include "aws/nodeclass/seeded_resolver.h"
#include "aws/provider/fleet_batch_metrics.h"
#include "aws/provider/launch_templates.h"
#include "aws/sdk/aws_test_tools.h"
#include "aws/userdata/user_data.h"
#include "cloud/node_overlays.h"
#include "common/base64.h"
#include "metrics/exposition.h"
#include "support/golden.h"
#include "support/matchers.h"
#include "support/metrics_text.h"
#include "support/param_name.h"
#include "support/run_command.h"

namespace karpenter::aws {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::SizeIs;

// Through the fault proxy, which passes everything on until a test sets faults.
class AwsCloudProviderTest : public testing::MotoTest {
 protected:
  AwsCloudProviderTest() { through_fault_proxy_ = true; }

  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    region_ = seed_["region"].get<std::string>();
    cluster_name_ = testing::UniqueName("cluster");
    ec2_.emplace(clients_->ec2());
    ssm_.emplace(clients_->ssm());
    iam_.emplace(clients_->iam());
    PricingProviderOptions pricing_options;
    pricing_options.region = region_;
    pricing_.emplace(*ec2_, nullptr, clock_, pricing_options);
    // Spot prices from EC2; moto has no Pricing API, so the region's on-demand prices stay unknown
    // and every launch here is a spot launch.
    Status priced = pricing_->Refresh();
    ASSERT_THAT(priced, IsOk());
    ASSERT_GT(pricing_->spot_count(), 0U);
    unavailable_.emplace(clock_);
    InstanceTypeProviderOptions type_options;
    type_options.region = region_;
    // The ReservedCapacity gate is on by default, as upstream's.
    type_options.reservation_counts = &counts_;
    instance_types_.emplace(*ec2_, *pricing_, *unavailable_, clock_, type_options);
    launch_templates_.emplace(*ec2_, cluster_name_, clock_);

    node_class_.metadata.name = testing::UniqueName("nodeclass");
    node_class_.metadata.uid = node_class_.metadata.name + "-uid";
    node_class_.metadata.generation = 1;
    node_class_.spec.subnet_selector_terms = {{{{"karpenter.sh/discovery", cluster_}}, "", ""}};
    node_class_.spec.security_group_selector_terms = {
        {{{"karpenter.sh/discovery", cluster_}}, "", ""}};
    api::AmiSelectorTerm alias;
    alias.alias = "al2023@latest";
    node_class_.spec.ami_selector_terms = {alias};
    node_class_.spec.role = seed_["node_role"].get<std::string>();
    node_class_.spec.tags = {{"team", "platform"}};
    resolver_options_ = testing::SeededResolverOptions(seed_, cluster_name_);
    resolver_options_.reservation_counts = &counts_;
    ResolveNodeClass();
    if (HasFatalFailure()) return;
    finalize_ = [this] {
      NodeClassResolver cleanup(*ec2_, *ssm_, *iam_, resolver_options_, clock_);
      (void)cleanup.Finalize(node_class_);
      (void)launch_templates_->DeleteForNodeClass(node_class_.metadata.name);
    };

    AwsCloudProviderOptions options;
    options.cluster_name = cluster_name_;
    options.region = region_;
    options.cluster_endpoint = "https://cluster.example";
    options.certificate_authority = "Q0E=";
    options.reservation_counts = &counts_;
    provider_.emplace(
        *ec2_, *instance_types_, *unavailable_, *launch_templates_,
        [this](std::string_view name) -> std::optional<api::EC2NodeClass> {
          if (name != node_class_.metadata.name) return std::nullopt;
          return node_class_;
        },
        options, clock_);
  }

  // Resolves node_class_'s status from its spec, as its controller does.
  void ResolveNodeClass() {
    NodeClassResolver resolver(*ec2_, *ssm_, *iam_, resolver_options_, clock_);
    node_class_.status = resolver.Resolve(node_class_);
    ASSERT_TRUE(api::IsConditionTrue(node_class_.status.conditions, "Ready"))
        << "the seeded account must resolve the node class";
  }

  void TearDown() override {
    if (clients_) testing::SetFaults(Json::object());
    if (provider_) {
      Result<std::vector<cloud::Instance>> left = provider_->List();
      if (left.ok()) {
        for (const cloud::Instance& instance : *left) (void)provider_->Delete(instance.provider_id);
      }
    }
    if (finalize_) finalize_();
  }

  api::NodeClaim Claim(const std::string& name, std::vector<std::string> types) const {
    api::NodeClaim claim;
    claim.metadata.name = name;
    claim.metadata.labels = {{std::string(api::kLabelNodePool), "default"}, {"team", "platform"}};
    claim.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", node_class_.metadata.name};
    claim.spec.requirements = {{std::string(api::kLabelInstanceType),
                                api::NodeSelectorOperator::kIn,
                                std::move(types),
                                {}},
                               {std::string(api::kLabelCapacityType),
                                api::NodeSelectorOperator::kIn,
                                {"spot", "on-demand"},
                                {}}};
    claim.spec.resource_requests.Set(api::kResourceCpu, *Quantity::Parse("1"));
    claim.spec.startup_taints = {{"example.com/starting", "", api::TaintEffect::kNoSchedule}};
    return claim;
  }

  std::string region_;
  std::string cluster_name_;
  std::optional<Ec2Api> ec2_;
  std::optional<SsmApi> ssm_;
  std::optional<IamApi> iam_;
  std::optional<PricingProvider> pricing_;
  std::optional<UnavailableOfferings> unavailable_;
  std::optional<InstanceTypeProvider> instance_types_;
  std::optional<LaunchTemplates> launch_templates_;
  ReservationCounts counts_{clock_};
  NodeClassResolverOptions resolver_options_;
  api::EC2NodeClass node_class_;
  std::function<void()> finalize_;
  std::optional<AwsCloudProvider> provider_;
};

TEST_F(AwsCloudProviderTest, LaunchesATaggedInstanceOnceAndTerminatesIt) {
  const api::NodeClaim claim = Claim(testing::UniqueName("claim"), {"m5.large", "m5.xlarge"});
  Result<cloud::Instance> created = provider_->Create(claim);
  ASSERT_THAT(created, IsOk());
  const std::string id = InstanceIdOf(created->provider_id);
  ASSERT_TRUE(id.starts_with("i-")) << created->provider_id;
  EXPECT_EQ(created->provider_id, "aws:///" + created->zone + "/" + id);
  EXPECT_TRUE(created->zone.starts_with(region_)) << created->zone;
  EXPECT_THAT(created->instance_type, ::testing::AnyOf("m5.large", "m5.xlarge"));
  EXPECT_EQ(created->node_claim, claim.metadata.name);
  EXPECT_EQ(created->node_pool, "default");
  EXPECT_FALSE(created->node_name.empty());
  EXPECT_GT(created->price, 0);
  EXPECT_EQ(created->capacity.cpu(),
            *Quantity::Parse(created->instance_type == "m5.large" ? "2" : "4"));
  EXPECT_THAT(created->labels,
              Contains(Pair(std::string(api::kLabelInstanceType), created->instance_type)));
  EXPECT_THAT(created->labels, Contains(Pair(std::string(api::kLabelZone), created->zone)));
  EXPECT_THAT(created->labels, Contains(Pair("team", "platform")));
  bool unregistered = false;
  bool starting = false;
  for (const api::Taint& taint : created->taints) {
    unregistered = unregistered || taint.key == "karpenter.sh/unregistered";
    starting = starting || taint.key == "example.com/starting";
  }
  EXPECT_TRUE(unregistered);
  EXPECT_TRUE(starting);

  Result<std::vector<Instance>> described = ec2_->DescribeInstances({id});
  ASSERT_THAT(described, IsOk());
  ASSERT_EQ(described->size(), 1U);
  const Ec2Tags& tags = described->front().tags;
  EXPECT_THAT(tags, Contains(Pair("kubernetes.io/cluster/" + cluster_name_, "owned")));
  EXPECT_THAT(tags, Contains(Pair("eks:eks-cluster-name", cluster_name_)));
  EXPECT_THAT(tags, Contains(Pair("karpenter.sh/nodepool", "default")));
  EXPECT_THAT(tags, Contains(Pair("karpenter.sh/nodeclaim", claim.metadata.name)));
  EXPECT_THAT(tags, Contains(Pair("karpenter.k8s.aws/ec2nodeclass", node_class_.metadata.name)));
  EXPECT_THAT(tags, Contains(Pair("team", "platform")));
  // It runs the node class's AMI for its architecture, from a launch template of the class: one
  // per AMI and kubelet sizing (m5.large and m5.xlarge differ in max pods and kube-reserved).
  bool known_image = false;
  for (const api::AmiStatus& ami : node_class_.status.amis) {
    known_image = known_image || ami.id == described->front().image_id;
  }
  EXPECT_TRUE(known_image) << described->front().image_id;
  Result<std::vector<LaunchTemplate>> templates = ec2_->DescribeLaunchTemplates(
      {{"tag:karpenter.k8s.aws/ec2nodeclass", {node_class_.metadata.name}}});
  ASSERT_THAT(templates, IsOk());
  ASSERT_EQ(templates->size(), 2U);
  for (const LaunchTemplate& launch_template : *templates) {
    EXPECT_TRUE(launch_template.name.starts_with(kLaunchTemplateNamePrefix));
  }
  // Its kubelet is told the max pods the scheduler planned with.
  Result<std::string> user_data = ec2_->DescribeInstanceUserData(id);
  ASSERT_THAT(user_data, IsOk());
  Result<std::string> decoded = DecodeBase64(*user_data);
  ASSERT_THAT(decoded, IsOk());
  Result<NodeRegistration> registration = ParseNodeRegistration(*decoded);
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->max_pods, created->capacity.pods().units_ceil());
  EXPECT_EQ(registration->max_pods, created->instance_type == "m5.large" ? 29 : 58);

  // A second Create for the same NodeClaim finds the same instance.
  Result<cloud::Instance> again = provider_->Create(claim);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->provider_id, created->provider_id);

  Result<std::vector<cloud::Instance>> listed = provider_->List();
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->size(), 1U);
  EXPECT_EQ(listed->front().provider_id, created->provider_id);
  EXPECT_EQ(listed->front().node_claim, claim.metadata.name);
  Result<cloud::Instance> got = provider_->Get(created->provider_id);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->instance_type, created->instance_type);

  ASSERT_THAT(provider_->Delete(created->provider_id), IsOk());
  Result<cloud::Instance> gone = provider_->Get(created->provider_id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().reason, cloud::kReasonNotFound);
  Status twice = provider_->Delete(created->provider_id);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().reason, cloud::kReasonNotFound);
  listed = provider_->List();
  ASSERT_THAT(listed, IsOk());
  EXPECT_TRUE(listed->empty());
}

TEST_F(AwsCloudProviderTest, EqualLaunchesShareOneCreateFleetAndEachInstanceIsTaggedItsOwn) {
  prometheus::Registry registry;
  FleetBatchMetrics batches(registry);
  provider_->ObserveBatches(&batches);
  api::NodeClaim first = Claim(testing::UniqueName("claim"), {"m5.large"});
  first.metadata.creation_timestamp = FormatTime(clock_.Now() - std::chrono::seconds(3));
  const api::NodeClaim second = Claim(testing::UniqueName("claim"), {"m5.large"});
  const api::NodeClaim third = Claim(testing::UniqueName("claim"), {"m5.large"});
  const api::NodeClaim other = Claim(testing::UniqueName("claim"), {"c5.large"});
  const std::vector<const api::NodeClaim*> batch = {&first, &other, &second, &third};
  testing::SetFaults(Json::object());  // counts from here

  const std::vector<Result<cloud::Instance>> created = provider_->CreateAll(batch);
  ASSERT_THAT(created, SizeIs(4));
  std::set<std::string> ids;
  for (size_t i = 0; i < batch.size(); ++i) {
    ASSERT_THAT(created[i], IsOk());
    EXPECT_EQ(created[i]->node_claim, batch[i]->metadata.name);
    EXPECT_EQ(created[i]->instance_type, i == 1 ? "c5.large" : "m5.large");
    EXPECT_FALSE(created[i]->node_name.empty());
    EXPECT_GT(created[i]->price, 0);
    ids.insert(InstanceIdOf(created[i]->provider_id));
  }
  EXPECT_THAT(ids, SizeIs(4)) << "an instance each";
  // One request for the three m5.large NodeClaims, one for the c5.large one; then a tag each.
  EXPECT_EQ(testing::ForwardedRequests("CreateFleet"), 2);
  EXPECT_EQ(testing::ForwardedRequests("CreateTags"), 4);
  // Counted as upstream's batcher: two batches of 3 and 1; the first waited for its oldest.
  Result<std::vector<support::Sample>> scrape = support::ParseExposition(
      metrics::TextExposition(std::vector<const prometheus::Collectable*>{&registry}));
  ASSERT_THAT(scrape, IsOk());
  const support::LabelFilter fleet = {{"batcher", "create_fleet"}};
  EXPECT_EQ(support::Sum(*scrape, "karpenter_cloudprovider_batcher_batch_size_count", fleet), 2);
  EXPECT_EQ(support::Sum(*scrape, "karpenter_cloudprovider_batcher_batch_size_sum", fleet), 4);
  const double waited =
      support::Sum(*scrape, "karpenter_cloudprovider_batcher_batch_time_seconds_sum", fleet);
  EXPECT_GE(waited, 3);
  EXPECT_LT(waited, 60);
  provider_->ObserveBatches(nullptr);

  for (size_t i = 0; i < batch.size(); ++i) {
    const std::string id = InstanceIdOf(created[i]->provider_id);
    Result<std::vector<Instance>> described = ec2_->DescribeInstances({id});
    ASSERT_THAT(described, IsOk());
    ASSERT_THAT(*described, SizeIs(1));
    const Ec2Tags& tags = described->front().tags;
    EXPECT_THAT(tags, Contains(Pair("karpenter.sh/nodeclaim", batch[i]->metadata.name))) << id;
    EXPECT_THAT(tags, Contains(Pair("kubernetes.io/cluster/" + cluster_name_, "owned"))) << id;
    EXPECT_THAT(tags, Contains(Pair("karpenter.sh/nodepool", "default"))) << id;
    // Tagged after launch with the NodeClaim's name and, for the console, the Node's.
    EXPECT_THAT(tags, Contains(Pair("Name", described->front().private_dns_name))) << id;
  }

  // Launched already: the same instances, no new request.
  const std::vector<Result<cloud::Instance>> again = provider_->CreateAll(batch);
  ASSERT_THAT(again, SizeIs(4));
  for (size_t i = 0; i < batch.size(); ++i) {
    ASSERT_THAT(again[i], IsOk());
    EXPECT_EQ(again[i]->provider_id, created[i]->provider_id);
  }
  EXPECT_EQ(testing::ForwardedRequests("CreateFleet"), 2);
  Result<std::vector<cloud::Instance>> listed = provider_->List();
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, SizeIs(4));
}

TEST_F(AwsCloudProviderTest, EqualLaunchesWithoutCapacityAreEachInsufficientCapacity) {
  testing::SetFaults({{"insufficient_capacity", {{{"instance_type", "m5.large"}, {"zone", ""}}}}});
  const api::NodeClaim first = Claim(testing::UniqueName("claim"), {"m5.large"});
  const api::NodeClaim second = Claim(testing::UniqueName("claim"), {"m5.large"});
  const api::NodeClaim third = Claim(testing::UniqueName("claim"), {"m5.large"});

  const std::vector<Result<cloud::Instance>> created =
      provider_->CreateAll(std::vector<const api::NodeClaim*>{&first, &second, &third});
  ASSERT_THAT(created, SizeIs(3));
  for (const Result<cloud::Instance>& instance : created) {
    ASSERT_FALSE(instance.ok());
    EXPECT_EQ(instance.error().reason, cloud::kReasonInsufficientCapacity);
    EXPECT_THAT(instance.error().message, HasSubstr("InsufficientInstanceCapacity"));
  }
  // One request's overrides were refused, not three requests'.
  EXPECT_EQ(testing::InjectedFaults("insufficient_capacity"),
            static_cast<int>(node_class_.status.subnets.size()));
  for (const api::SubnetStatus& subnet : node_class_.status.subnets) {
    EXPECT_TRUE(unavailable_->IsUnavailable("m5.large", subnet.zone, "spot")) << subnet.zone;
  }
  Result<std::vector<cloud::Instance>> listed = provider_->List();
  ASSERT_THAT(listed, IsOk());
  EXPECT_TRUE(listed->empty());
}

TEST_F(AwsCloudProviderTest, NeverTerminatesAnInstanceItDoesNotOwn) {
  const std::string unmanaged = seed_["unmanaged_instance"].get<std::string>();
  Result<std::vector<Instance>> before = ec2_->DescribeInstances({unmanaged});
  ASSERT_THAT(before, IsOk());
  ASSERT_EQ(before->size(), 1U);
  const std::string provider_id = "aws:///" + before->front().zone + "/" + unmanaged;

  Status deleted = provider_->Delete(provider_id);
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(deleted.error().reason, cloud::kReasonNotOwned);
  EXPECT_THAT(deleted.error().message, HasSubstr("refusing to terminate"));
  Result<cloud::Instance> got = provider_->Get(provider_id);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().reason, cloud::kReasonNotOwned);
  // Another cloud's provider ID is not ours either.
  Status foreign = provider_->Delete("gce://project/us-central1-a/vm-1");
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().reason, cloud::kReasonNotOwned);

  Result<std::vector<Instance>> after = ec2_->DescribeInstances({unmanaged});
  ASSERT_THAT(after, IsOk());
  ASSERT_EQ(after->size(), 1U);
  EXPECT_EQ(after->front().state, "running");
}

TEST_F(AwsCloudProviderTest, UnavailableOfferingsAreNotLaunched) {
  unavailable_->MarkUnavailable("m5.large", "", "", "InsufficientInstanceCapacity");
  Result<cloud::Instance> created =
      provider_->Create(Claim(testing::UniqueName("claim"), {"m5.large"}));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().reason, cloud::kReasonInsufficientCapacity);
  Result<std::vector<cloud::Instance>> listed = provider_->List();
  ASSERT_THAT(listed, IsOk());
  EXPECT_TRUE(listed->empty());

  // Another type is still launched.
  Result<cloud::Instance> other =
      provider_->Create(Claim(testing::UniqueName("claim"), {"m5.large", "c5.large"}));
  ASSERT_THAT(other, IsOk());
  EXPECT_EQ(other->instance_type, "c5.large");
}

TEST_F(AwsCloudProviderTest, InsufficientCapacityFallsBackToAnotherTypeAndIsRemembered) {
  // Which of the two types EC2 picks when both have capacity...
  Result<cloud::Instance> first =
      provider_->Create(Claim(testing::UniqueName("claim"), {"m5.large", "c5.large"}));
  ASSERT_THAT(first, IsOk());
  const std::string picked = first->instance_type;
  const std::string other = picked == "m5.large" ? "c5.large" : "m5.large";
  ASSERT_THAT(provider_->Delete(first->provider_id), IsOk());

  // ... has none in any zone now: the same fleet request launches the other type, and the
  // offerings EC2 refused are avoided from now on.
  testing::SetFaults({{"insufficient_capacity", {{{"instance_type", picked}, {"zone", ""}}}}});
  Result<cloud::Instance> second =
      provider_->Create(Claim(testing::UniqueName("claim"), {"m5.large", "c5.large"}));
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->instance_type, other);
  for (const api::SubnetStatus& subnet : node_class_.status.subnets) {
    EXPECT_TRUE(unavailable_->IsUnavailable(picked, subnet.zone, "spot")) << subnet.zone;
    EXPECT_FALSE(unavailable_->IsUnavailable(other, subnet.zone, "spot")) << subnet.zone;
  }
}

TEST_F(AwsCloudProviderTest, NoCapacityAnywhereIsInsufficientCapacityAndIsNotAskedAgain) {
  testing::SetFaults({{"insufficient_capacity", {{{"instance_type", "m5.large"}, {"zone", ""}}}}});
  Result<cloud::Instance> created =
      provider_->Create(Claim(testing::UniqueName("claim"), {"m5.large"}));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().reason, cloud::kReasonInsufficientCapacity);
  EXPECT_THAT(created.error().message, HasSubstr("InsufficientInstanceCapacity"));
  const int refused = testing::InjectedFaults("insufficient_capacity");
  EXPECT_EQ(refused, static_cast<int>(node_class_.status.subnets.size()));

  // The next launch does not ask EC2 for what it just refused.
  created = provider_->Create(Claim(testing::UniqueName("claim"), {"m5.large"}));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().reason, cloud::kReasonInsufficientCapacity);
  EXPECT_EQ(testing::InjectedFaults("insufficient_capacity"), refused);
  Result<std::vector<cloud::Instance>> listed = provider_->List();
  ASSERT_THAT(listed, IsOk());
  EXPECT_TRUE(listed->empty());
}

TEST_F(AwsCloudProviderTest, ThrottledRequestsAreRetried) {
  testing::SetFaults({{"throttle", 2}});
  Result<cloud::Instance> created =
      provider_->Create(Claim(testing::UniqueName("claim"), {"m5.large"}));
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(testing::InjectedFaults("throttled"), 2);
}

TEST_F(AwsCloudProviderTest, ANodeClassThatIsNotReadyCannotLaunch) {
  for (api::Condition& condition : node_class_.status.conditions) {
    if (condition.type == "Ready") {
      condition.status = "False";
      condition.message = "SubnetsReady=False";
    }
  }
  Result<cloud::Instance> created =
      provider_->Create(Claim(testing::UniqueName("claim"), {"m5.large"}));
  ASSERT_FALSE(created.ok());
  EXPECT_THAT(created.error().message, HasSubstr("is not ready: SubnetsReady=False"));

  api::NodeClaim elsewhere = Claim(testing::UniqueName("claim"), {"m5.large"});
  elsewhere.spec.node_class_ref.name = "missing";
  created = provider_->Create(elsewhere);
  ASSERT_FALSE(created.ok());
  EXPECT_THAT(created.error().message, HasSubstr("EC2NodeClass missing not found"));
}

// The ValidationSucceeded check asks EC2 with DryRun, as upstream: CreateFleet,
// CreateLaunchTemplate and RunInstances each reach EC2 once, and nothing is created or launched.
TEST_F(AwsCloudProviderTest, ThePermissionCheckAsksWithDryRunAndCreatesNothing) {
  testing::SetFaults(Json::object());  // the forwarded counts start again
  Result<LaunchAuthorization> verdict = provider_->CheckLaunchAuthorization(node_class_);
  ASSERT_THAT(verdict, IsOk());
  EXPECT_EQ(verdict->failed_reason, "") << verdict->message;
  for (const char* action : {"CreateFleet", "CreateLaunchTemplate", "RunInstances"}) {
    EXPECT_EQ(testing::ForwardedRequests(action), 1) << action;
  }
  Result<std::vector<LaunchTemplate>> templates = ec2_->DescribeLaunchTemplates(
      {{"tag:karpenter.k8s.aws/ec2nodeclass", {node_class_.metadata.name}}});
  ASSERT_THAT(templates, IsOk());
  EXPECT_THAT(*templates, IsEmpty());
  Result<std::vector<cloud::Instance>> instances = provider_->List();
  ASSERT_THAT(instances, IsOk());
  EXPECT_THAT(*instances, IsEmpty());
}

TEST_F(AwsCloudProviderTest, ProviderIdsOfOtherCloudsAreRejected) {
  EXPECT_EQ(InstanceIdOf("aws:///us-west-2a/i-0123"), "i-0123");
  EXPECT_EQ(InstanceIdOf("sim:///us-west-2a/sim-0001"), "");
  EXPECT_EQ(InstanceIdOf("aws:///us-west-2a/"), "");
  Status deleted = provider_->Delete("sim:///us-west-2a/sim-0001");
  ASSERT_FALSE(deleted.ok());
  EXPECT_THAT(deleted.error().message, HasSubstr("not an AWS provider ID"));
}

TEST_F(AwsCloudProviderTest, AnInstanceDriftsWhenItsAmiSecurityGroupsOrSubnetAreNoLongerResolved) {
  api::NodeClaim claim = Claim(testing::UniqueName("claim"), {"m5.large"});
  Result<cloud::Instance> created = provider_->Create(claim);
  ASSERT_THAT(created, IsOk());
  claim.status.provider_id = created->provider_id;
  auto drift = [&]() -> std::string {
    Result<std::string> reason = provider_->IsDrifted(claim);
    EXPECT_THAT(reason, IsOk());
    return reason.ok() ? *reason : "(error)";
  };
  EXPECT_EQ(drift(), "") << "just launched from what the node class resolves to";

  // Each change of the selectors, once resolved, is the drift of its own part.
  const api::EC2NodeClassSpec launched_with = node_class_.spec;
  api::AmiSelectorTerm custom;
  custom.name = seed_["custom_images"]["custom_x86_64_new"]["name"].get<std::string>();
  node_class_.spec.ami_selector_terms = {custom};
  node_class_.spec.ami_family = "AL2023";
  ResolveNodeClass();
  EXPECT_EQ(drift(), api::kDriftAmi);

  node_class_.spec = launched_with;
  node_class_.spec.security_group_selector_terms = {
      {{}, seed_["untagged_security_group"].get<std::string>(), ""}};
  ResolveNodeClass();
  EXPECT_EQ(drift(), api::kDriftSecurityGroup);

  node_class_.spec = launched_with;
  std::string other_subnet;
  for (const auto& subnet : seed_["subnets"]) {
    if (created->zone != subnet["zone"].get<std::string>()) {
      other_subnet = subnet["id"].get<std::string>();
    }
  }
  node_class_.spec.subnet_selector_terms = {{{}, other_subnet, ""}};
  ResolveNodeClass();
  EXPECT_EQ(drift(), api::kDriftSubnet);

  node_class_.spec = launched_with;
  ResolveNodeClass();
  EXPECT_EQ(drift(), "") << "back to what it was launched from";

  // A NodeClaim not launched yet, or whose instance is gone, is undecided, not an error.
  api::NodeClaim unlaunched = Claim(testing::UniqueName("claim"), {"m5.large"});
  Result<std::string> none = provider_->IsDrifted(unlaunched);
  ASSERT_THAT(none, IsOk());
  EXPECT_EQ(*none, "");
}

// NodeOverlays (their gate): a launch waits until they are evaluated for its NodePool, then
// reports the capacity they add and the price EC2 bills (not the overlaid one), and an on-demand
// or reserved fleet goes by the overlaid prices ("prioritized", in their order) where it would go
// by EC2's list ("lowest-price").
TEST_F(AwsCloudProviderTest, NodeOverlaysChooseTheLaunchAndItsCapacityButNotTheBill) {
  cloud::OverlayStore overlays;
  provider_->UseOverlays(overlays);
  Result<cloud::Instance> waiting =
      provider_->Create(Claim(testing::UniqueName("claim"), {"m5.large"}));
  ASSERT_FALSE(waiting.ok());
  EXPECT_EQ(waiting.error().reason, cloud::kReasonAwaitingOverlays);

  const std::string tag = testing::UniqueName("reserved");
  const std::string zone = seed_["subnets"][0]["zone"].get<std::string>();
  const std::string reservation =
      testing::CreateCapacityReservation(clients_->ec2(), "m5.large", zone, 1, tag);
  api::CapacityReservationSelectorTerm term;
  term.tags = {{"test", tag}};
  node_class_.spec.capacity_reservation_selector_terms = {term};
  ResolveNodeClass();
  Result<InstanceTypeList> listed = instance_types_->List(node_class_);
  ASSERT_THAT(listed, IsOk());
  api::NodeOverlay dear;
  dear.metadata.name = "dear";
  dear.spec.requirements = {
      {std::string(api::kLabelInstanceType), api::NodeSelectorOperator::kIn, {"m5.large"}, {}}};
  dear.spec.price = "9.5";
  api::NodeOverlay fuse;
  fuse.metadata.name = "fuse";
  fuse.spec.requirements = dear.spec.requirements;
  fuse.spec.capacity.Set("smarter-devices/fuse", Quantity::FromUnits(3));
  const std::vector<api::NodeOverlay> given = {dear, fuse};
  const std::vector<cloud::OverlayTarget> targets = {{"default", {}, *listed}};
  overlays.Publish(cloud::EvaluateOverlays(given, targets));

  transport_.Clear();
  api::NodeClaim claim = Claim(testing::UniqueName("claim"), {"m5.large", "m5.xlarge"});
  claim.spec.requirements[1].values = {"reserved"};
  Result<cloud::Instance> created = provider_->Create(claim);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->capacity_type, "reserved");
  EXPECT_EQ(created->capacity.Get("smarter-devices/fuse"), Quantity::FromUnits(3));
  EXPECT_LT(created->price, 1.0) << "the bill is EC2's price, not the overlay's 9.5";
  const std::vector<testing::FormParameters> fleets = transport_.Sent("CreateFleet");
  ASSERT_EQ(fleets.size(), 1U);
  std::map<std::string, std::string> sent(fleets.front().begin(), fleets.front().end());
  EXPECT_EQ(sent["OnDemandOptions.AllocationStrategy"], "prioritized");
  // Each override carries its rank at the overlaid prices (only m5.large is reserved here).
  EXPECT_EQ(sent["LaunchTemplateConfigs.1.Overrides.1.Priority"], "0.000000");
  EXPECT_EQ(sent["LaunchTemplateConfigs.1.Overrides.1.InstanceType"], "m5.large");
  ASSERT_THAT(provider_->Delete(created->provider_id), IsOk());
  testing::CancelCapacityReservation(clients_->ec2(), reservation);
}

// The launch requests, field by field, for each AMI family: its defaults, and every launch field
// of the EC2NodeClass set. Checked against golden requests (tests/testdata/aws/launch/, reviewed
// against what upstream sends: docs/upstream-reference.md §6), against botocore's EC2 model, and
// read back from moto where moto keeps what it was given (its CreateFleet launches without the
// template's volumes, so the captured request is the evidence for those).
TEST_F(AwsCloudProviderTest, LaunchesIntoACapacityReservationFirstAndFallsBackWhenItIsFull) {
  const std::string tag = testing::UniqueName("reserved");
  const std::string zone = seed_["subnets"][0]["zone"].get<std::string>();
  const std::string id =
      testing::CreateCapacityReservation(clients_->ec2(), "m5.large", zone, 1, tag);
  ASSERT_TRUE(id.starts_with("cr-")) << id;
  // Another account's reservation with the same tag is not selected.
  api::CapacityReservationSelectorTerm term;
  term.tags = {{"test", tag}};
  node_class_.spec.capacity_reservation_selector_terms = {term};
  ResolveNodeClass();
  const api::Condition* ready =
      api::FindCondition(node_class_.status.conditions, api::kConditionCapacityReservationsReady);
  ASSERT_NE(ready, nullptr);
  ASSERT_EQ(node_class_.status.capacity_reservations.size(), 1U) << ready->message;
  const api::CapacityReservationStatus& status = node_class_.status.capacity_reservations.front();
  EXPECT_EQ(status.id, id);
  EXPECT_EQ(status.instance_type, "m5.large");
  EXPECT_EQ(status.zone, zone);
  EXPECT_EQ(status.instance_match_criteria, "targeted");
  EXPECT_EQ(status.owner_id, seed_["account"].get<std::string>());
  EXPECT_EQ(status.reservation_type, "default");
  EXPECT_TRUE(api::IsConditionTrue(node_class_.status.conditions,
                                   api::kConditionCapacityReservationsReady));
  EXPECT_EQ(counts_.Available(id), 1);

  // The reserved offering is practically free, so it goes first; the launch targets it.
  api::NodeClaim first = Claim(testing::UniqueName("claim"), {"m5.large", "m5.xlarge"});
  first.spec.requirements[1].values = {"reserved", "spot", "on-demand"};
  Result<cloud::Instance> reserved = provider_->Create(first);
  ASSERT_THAT(reserved, IsOk());
  EXPECT_EQ(reserved->capacity_type, "reserved");
  EXPECT_EQ(reserved->instance_type, "m5.large");
  EXPECT_EQ(reserved->zone, zone);
  EXPECT_THAT(reserved->labels, Contains(Pair(std::string(api::kLabelCapacityType), "reserved")));
  EXPECT_THAT(reserved->labels, Contains(Pair(std::string(api::kLabelCapacityReservationId), id)));
  EXPECT_THAT(reserved->labels,
              Contains(Pair(std::string(api::kLabelCapacityReservationType), "default")));
  Result<std::vector<Instance>> described =
      ec2_->DescribeInstances({InstanceIdOf(reserved->provider_id)});
  ASSERT_THAT(described, IsOk());
  ASSERT_EQ(described->size(), 1U);
  EXPECT_EQ(described->front().capacity_reservation_id, id);
  const std::vector<testing::FormParameters> templates = transport_.Sent("CreateLaunchTemplate");
  ASSERT_FALSE(templates.empty());
  bool targeted = false;
  const auto value = [](const testing::FormParameters& sent, std::string_view name) {
    for (const auto& [key, text] : sent) {
      if (key == name) return text;
    }
    return std::string();
  };
  for (const testing::FormParameters& sent : templates) {
    if (value(sent,
              "LaunchTemplateData.CapacityReservationSpecification."
              "CapacityReservationTarget.CapacityReservationId") != id) {
      continue;
    }
    targeted = true;
    EXPECT_EQ(value(sent,
                    "LaunchTemplateData.CapacityReservationSpecification."
                    "CapacityReservationPreference"),
              "capacity-reservations-only");
  }
  EXPECT_TRUE(targeted) << "no launch template targets " << id;
  // Counted down at once, before EC2's count is read again.
  EXPECT_EQ(counts_.Available(id), 0);
  Result<cloud::Instance> got = provider_->Get(reserved->provider_id);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->capacity_type, "reserved");

  // Full: the next launch is spot, and its template keeps it out of open reservations.
  api::NodeClaim second = Claim(testing::UniqueName("claim"), {"m5.large", "m5.xlarge"});
  second.spec.requirements[1].values = {"reserved", "spot", "on-demand"};
  Result<cloud::Instance> spot = provider_->Create(second);
  ASSERT_THAT(spot, IsOk());
  EXPECT_EQ(spot->capacity_type, "spot");
  EXPECT_FALSE(spot->labels.contains(std::string(api::kLabelCapacityReservationId)));

  // A count that is wrong (EC2 has no room, our count says 1): EC2 refuses the launch with
  // ReservationCapacityExceeded, the reservation counts as full, and the retry is spot.
  counts_.Sync(id, 1);
  api::NodeClaim third = Claim(testing::UniqueName("claim"), {"m5.large"});
  third.spec.requirements[1].values = {"reserved", "spot", "on-demand"};
  Result<cloud::Instance> refused = provider_->Create(third);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().reason, cloud::kReasonInsufficientCapacity);
  EXPECT_THAT(refused.error().message, HasSubstr("ReservationCapacityExceeded"));
  EXPECT_EQ(counts_.Available(id), 0);
  Result<cloud::Instance> retried = provider_->Create(third);
  ASSERT_THAT(retried, IsOk());
  EXPECT_EQ(retried->capacity_type, "spot");

  // A reserved-only NodeClaim does not fall back.
  api::NodeClaim strict = Claim(testing::UniqueName("claim"), {"m5.large"});
  strict.spec.requirements[1].values = {"reserved"};
  Result<cloud::Instance> none = provider_->Create(strict);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().reason, cloud::kReasonInsufficientCapacity);

  // The selector no longer selecting the reservation drifts its instance.
  node_class_.spec.capacity_reservation_selector_terms[0].tags = {{"test", tag + "-other"}};
  ResolveNodeClass();
  EXPECT_TRUE(node_class_.status.capacity_reservations.empty());
  api::NodeClaim launched = first;
  launched.status.provider_id = reserved->provider_id;
  Result<std::string> drift = provider_->IsDrifted(launched);
  ASSERT_THAT(drift, IsOk());
  EXPECT_EQ(*drift, api::kDriftCapacityReservation);

  // Terminating gives the reservation its room back; EC2 agrees on the next read.
  node_class_.spec.capacity_reservation_selector_terms[0].tags = {{"test", tag}};
  ResolveNodeClass();
  ASSERT_THAT(provider_->Delete(reserved->provider_id), IsOk());
  EXPECT_EQ(counts_.Available(id), 1);
  ResolveNodeClass();
  EXPECT_EQ(counts_.Available(id), 1);

  // A cancelled reservation is no longer selected, and its instances run on as on-demand ones.
  api::NodeClaim fourth = Claim(testing::UniqueName("claim"), {"m5.large"});
  fourth.spec.requirements[1].values = {"reserved", "on-demand"};
  Result<cloud::Instance> again = provider_->Create(fourth);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->capacity_type, "reserved");
  testing::CancelCapacityReservation(clients_->ec2(), id);
  ResolveNodeClass();
  EXPECT_TRUE(node_class_.status.capacity_reservations.empty());
  Result<cloud::Instance> after = provider_->Get(again->provider_id);
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->capacity_type, "on-demand");
  EXPECT_FALSE(after->labels.contains(std::string(api::kLabelCapacityReservationId)));
}

struct LaunchFamily {
  std::string name;        // the golden files' prefix
  std::string alias;       // the AMI selector term: an alias, or
  std::string image_name;  // an image name (Custom)
  std::string ami_family;
  std::string user_data;  // for the every-field case, in the family's format
};

void PrintTo(const LaunchFamily& family, std::ostream* out) { *out << family.name; }

class LaunchRequestTest : public AwsCloudProviderTest,
                          public ::testing::WithParamInterface<LaunchFamily> {
 protected:
  void UseFamily(bool every_field) {
    const LaunchFamily& family = GetParam();
    api::AmiSelectorTerm term;
    term.alias = family.alias;
    term.name = family.image_name;
    node_class_.spec.ami_selector_terms = {term};
    node_class_.spec.ami_family = family.ami_family;
    if (every_field) {
      api::BlockDeviceMapping root;
      root.device_name = "/dev/xvda";
      root.root_volume = true;
      api::BlockDevice& root_ebs = root.ebs.emplace();
      root_ebs.delete_on_termination = true;
      root_ebs.encrypted = true;
      root_ebs.iops = 4000;
      root_ebs.kms_key_id = "arn:aws:kms:us-west-2:111122223333:key/example";
      root_ebs.throughput = 250;
      root_ebs.volume_size = *Quantity::Parse("100Gi");
      root_ebs.volume_type = "gp3";
      api::BlockDeviceMapping data;
      data.device_name = "/dev/xvdb";
      api::BlockDevice& data_ebs = data.ebs.emplace();
      data_ebs.delete_on_termination = false;
      data_ebs.iops = 10000;
      data_ebs.snapshot_id = "snap-0123456789abcdef0";
      data_ebs.volume_size = *Quantity::Parse("500G");  // 465.7Gi: EC2 gets whole GiB, rounded up
      data_ebs.volume_type = "io2";
      node_class_.spec.block_device_mappings = {root, data};
      node_class_.spec.detailed_monitoring = true;
      node_class_.spec.associate_public_ip_address = true;
      node_class_.spec.metadata_options = {"enabled", "enabled", 2, "optional"};
      node_class_.spec.context = "cr-context-example";
      node_class_.spec.tags = {{"team", "platform"}, {"cost-center", "42"}};
      api::KubeletConfiguration& kubelet = node_class_.spec.kubelet.emplace();
      kubelet.max_pods = 42;
      kubelet.system_reserved = {{"cpu", "100m"}};
      kubelet.eviction_hard = {{"memory.available", "5%"}};
      // (Windows refuses it: its bootstrap cannot use the instance store.)
      if (!family.name.starts_with("windows")) node_class_.spec.instance_store_policy = "RAID0";
      node_class_.spec.user_data = family.user_data;
    }
    ResolveNodeClass();
  }

  // The CreateLaunchTemplate and CreateFleet requests sent since the transport was cleared (one
  // launch), each checked against botocore's model, rendered for a golden file: parameters
  // sorted, the fleet's candidates left out (they follow prices), the user data decoded, and the
  // names this run made up replaced by placeholders.
  std::string LaunchRequests(const std::string& node_claim) {
    const std::vector<testing::FormParameters> templates = transport_.Sent("CreateLaunchTemplate");
    const std::vector<testing::FormParameters> fleets = transport_.Sent("CreateFleet");
    EXPECT_EQ(templates.size(), 1U);
    EXPECT_EQ(fleets.size(), 1U);
    if (templates.size() != 1 || fleets.size() != 1) return "";
    ExpectValidForBotocore("CreateLaunchTemplate", templates.front());
    ExpectValidForBotocore("CreateFleet", fleets.front());

    std::map<std::string, std::string> placeholders = {
        {node_class_.status.instance_profile, "${INSTANCE_PROFILE}"},
        {node_claim, "${NODE_CLAIM}"},
        {node_class_.metadata.name, "${NODE_CLASS}"},
        {seed_["security_group"].get<std::string>(), "${SECURITY_GROUP}"}};
    for (const api::AmiStatus& ami : node_class_.status.amis) placeholders[ami.id] = "${IMAGE}";
    auto anonymize = [&](std::string text) {
      for (const auto& [made_up, placeholder] : placeholders) {
        for (size_t at = text.find(made_up); at != std::string::npos;
             at = text.find(made_up, at + placeholder.size())) {
          text.replace(at, made_up.size(), placeholder);
        }
      }
      // After the profile (whose name holds the cluster's).
      for (size_t at = text.find(cluster_name_); at != std::string::npos;
           at = text.find(cluster_name_, at)) {
        text.replace(at, cluster_name_.size(), "${CLUSTER}");
      }
      return text;
    };
    std::string user_data;
    auto render = [&](const testing::FormParameters& parameters) {
      std::vector<std::string> lines;
      for (const auto& [name, value] : parameters) {
        if (name == "LaunchTemplateName") {
          EXPECT_TRUE(value.starts_with(kLaunchTemplateNamePrefix)) << value;
          lines.push_back(name + "=${TEMPLATE}");
        } else if (name == "LaunchTemplateData.UserData") {
          Result<std::string> decoded = DecodeBase64(value);
          EXPECT_THAT(decoded, IsOk());
          if (decoded.ok()) user_data = *decoded;
          lines.push_back(name + "=${USER_DATA}");
        } else if (name.find(".Overrides.") != std::string::npos) {
          continue;
        } else if (name.ends_with(".LaunchTemplateName")) {
          lines.push_back(name + "=${TEMPLATE}");
        } else {
          lines.push_back(anonymize(name + "=" + value));
        }
      }
      std::sort(lines.begin(), lines.end());
      std::string out;
      for (const std::string& line : lines) out += line + "\n";
      return out;
    };
    std::string out = "# CreateLaunchTemplate\n" + render(templates.front());
    out += "# CreateFleet (without its candidates)\n" + render(fleets.front());
    out += "# the launch template's user data, decoded\n" + anonymize(user_data);
    return out;
  }

  void ExpectValidForBotocore(const std::string& operation,
                              const testing::FormParameters& parameters) {
    Json pairs = Json::array();
    for (const auto& [name, value] : parameters) pairs.push_back({name, value});
    const std::string file = ::testing::TempDir() + "/" + testing::UniqueName(operation) + ".json";
    std::ofstream(file) << pairs.dump();
    std::string verdict;
    try {
      verdict = support::RunCommand(
          testing::AwsTestToolsDir() + "/venv/bin/python " + KARPENTER_SOURCE_DIR +
          "/tests/aws/api/botocore_query_check.py " + operation + " < " + file + " 2>&1");
    } catch (const std::exception& error) {
      verdict = error.what();
    }
    std::remove(file.c_str());
    EXPECT_EQ(verdict, "ok\n") << operation << " does not fit botocore's EC2 model";
  }

  std::string GoldenFile(const std::string& variant) const {
    return "aws/launch/" + GetParam().name + "_" + variant + ".txt";
  }
};

TEST_P(LaunchRequestTest, TheFamilysDefaultsAreSentAsUpstreamSendsThem) {
  UseFamily(false);
  ASSERT_FALSE(HasFatalFailure());
  transport_.Clear();
  const std::string claim = testing::UniqueName("claim");
  ASSERT_THAT(provider_->Create(Claim(claim, {"m5.large"})), IsOk());
  support::ExpectGolden(GoldenFile("defaults"), LaunchRequests(claim));
}

TEST_P(LaunchRequestTest, EveryLaunchFieldReachesEc2AsUpstreamSendsIt) {
  UseFamily(true);
  ASSERT_FALSE(HasFatalFailure());
  transport_.Clear();
  const std::string claim = testing::UniqueName("claim");
  Result<cloud::Instance> created = provider_->Create(Claim(claim, {"m5.large"}));
  ASSERT_THAT(created, IsOk());
  support::ExpectGolden(GoldenFile("every_field"), LaunchRequests(claim));

  // Moto keeps the template's data: read it back.
  Result<std::vector<LaunchTemplate>> templates = ec2_->DescribeLaunchTemplates(
      {{"tag:karpenter.k8s.aws/ec2nodeclass", {node_class_.metadata.name}}});
  ASSERT_THAT(templates, IsOk());
  ASSERT_EQ(templates->size(), 1U);
  const Json kept = testing::LaunchTemplateDataInMoto(region_, templates->front().name);
  ASSERT_TRUE(kept.is_object()) << kept;
  EXPECT_EQ(kept["Monitoring"]["Enabled"], true) << kept;
  EXPECT_EQ(kept["MetadataOptions"]["HttpTokens"], "optional") << kept;
  EXPECT_EQ(kept["MetadataOptions"]["HttpPutResponseHopLimit"], 2) << kept;
  ASSERT_EQ(kept["BlockDeviceMappings"].size(), 2U) << kept;
  EXPECT_EQ(kept["BlockDeviceMappings"][0]["Ebs"]["VolumeSize"], 100) << kept;
  EXPECT_EQ(kept["BlockDeviceMappings"][1]["Ebs"]["VolumeSize"], 466) << kept;
  EXPECT_EQ(kept["BlockDeviceMappings"][1]["Ebs"]["SnapshotId"], "snap-0123456789abcdef0");
  ASSERT_EQ(kept["NetworkInterfaces"].size(), 1U) << kept;
  EXPECT_EQ(kept["NetworkInterfaces"][0]["AssociatePublicIpAddress"], true) << kept;

  // The instance has the node class's security groups, given on its network interface.
  Result<std::vector<Instance>> described =
      ec2_->DescribeInstances({InstanceIdOf(created->provider_id)});
  ASSERT_THAT(described, IsOk());
  ASSERT_EQ(described->size(), 1U);
  EXPECT_THAT(described->front().security_group_ids,
              ::testing::ElementsAre(seed_["security_group"].get<std::string>()));
}

INSTANTIATE_TEST_SUITE_P(
    Families, LaunchRequestTest,
    ::testing::Values(
        LaunchFamily{"al2023", "al2023@latest", "", "", "#!/bin/bash\necho custom step\n"},
        LaunchFamily{"al2", "al2@latest", "", "", "#!/bin/bash\necho custom step\n"},
        LaunchFamily{"bottlerocket", "bottlerocket@latest", "", "",
                     "[settings.kernel]\nlockdown = \"integrity\"\n"},
        LaunchFamily{"windows2022", "windows2022@latest", "", "", "Write-Host custom step\n"},
        LaunchFamily{"custom", "", "karpenter-custom-node-x86_64-20241101", "Custom",
                     "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\n"}),
    ReadableParamName());

}  // namespace
}  // namespace karpenter::aws
