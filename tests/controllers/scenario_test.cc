// Controller scenarios for provisioning, the NodeClaim lifecycle and garbage collection, on the
// virtual-clock world of scenario_world.h.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controllers/nodepool_hash.h"
#include "controllers/scenario_world.h"
#include "support/matchers.h"

namespace karpenter::scenario {
namespace {

using controllers::ConditionStatus;
using kube::Object;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::Contains;
using testing::Each;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Not;
using testing::SizeIs;

namespace resources = kube::resources;

// ---- (a) provisioning ---------------------------------------------------------------------------

TEST(ScenarioTest, PendingPodsGetANodeClaimAfterTheBatchWindowThatBecomesAReadyNode) {
  World world;
  StartDefault(world, 3);
  for (const Object& pod : world.List(resources::kPods)) {
    EXPECT_EQ(ConditionStatus(pod, "PodScheduled"), "False") << kube::Name(pod);
  }
  // The batch window closes 1s after the last pending pod showed up (at the start), not before.
  world.Step(milliseconds(999));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
  world.Step(milliseconds(1));
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  ASSERT_THAT(claims, SizeIs(1)) << "1.5 CPU of pods fit one small node";
  const std::string claim_name(kube::Name(claims[0]));
  EXPECT_THAT(claim_name, testing::StartsWith("default-"));
  for (const char* pod : {"web-1", "web-2", "web-3"}) {
    EXPECT_THAT(world.EventMessages(pod, "Nominated"),
                ElementsAre("Pod should schedule on: nodeclaim/" + claim_name));
  }

  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(10)));
  const Object pool = world.Get(resources::kNodePools, "default");
  const Object claim = world.Get(resources::kNodeClaims, claim_name);
  const std::vector<Object> nodes = world.List(resources::kNodes);
  ASSERT_THAT(nodes, SizeIs(1));
  const Object& node = nodes[0];
  const std::string node_name(kube::Name(node));

  // The NodeClaim: made from its NodePool, launched, registered and initialized.
  EXPECT_EQ(kube::Label(claim, api::kLabelNodePool), "default");
  EXPECT_TRUE(kube::HasFinalizer(claim, api::kFinalizerTermination));
  ASSERT_THAT(claim["metadata"]["ownerReferences"], SizeIs(1));
  EXPECT_EQ(claim["metadata"]["ownerReferences"][0]["kind"], "NodePool");
  EXPECT_EQ(claim["metadata"]["ownerReferences"][0]["uid"], kube::Uid(pool));
  EXPECT_FALSE(kube::Annotation(pool, controllers::kAnnotationNodePoolHash).empty());
  EXPECT_EQ(kube::Annotation(claim, controllers::kAnnotationNodePoolHash),
            kube::Annotation(pool, controllers::kAnnotationNodePoolHash));
  EXPECT_EQ(claim["spec"]["resources"]["requests"]["cpu"], "1500m");
  EXPECT_EQ(kube::Label(claim, api::kLabelInstanceType), "small");
  EXPECT_EQ(kube::Label(claim, api::kLabelZone), "us-east-1a");
  EXPECT_EQ(kube::Label(claim, api::kLabelCapacityType), "on-demand");
  for (const char* type : {"Launched", "Registered", "Initialized", "Ready"}) {
    EXPECT_EQ(ConditionStatus(claim, type), "True") << type;
  }
  EXPECT_EQ(claim["status"]["nodeName"], node_name);
  EXPECT_EQ(claim["status"]["capacity"]["cpu"], "2");

  // The Node: the instance's, registered to the NodeClaim.
  const std::vector<cloud::Instance> instances = *world.cloud().List();
  ASSERT_THAT(instances, SizeIs(1));
  EXPECT_EQ(ProviderId(node), instances[0].provider_id);
  EXPECT_EQ(ClaimProviderId(claim), instances[0].provider_id);
  EXPECT_EQ(node_name, instances[0].node_name);
  for (const auto& [key, value] : claim["metadata"]["labels"].items()) {
    EXPECT_EQ(kube::Label(node, key), value.get<std::string>()) << key;
  }
  EXPECT_EQ(kube::Label(node, api::kLabelRegistered), "true");
  EXPECT_EQ(kube::Label(node, api::kLabelInitialized), "true");
  EXPECT_THAT(TaintKeys(node), Not(Contains(std::string(api::kTaintUnregistered))));
  EXPECT_TRUE(kube::HasFinalizer(node, api::kFinalizerTermination));
  ASSERT_THAT(node["metadata"]["ownerReferences"], SizeIs(1));
  EXPECT_EQ(node["metadata"]["ownerReferences"][0]["kind"], "NodeClaim");
  EXPECT_EQ(node["metadata"]["ownerReferences"][0]["name"], claim_name);
  EXPECT_EQ(node["metadata"]["ownerReferences"][0]["uid"], kube::Uid(claim));

  // Every pod runs there.
  for (const Object& pod : world.List(resources::kPods)) {
    EXPECT_EQ(pod["spec"]["nodeName"], node_name) << kube::Name(pod);
  }

  // The NodePool counts the node and its resources.
  world.RunFor(seconds(1));
  const Object counted = world.Get(resources::kNodePools, "default");
  EXPECT_EQ(counted["status"]["nodes"], 1);
  EXPECT_EQ(counted["status"]["resources"],
            Object::parse(R"({"cpu": "2", "memory": "8Gi", "pods": "20", "nodes": "1"})"));
  for (const char* type : {"ValidationSucceeded", "NodeClassReady", "Ready"}) {
    EXPECT_EQ(ConditionStatus(counted, type), "True") << type;
  }

  // Nothing more is launched for pods that run.
  world.RunFor(seconds(60), seconds(1));
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(1));
  EXPECT_THAT(*world.cloud().List(), SizeIs(1));
}

TEST(ScenarioTest, PodsThatNeedANodeEachGetANodeClaimEach) {
  World world;
  StartDefault(world, 5, "1500m", kSmallOnly);
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(20)));
  const std::vector<Object> nodes = world.List(resources::kNodes);
  EXPECT_THAT(nodes, SizeIs(5));
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(5));
  std::set<std::string> used;
  for (const Object& pod : world.List(resources::kPods)) {
    used.insert(pod["spec"].value("nodeName", ""));
  }
  EXPECT_EQ(used.size(), 5u) << "one pod on each node";
  for (const Object& node : nodes) {
    EXPECT_EQ(kube::Label(node, api::kLabelInstanceType), "small") << kube::Name(node);
    EXPECT_EQ(kube::Label(node, api::kLabelInitialized), "true") << kube::Name(node);
  }
}

// ---- (b) limits ---------------------------------------------------------------------------------

TEST(ScenarioTest, NodePoolLimitsStopProvisioningAndSayWhy) {
  World world;
  // Each 1500m pod needs a small node of its own (2 CPU); the limit allows two.
  StartDefault(world, 3, "1500m", kSmallOnly, Object{{"cpu", "4"}});
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().size() == 1; }, seconds(20)));
  world.RunFor(seconds(30), milliseconds(500));

  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(2));
  EXPECT_THAT(*world.cloud().List(), SizeIs(2));
  const std::vector<Object> pending = world.PendingPods();
  ASSERT_THAT(pending, SizeIs(1));
  const std::vector<std::string> failed =
      world.EventMessages(kube::Name(pending[0]), "FailedScheduling");
  ASSERT_THAT(failed, Not(IsEmpty()));
  EXPECT_THAT(failed, Each(HasSubstr("limits")));
  EXPECT_EQ(world.Get(resources::kNodePools, "default")["status"]["resources"]["cpu"], "4");
}

// ---- (c) a missing EC2NodeClass -----------------------------------------------------------------

TEST(ScenarioTest, NodePoolWithoutItsNodeClassIsNotReadyAndProvisionsNothing) {
  World world;
  world.Create(resources::kNodePools, NodePool("orphan", "missing"));
  world.Create(resources::kPods, Pod("web-1", "500m"));
  world.Start();
  world.RunFor(seconds(30), milliseconds(500));

  const Object pool = world.Get(resources::kNodePools, "orphan");
  EXPECT_EQ(ConditionStatus(pool, "NodeClassReady"), "False");
  EXPECT_FALSE(pool["status"].contains("nodeClassObservedGeneration"));
  EXPECT_EQ(ConditionStatus(pool, "Ready"), "False");
  EXPECT_EQ(ConditionStatus(pool, "ValidationSucceeded"), "True");
  EXPECT_THAT(world.EventMessages("orphan", "NotReady"),
              ElementsAre(HasSubstr("EC2NodeClass \"missing\" not found")));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
  EXPECT_THAT(*world.cloud().List(), IsEmpty());
  EXPECT_THAT(world.EventMessages("web-1", "FailedScheduling"), Not(IsEmpty()));

  // Once the EC2NodeClass exists, the NodePool is Ready and provisions.
  world.Create(resources::kEC2NodeClasses, NodeClass("missing"));
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(30)));
  const Object ready = world.Get(resources::kNodePools, "orphan");
  EXPECT_EQ(ConditionStatus(ready, "NodeClassReady"), "True");
  EXPECT_EQ(ConditionStatus(ready, "Ready"), "True");
  EXPECT_EQ(ready["status"]["nodeClassObservedGeneration"], 1);
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(1));

  // A change of the node class is seen in the NodePool's status.
  Object node_class = world.Get(resources::kEC2NodeClasses, "missing");
  node_class["spec"]["tags"] = {{"team", "web"}};
  ASSERT_THAT(
      world.client().Update(resources::kEC2NodeClasses, node_class, kube::Subresource::kNone),
      IsOk());
  world.RunFor(seconds(5), milliseconds(500));
  EXPECT_EQ(world.Get(resources::kNodePools, "orphan")["status"]["nodeClassObservedGeneration"], 2);
}

// ---- (d) deletion -------------------------------------------------------------------------------

TEST(ScenarioTest, DeletingANodeClaimDeletesItsNodeAndInstance) {
  World world;
  StartDefault(world, 1);
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(10)));
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  ASSERT_THAT(claims, SizeIs(1));
  const std::string claim_name(kube::Name(claims[0]));
  ASSERT_THAT(world.List(resources::kNodes), SizeIs(1));

  ASSERT_THAT(world.client().Delete(resources::kNodeClaims, "", claim_name, {}), IsOk());
  // The finalizer holds it until its Node and instance are gone.
  EXPECT_FALSE(kube::DeletionTimestamp(world.Get(resources::kNodeClaims, claim_name)).empty());
  world.RunFor(seconds(2));
  EXPECT_TRUE(world.Get(resources::kNodeClaims, claim_name).is_null());
  EXPECT_THAT(world.List(resources::kNodes), IsEmpty());
  EXPECT_THAT(*world.cloud().List(), IsEmpty());
  world.RunFor(seconds(2));
  const Object pool = world.Get(resources::kNodePools, "default");
  EXPECT_EQ(pool["status"]["nodes"], 0);
}

// ---- (e) garbage collection ---------------------------------------------------------------------

// An instance launched for a NodeClaim the cluster never recorded (a crash between the launch and
// the write).
cloud::Instance LeakInstance(World& world) {
  api::NodeClaim ghost;
  ghost.metadata.name = "default-ghost";
  ghost.metadata.labels[std::string(api::kLabelNodePool)] = "default";
  ghost.spec.resource_requests.Set(api::kResourceCpu, Quantity::FromMilli(500));
  Result<cloud::Instance> instance = world.cloud().Create(ghost);
  EXPECT_THAT(instance, IsOk());
  return instance.ok() ? *instance : cloud::Instance();
}

// LeakInstance, once its machine has booted and registered its Node.
cloud::Instance LeakBootedInstance(World& world) {
  const cloud::Instance leaked = LeakInstance(world);
  world.Step(milliseconds(100));
  EXPECT_FALSE(world.Get(resources::kNodes, leaked.node_name).is_null());
  return leaked;
}

TEST(ScenarioTest, InstanceWithoutNodeClaimIsTerminatedAfterTheGracePeriod) {
  World world;
  StartDefault(world, 0);
  world.RunUntilTime(kStart + seconds(20));
  const cloud::Instance leaked = LeakInstance(world);
  // Garbage collection runs every 30s; at 30s the instance is 10s old, within its 30s of grace.
  world.RunUntilTime(kStart + seconds(59) + milliseconds(900));
  EXPECT_THAT(world.cloud().Get(leaked.provider_id), IsOk());
  world.RunUntilTime(kStart + seconds(61));
  const Result<cloud::Instance> gone = world.cloud().Get(leaked.provider_id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().reason, cloud::kReasonNotFound);
}

// The Node a leaked machine registered goes with it (else a restarted booter would adopt the
// terminated instance again from the Node's annotation).
TEST(ScenarioTest, NodeOfAGarbageCollectedInstanceIsDeleted) {
  World world;
  StartDefault(world, 0);
  const cloud::Instance leaked = LeakBootedInstance(world);
  world.RunFor(seconds(61));
  ASSERT_FALSE(world.cloud().Get(leaked.provider_id).ok());
  EXPECT_TRUE(world.Get(resources::kNodes, leaked.node_name).is_null());
}

// A Node of ours whose machine was terminated and that no NodeClaim claims (its NodeClaim was
// finalized before the Node reached the cache): nothing else would ever delete it.
TEST(ScenarioTest, NodeWhoseInstanceIsGoneAndThatNoNodeClaimClaimsIsDeleted) {
  World world;
  StartDefault(world, 0);
  const cloud::Instance leaked = LeakBootedInstance(world);
  ASSERT_THAT(world.cloud().Delete(leaked.provider_id), IsOk());
  world.RunFor(seconds(61));
  EXPECT_TRUE(world.Get(resources::kNodes, leaked.node_name).is_null());
}

TEST(ScenarioTest, NodeClaimWhoseInstanceVanishedIsDeleted) {
  World world;
  StartDefault(world, 1);
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(10)));
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  ASSERT_THAT(claims, SizeIs(1));
  const std::string claim_name(kube::Name(claims[0]));
  ASSERT_THAT(world.cloud().Delete(ClaimProviderId(claims[0])), IsOk());  // terminated outside

  // The next garbage collection, 30s after the start, finds it.
  world.RunUntilTime(kStart + seconds(29) + milliseconds(900));
  EXPECT_FALSE(world.Get(resources::kNodeClaims, claim_name).is_null());
  world.RunUntilTime(kStart + seconds(32));
  EXPECT_TRUE(world.Get(resources::kNodeClaims, claim_name).is_null());
  EXPECT_THAT(world.List(resources::kNodes), IsEmpty());
}

// One on-demand node of a NodePool that allows reserved capacity too (so relabelling it is no
// drift); its NodeClaim, or null.
Object StartOneReservableNode(World& world) {
  StartDefault(world, 1, "500m",
               Object::array({Requirement(api::kLabelCapacityType, {"on-demand", "reserved"})}));
  EXPECT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(10)));
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  EXPECT_THAT(claims, SizeIs(1));
  return claims.size() == 1 ? claims[0] : Object();
}

// A NodeClaim labelled reserved whose instance the cloud reports otherwise (its capacity
// reservation ended) is relabelled, with its Node, by the next garbage collection.
TEST(ScenarioTest, ANodeClaimWhoseReservationEndedIsRelabelledWithTheCloudsCapacityType) {
  World world;
  const std::vector<Object> claims = {StartOneReservableNode(world)};
  ASSERT_FALSE(claims[0].is_null());
  const std::string claim_name(kube::Name(claims[0]));
  const std::string capacity_type(kube::Label(claims[0], api::kLabelCapacityType));
  ASSERT_EQ(capacity_type, "on-demand");
  const std::string node_name(kube::StringAt(claims[0], {"status", "nodeName"}));
  ASSERT_FALSE(node_name.empty());
  // As a reserved launch would have labelled them.
  const Object reserved = {
      {"metadata",
       {{"labels",
         {{std::string(api::kLabelCapacityType), "reserved"},
          {std::string(api::kLabelCapacityReservationId), "cr-0123456789abcdef0"},
          {std::string(api::kLabelCapacityReservationType), "default"}}}}}};
  for (const auto& [resource, name] :
       {std::pair(resources::kNodeClaims, claim_name), std::pair(resources::kNodes, node_name)}) {
    ASSERT_THAT(world.client().Patch(resource, "", name, kube::PatchType::kMerge, reserved,
                                     kube::Subresource::kNone),
                IsOk());
  }
  world.RunUntilTime(kStart + seconds(32));
  for (const auto& [resource, name] :
       {std::pair(resources::kNodeClaims, claim_name), std::pair(resources::kNodes, node_name)}) {
    const Object object = world.Get(resource, name);
    ASSERT_FALSE(object.is_null()) << name;
    EXPECT_EQ(kube::Label(object, api::kLabelCapacityType), capacity_type) << name;
    EXPECT_EQ(kube::Label(object, api::kLabelCapacityReservationId), "") << name;
    EXPECT_EQ(kube::Label(object, api::kLabelCapacityReservationType), "") << name;
  }
}

// A Node still labelled reserved after its NodeClaim was relabelled (its own patch failed) is
// relabelled by a later garbage collection: the Node is checked on its own, not only with its
// claim.
TEST(ScenarioTest, ANodeLeftReservedAfterItsClaimWasRelabelledIsRelabelledLater) {
  World world;
  const std::vector<Object> claims = {StartOneReservableNode(world)};
  ASSERT_FALSE(claims[0].is_null());
  const std::string node_name(kube::StringAt(claims[0], {"status", "nodeName"}));
  ASSERT_FALSE(node_name.empty());
  ASSERT_THAT(
      world.client().Patch(resources::kNodes, "", node_name, kube::PatchType::kMerge,
                           {{"metadata",
                             {{"labels",
                               {{std::string(api::kLabelCapacityType), "reserved"},
                                {std::string(api::kLabelCapacityReservationId), "cr-0a"}}}}}},
                           kube::Subresource::kNone),
      IsOk());
  world.RunUntilTime(kStart + seconds(32));
  const Object node = world.Get(resources::kNodes, node_name);
  ASSERT_FALSE(node.is_null());
  EXPECT_EQ(kube::Label(node, api::kLabelCapacityType), "on-demand");
  EXPECT_EQ(kube::Label(node, api::kLabelCapacityReservationId), "");
  EXPECT_EQ(kube::Label(world.Get(resources::kNodeClaims, std::string(kube::Name(claims[0]))),
                        api::kLabelCapacityType),
            "on-demand");
}

// ---- (f) insufficient capacity ------------------------------------------------------------------

TEST(ScenarioTest, InsufficientCapacityDeletesTheNodeClaimWithAnEvent) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  // The only offering this NodePool allows: small, us-east-1a, on-demand.
  world.Create(resources::kNodePools,
               NodePool("default", "default",
                        Object::array({Requirement(api::kLabelCapacityType, {"on-demand"}),
                                       Requirement(api::kLabelInstanceType, {"small"}),
                                       Requirement(api::kLabelZone, {"us-east-1a"})})));
  world.Create(resources::kPods, Pod("web-1", "500m"));
  world.Start();
  ASSERT_TRUE(world.RunUntil([&] { return !world.List(resources::kNodeClaims).empty(); }));
  const std::string claim_name(kube::Name(world.List(resources::kNodeClaims)[0]));
  // The offering runs out between planning and launching.
  world.cloud().SetOfferingAvailable("small", "us-east-1a", "on-demand", false);
  world.RunFor(seconds(30), milliseconds(500));

  EXPECT_TRUE(world.Get(resources::kNodeClaims, claim_name).is_null());
  EXPECT_THAT(world.EventMessages(claim_name, "InsufficientCapacityError"),
              ElementsAre(HasSubstr("no available offering")));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty()) << "nothing else can launch";
  EXPECT_THAT(*world.cloud().List(), IsEmpty());
  EXPECT_THAT(world.EventMessages("web-1", "FailedScheduling"), Not(IsEmpty()));

  // When the offering is back, the pending pod gets its node.
  world.cloud().SetOfferingAvailable("small", "us-east-1a", "on-demand", true);
  EXPECT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(30)));
}

// ---- (g) invalid objects ------------------------------------------------------------------------

// A NodeClaim of the NodeClass "default" with `requirements`, as a user might create one.
Object NodeClaim(std::string_view name, const Object& requirements) {
  return {{"apiVersion", "karpenter.sh/v1"},
          {"kind", "NodeClaim"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"requirements", requirements},
            {"nodeClassRef",
             {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}};
}

TEST(ScenarioTest, InvalidNodeClaimGetsAnEventAndNothingElseStops) {
  World world;
  // The memory store does not validate CRD schemas, so it takes what a real API server would not.
  world.Create(resources::kNodeClaims,
               NodeClaim("broken", Object::array({Requirement("team", {"a"}, "Sometimes")})));
  StartDefault(world, 1);
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(20)));

  EXPECT_THAT(world.EventMessages("broken", "InvalidNodeClaim"),
              ElementsAre(HasSubstr("Sometimes")));
  const Object broken = world.Get(resources::kNodeClaims, "broken");
  EXPECT_EQ(ClaimProviderId(broken), "");
  EXPECT_THAT(*world.cloud().List(), SizeIs(1)) << "only the valid NodeClaim launched";
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(2));
}

TEST(ScenarioTest, NodeClaimWithAMalformedStatusGetsAnEventAndNothingElseStops) {
  World world;
  world.Create(resources::kNodeClaims, NodeClaim("typed", Object::array()));
  // Nor does it check what /status takes.
  Object claim = world.Get(resources::kNodeClaims, "typed");
  claim["status"] = {{"providerID", 5}, {"conditions", Object::array({7})}};
  const Result<Object> updated =
      world.client().Update(resources::kNodeClaims, claim, kube::Subresource::kStatus);
  ASSERT_THAT(updated, IsOk());
  StartDefault(world, 1);
  // Past the first garbage collection, which reads every NodeClaim's status.
  world.RunUntilTime(kStart + seconds(40));

  EXPECT_TRUE(Settled(world));
  EXPECT_THAT(world.EventMessages("typed", "InvalidNodeClaim"), SizeIs(1));
  EXPECT_FALSE(world.Get(resources::kNodeClaims, "typed").is_null());
  EXPECT_THAT(*world.cloud().List(), SizeIs(1));
}

// A NodeClaim whose provider ID someone else wrote — another cloud's machine, or one of this
// cloud's scheme without the Launched condition a launch records — names a Node that runs a pod
// and that Karpenter does not own. It gets an Event and is left alone: the Node is not adopted,
// and deleting the NodeClaim releases it without draining the Node or terminating anything.
TEST(ScenarioTest, ANodeClaimWithAForeignProviderIdIsReportedAndLeftAlone) {
  for (const std::string provider_id :
       {"gce://project/us-central1-a/vm-1", "sim:///us-east-1a/i-000000000000000ff"}) {
    SCOPED_TRACE(provider_id);
    World world;
    world.Create(resources::kNodes,
                 {{"apiVersion", "v1"},
                  {"kind", "Node"},
                  {"metadata", {{"name", "theirs"}, {"labels", {{"team", "other"}}}}},
                  {"spec", {{"providerID", provider_id}}},
                  {"status",
                   {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}},
                    {"allocatable", {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}}}}}});
    Object pod = Pod("theirs-1", "500m");
    pod["spec"]["nodeName"] = "theirs";
    world.Create(resources::kPods, pod);
    Object claim = NodeClaim("foreign", Object::array());
    claim["metadata"]["finalizers"] = {api::kFinalizerTermination};
    world.Create(resources::kNodeClaims, claim);
    ASSERT_THAT(world.client().Patch(resources::kNodeClaims, "", "foreign", kube::PatchType::kMerge,
                                     {{"status", {{"providerID", provider_id}}}},
                                     kube::Subresource::kStatus),
                IsOk());
    StartDefault(world, 0);
    // Past the first garbage collection, which looks up every launched NodeClaim's instance.
    world.RunUntilTime(kStart + seconds(40));

    EXPECT_THAT(world.EventMessages("foreign", "ForeignProviderID"),
                Contains(HasSubstr(provider_id)));
    EXPECT_FALSE(world.Get(resources::kNodeClaims, "foreign").is_null());
    const Object node = world.Get(resources::kNodes, "theirs");
    ASSERT_FALSE(node.is_null());
    EXPECT_EQ(kube::Label(node, api::kLabelRegistered), "");
    EXPECT_FALSE(node["metadata"].contains("ownerReferences"));
    EXPECT_FALSE(kube::HasFinalizer(node, api::kFinalizerTermination));

    ASSERT_THAT(world.client().Delete(resources::kNodeClaims, "", "foreign", {}), IsOk());
    world.RunFor(seconds(20));
    EXPECT_TRUE(world.Get(resources::kNodeClaims, "foreign").is_null());
    const Object after = world.Get(resources::kNodes, "theirs");
    ASSERT_FALSE(after.is_null());
    EXPECT_THAT(TaintKeys(after), Not(Contains(api::kTaintDisrupted)));
    EXPECT_FALSE(world.Get(resources::kPods, "theirs-1", "default").is_null());
    EXPECT_THAT(*world.cloud().List(), IsEmpty());
  }
}

TEST(ScenarioTest, InvalidNodePoolIsNotReadyAndNotUsed) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools,
               NodePool("bad", "default",
                        Object::array({Requirement(api::kLabelCapacityType, {"on-demand"}),
                                       Requirement("team", {"a"}, "Sometimes")})));
  world.Create(resources::kPods, Pod("web-1", "500m"));
  world.Start();
  world.RunFor(seconds(15), milliseconds(500));

  const Object pool = world.Get(resources::kNodePools, "bad");
  EXPECT_EQ(ConditionStatus(pool, "ValidationSucceeded"), "False");
  EXPECT_EQ(ConditionStatus(pool, "Ready"), "False");
  EXPECT_THAT(world.EventMessages("bad", "NotReady"), ElementsAre(HasSubstr("Sometimes")));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
}

// ---- (h) determinism ----------------------------------------------------------------------------

// What a provisioning run leaves behind.
struct Outcome {
  std::vector<std::string> node_claims;
  std::vector<std::string> nodes;
  std::string stored;  // the NodeClaims, Nodes and pods as stored, byte for byte
};

Outcome Provision(uint64_t seed) {
  World world(seed);
  StartDefault(world, 5, "1500m", kSmallOnly);
  EXPECT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(20)));
  world.RunFor(seconds(5));
  Outcome outcome;
  outcome.node_claims = Names(world.List(resources::kNodeClaims));
  outcome.nodes = Names(world.List(resources::kNodes));
  for (const auto* resource : {&resources::kNodeClaims, &resources::kNodes, &resources::kPods}) {
    for (const Object& object : world.List(*resource)) outcome.stored += object.dump() + "\n";
  }
  return outcome;
}

TEST(ScenarioTest, SameSeedSameRun) {
  const Outcome first = Provision(7);
  const Outcome second = Provision(7);
  EXPECT_THAT(first.node_claims, SizeIs(5));
  EXPECT_EQ(first.node_claims, second.node_claims);
  EXPECT_EQ(first.nodes, second.nodes);
  EXPECT_EQ(first.stored, second.stored);
}

TEST(ScenarioTest, AnotherSeedNamesNodeClaimsDifferently) {
  const Outcome seven = Provision(7);
  const Outcome eight = Provision(8);
  EXPECT_NE(seven.node_claims, eight.node_claims);
  // Node names come from the simulated cloud's launch counter, not from the seed.
  EXPECT_EQ(seven.nodes, eight.nodes);
}

}  // namespace
}  // namespace karpenter::scenario
