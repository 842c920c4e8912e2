// `karpenter controller --cloud-provider aws` against the test cluster and the moto AWS server: a
// node registrar plays the booting machines (for each running instance of the cluster it creates
// the kwok Node its kubelet would register, with the labels and taints of its user data), the
// kube-scheduler binds the pods, kwok runs them. The controller reaches EC2 through the fault
// proxy, which first refuses a zone's capacity and throttles. EC2 and Kubernetes must agree: every
// instance of the cluster has a NodeClaim and every NodeClaim an instance, a leaked instance is
// garbage-collected, and the instance Karpenter does not own is never touched.
//
// The controller signs with its own key, which the proxy holds to an IAM policy as AWS would
// (scripts/testenv/iam_authz.py, a real policy evaluator): the policy `karpenter iam policy`
// prints. Every authorization the run asked for is then decided again under upstream's scoped
// policy and the migration guide's (tests/testdata/iam/): a policy that allows each of them would
// have seen this very run. The generated and upstream's must refuse nothing; the guide's grants
// nothing on SQS, and those are its only refusals (AwsMissingStatementE2E shows the controller
// going on without the queue). Neither run leaves the controller's credentials (its AWS secret key,
// its ServiceAccount token) in anything it writes: its log, Events, objects, metrics, debug state.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "api/labels.h"
#include "aws/api/aws_clients.h"
#include "aws/api/ec2_api.h"
#include "aws/api/moto_fixture.h"
#include "aws/api/sqs_api.h"
#include "aws/sdk/curl_transport.h"
#include "aws/userdata/user_data.h"
#include "common/base64.h"
#include "common/quantity.h"
#include "integration/end_to_end.h"
#include "kube/http/config.h"
#include "kube/object.h"
#include "support/matchers.h"
#include "support/node_registrar.h"
#include "support/scrape.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;

class AwsE2E : public ControllerEndToEnd {
 protected:
  AwsE2E() : ControllerEndToEnd({"aws-e2e"}) {}

  void SetUp() override {
    ControllerEndToEnd::SetUp();
    if (HasFatalFailure()) return;
    account_ = aws::testing::Account();
    seed_ = account_.seed();
    ASSERT_FALSE(account_.endpoint().empty()) << "no moto endpoint in " << KARPENTER_MOTO_DIR;
    cluster_ = seed_["cluster"].get<std::string>();
    const std::string region = seed_["region"].get<std::string>();
    Result<aws::AwsClients> clients =
        aws::AwsClients::Create(account_.TestEnvironment(), region, transport_, clock_);
    ASSERT_THAT(clients, IsOk());
    clients_.emplace(std::move(*clients));
    ec2_.emplace(clients_->ec2());
    sqs_.emplace(clients_->sqs());
    registrar_.emplace(*client_, *ec2_, cluster_);
    ASSERT_OK(account_.TerminateClusterInstances(*ec2_));  // what an earlier run left
    const kube::Object policy = aws::testing::ControllerPolicyFor("generated");
    ASSERT_TRUE(policy.is_object());
    aws::testing::SetControllerPolicy(policy);
  }

  void TearDown() override {
    if (ec2_) {
      if (HasFailure()) {
        std::cerr << "IAM decisions: " << aws::testing::IamDecisions().dump(2) << "\n";
      }
      aws::testing::SetControllerPolicy(nullptr);
      aws::testing::SetFaults(kube::Object::object());
    }
    ControllerEndToEnd::TearDown();
    if (ec2_) {
      Status terminated = account_.TerminateClusterInstances(*ec2_);
      EXPECT_THAT(terminated, IsOk());
    }
  }

  Result<std::vector<aws::Instance>> OwnedInstances() {
    return account_.ClusterInstances(*ec2_, {"pending", "running"});
  }

  // The controller talks to EC2 through the fault proxy; this test's own clients do not.
  // It runs as the chart runs it (the chart's ServiceAccount and environment), with the seeded
  // account's cluster and queue, and the AWS endpoint and credentials IRSA would give it.
  void StartAwsController() {
    Result<support::ChartIdentity> identity = support::ReadChartIdentity(KARPENTER_TESTENV_DIR);
    ASSERT_THAT(identity, IsOk());
    std::vector<std::string> env = account_.ControllerEnvironment(identity->env);
    const std::string log = ::testing::TempDir() + "aws-controller-" +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                            ".log";
    std::remove(log.c_str());
    controller_ = std::make_unique<support::ControllerProcess>(
        KARPENTER_BINARY,
        // --debug-endpoints: /debug/state is among what the credential check reads.
        std::vector<std::string>{"--kubeconfig", identity->kubeconfig, "--health-probe-port", "0",
                                 "--metrics-port", "0", "--debug-endpoints"},
        log, std::move(env));
    Status leading = support::AwaitLeadership(*controller_, std::chrono::seconds(60));
    ASSERT_THAT(leading, IsOk());
  }

  // The credentials the controller holds: its AWS secret key and its ServiceAccount's token.
  std::map<std::string, std::string> ControllerCredentials() {
    std::map<std::string, std::string> credentials;
    credentials["the AWS secret access key"] =
        Part(seed_, "controller_credentials").value("secret_access_key", "");
    Result<support::ChartIdentity> identity = support::ReadChartIdentity(KARPENTER_TESTENV_DIR);
    if (identity.ok()) {
      Result<kube::http::Config> config = kube::http::LoadKubeconfig(identity->kubeconfig);
      if (config.ok()) credentials["the ServiceAccount token"] = config->bearer_token;
    }
    return credentials;
  }

  // What the controller wrote for people and tools to read: its log, the Events, the objects it
  // manages (statuses, condition messages), its metrics and its debug state.
  std::map<std::string, std::string> WhatTheControllerWrote() {
    std::map<std::string, std::string> written;
    const std::string log = controller_->Log();
    written["its log"] = log;
    for (const kube::Resource* resource :
         {&kube::resources::kEvents, &kube::resources::kNodeClaims, &kube::resources::kNodePools,
          &kube::resources::kEC2NodeClasses, &kube::resources::kNodes}) {
      kube::Object all = kube::Object::array();
      for (kube::Object& object : List(*client_, *resource)) all.push_back(std::move(object));
      written[std::string(resource->plural)] = all.dump();
    }
    Result<std::string> metrics = support::ScrapeText(support::PortFromLog(log, "serving metrics"));
    written["/metrics"] = metrics.ok() ? *metrics : "";
    Result<kube::Object> debug =
        support::DebugState(support::PortFromLog(log, "serving health probes"));
    written["/debug/state"] = debug.ok() ? debug->dump() : "";
    return written;
  }

  // Credentials never reach what the controller writes, not even in part: each is looked for by
  // its first 16 characters (a JWT's header is the same for every token of a cluster, so the
  // token's signature is looked for too). The check is first shown to find one planted in a copy.
  void ExpectNoCredentialsInWhatTheControllerWrote() {
    std::vector<std::pair<std::string, std::string>> needles;  // what, text looked for
    for (const auto& [what, credential] : ControllerCredentials()) {
      ASSERT_GE(credential.size(), 32U) << what << " unknown to the test";
      needles.emplace_back(what, credential.substr(0, 16));
      if (const size_t dot = credential.rfind('.'); dot != std::string::npos) {
        needles.emplace_back(what + " (its signature)", credential.substr(dot + 1, 16));
      }
    }
    ASSERT_GE(needles.size(), 2U);
    const auto leaks = [&needles](const std::map<std::string, std::string>& written) {
      std::vector<std::string> found;
      for (const auto& [where, text] : written) {
        for (const auto& [what, needle] : needles) {
          if (text.find(needle) != std::string::npos) {
            found.push_back(std::string(what).append(" in ").append(where));
          }
        }
      }
      return found;
    };
    std::map<std::string, std::string> written = WhatTheControllerWrote();
    for (const auto& [where, text] : written) EXPECT_FALSE(text.empty()) << where << " not read";
    std::map<std::string, std::string> planted = written;
    planted["its log"] += "\nleaked: ..." + needles.front().second + "...\n";
    EXPECT_THAT(leaks(planted), testing::ElementsAre(needles.front().first + " in its log"));
    EXPECT_THAT(leaks(written), testing::IsEmpty());
  }

  // Waits for `done`, registering the machines that boot meanwhile.
  bool WaitRegistering(const std::function<bool()>& done, seconds timeout) {
    return support::WaitFor(
        [&] {
          Status registered = registrar_->Register();
          EXPECT_THAT(registered, IsOk());
          return done();
        },
        timeout);
  }

  // The instance ids EC2 has for the cluster and the ones the NodeClaims name.
  std::pair<std::set<std::string>, std::set<std::string>> InstancesAndClaims() {
    std::set<std::string> instances;
    if (Result<std::vector<aws::Instance>> owned = OwnedInstances(); owned.ok()) {
      for (const aws::Instance& instance : *owned) instances.insert(instance.instance_id);
    }
    std::set<std::string> claimed;
    for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
      const std::string provider_id(kube::StringAt(claim, {"status", "providerID"}));
      claimed.insert(provider_id.substr(provider_id.rfind('/') + 1));
    }
    return {instances, claimed};
  }

  support::MotoAccount account_;
  kube::Object seed_;
  std::string cluster_;
  aws::CurlTransport transport_;
  RealClock clock_;
  std::optional<aws::AwsClients> clients_;
  std::optional<aws::Ec2Api> ec2_;
  std::optional<aws::SqsApi> sqs_;
  std::optional<support::NodeRegistrar> registrar_;
};

TEST_F(AwsE2E, LaunchesRegistersInterruptsAndConsolidatesWithoutLeaks) {
  // EC2 has no capacity at all in the first zone and throttles the first requests.
  const std::string full_zone = seed_["subnets"][0]["zone"].get<std::string>();
  aws::testing::SetFaults(
      {{"insufficient_capacity", {{{"instance_type", ""}, {"zone", full_zone}}}}, {"throttle", 3}});
  StartAwsController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "aws.yaml"));
  constexpr size_t kPods = 8;
  ASSERT_TRUE(
      WaitRegistering([&] { return CountRunning(*client_, "aws-e2e") == kPods; }, seconds(240)))
      << CountRunning(*client_, "aws-e2e") << " of " << kPods << " pods Running";
  // The controller met both faults and fell back to the other zones.
  EXPECT_EQ(aws::testing::InjectedFaults("throttled"), 3);
  EXPECT_GT(aws::testing::InjectedFaults("insufficient_capacity"), 0);
  for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
    EXPECT_NE(kube::Label(claim, api::kLabelZone), full_zone) << kube::Name(claim);
  }
  aws::testing::SetFaults(kube::Object::object());

  // The EC2NodeClass resolved from the seeded account.
  Result<kube::Object> node_class = client_->Get(kube::resources::kEC2NodeClasses, "", "default");
  ASSERT_THAT(node_class, IsOk());
  EXPECT_EQ(Part(Part(*node_class, "status"), "subnets").size(), 3U);
  EXPECT_FALSE(std::string(kube::StringAt(*node_class, {"status", "instanceProfile"})).empty());
  // It carries the hash of its spec, which every NodeClaim launched from it carries too (drift).
  const std::string class_hash(
      kube::Annotation(*node_class, "karpenter.k8s.aws/ec2nodeclass-hash"));
  EXPECT_FALSE(class_hash.empty());
  for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
    EXPECT_EQ(kube::Annotation(claim, "karpenter.k8s.aws/ec2nodeclass-hash"), class_hash)
        << kube::Name(claim);
  }

  // Every pod runs on a node of an instance launched for a NodeClaim, and vice versa.
  auto [instances, claimed] = InstancesAndClaims();
  EXPECT_FALSE(instances.empty());
  EXPECT_EQ(instances, claimed);
  for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
    EXPECT_EQ(kube::Label(claim, api::kLabelCapacityType), "spot") << kube::Name(claim);
  }

  // A spot interruption warning for one instance: its NodeClaim goes, its pods move to a new one.
  {
    const std::string interrupted = *instances.begin();
    std::string interrupted_node;
    std::set<std::string> claims_before;
    for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
      claims_before.emplace(kube::Name(claim));
      if (kube::StringAt(claim, {"status", "providerID"}).ends_with("/" + interrupted)) {
        interrupted_node = kube::StringAt(claim, {"status", "nodeName"});
      }
    }
    ASSERT_FALSE(interrupted_node.empty());
    Result<std::string> queue = sqs_->GetQueueUrl(cluster_);
    ASSERT_THAT(queue, IsOk());
    Result<std::string> sent = sqs_->SendMessage(
        *queue, R"({"version":"0","detail-type":"EC2 Spot Instance Interruption Warning",)"
                R"("source":"aws.ec2","detail":{"instance-id":")" +
                    interrupted + R"(","instance-action":"terminate"}})");
    ASSERT_THAT(sent, IsOk());
    ASSERT_TRUE(WaitRegistering(
        [&] {
          auto [now, claims] = InstancesAndClaims();
          return !now.contains(interrupted) && !claims.contains(interrupted) &&
                 CountRunning(*client_, "aws-e2e") == kPods;
        },
        seconds(240)))
        << "the interrupted instance's pods did not move";
    // A replacement came up first: the NodeClaims launched for the interrupted node's pods were
    // initialized before the first of those pods was evicted.
    std::string first_eviction;
    for (const kube::Object& event : List(*client_, kube::resources::kEvents)) {
      if (kube::StringAt(event, {"involvedObject", "name"}) == interrupted_node &&
          kube::StringAt(event, {"reason"}) == "Evicted") {
        const std::string at(kube::StringAt(event, {"firstTimestamp"}));
        if (first_eviction.empty() || at < first_eviction) first_eviction = at;
      }
    }
    ASSERT_FALSE(first_eviction.empty()) << "no pod was evicted from " << interrupted_node;
    for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
      if (claims_before.contains(std::string(kube::Name(claim)))) continue;
      std::string initialized;
      for (const kube::Object& condition : Part(Part(claim, "status"), "conditions")) {
        if (kube::StringAt(condition, {"type"}) == "Initialized") {
          initialized = kube::StringAt(condition, {"lastTransitionTime"});
        }
      }
      EXPECT_FALSE(initialized.empty()) << kube::Name(claim);
      EXPECT_LE(initialized, first_eviction)
          << kube::Name(claim) << " came up after the drain began";
    }

    // The AWS side's series: the interruption, the launches through EC2, the spot offerings; the
    // scrape passes the linter.
    Result<std::string> text =
        support::ScrapeText(support::PortFromLog(controller_->Log(), "serving metrics"));
    ASSERT_THAT(text, IsOk());
    EXPECT_EQ(support::LintProblems(KARPENTER_SOURCE_DIR, *text), "");
    Result<std::vector<support::Sample>> scrape = support::ParseExposition(*text);
    ASSERT_THAT(scrape, IsOk());
    EXPECT_GE(support::Sum(*scrape, "karpenter_interruption_received_messages_total",
                           {{"message_type", "spot_interrupted"}}),
              1);
    EXPECT_EQ(support::Sum(*scrape, "karpenter_nodeclaims_disrupted_total",
                           {{"reason", "spot_interrupted"}}),
              1);
    EXPECT_GE(support::Sum(*scrape, "karpenter_interruption_deleted_messages_total"), 1);
    EXPECT_GE(
        support::Sum(
            *scrape, "karpenter_cloudprovider_duration_seconds_count",
            {{"controller", "nodeclaim.lifecycle"}, {"method", "Create"}, {"provider", "aws"}}),
        static_cast<double>(claims_before.size()));
    EXPECT_GT(support::Count(*scrape, "karpenter_cloudprovider_instance_type_offering_available",
                             {{"capacity_type", "spot"}}),
              0u);
    // Every NodeClaim launched went out in some CreateFleet batch.
    EXPECT_GE(support::Sum(*scrape, "karpenter_cloudprovider_batcher_batch_size_sum",
                           {{"batcher", "create_fleet"}}),
              static_cast<double>(claims_before.size()));
  }

  // Scale down: consolidation removes what is no longer needed, in EC2 too.
  kube::Object scaled = kube::Object::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "aws-e2e"},
    "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
      "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "registry.k8s.io/pause:3.10",
          "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}})");
  ASSERT_OK(support::Apply(*client_, scaled));
  ASSERT_TRUE(WaitRegistering(
      [&] {
        auto [now, claims] = InstancesAndClaims();
        return now.size() == 1 && now == claims && CountRunning(*client_, "aws-e2e") == 1;
      },
      seconds(300)))
      << "consolidation did not bring the cluster down to one instance";

  // An instance tagged for the cluster and a NodePool but with no NodeClaim (a launch whose
  // NodeClaim was lost) is garbage-collected.
  Result<std::string> leaked = account_.LeakInstance(*ec2_);
  ASSERT_THAT(leaked, IsOk());
  const std::string leaked_id = *leaked;
  ASSERT_TRUE(support::WaitFor(
      [&] {
        auto [now, claims] = InstancesAndClaims();
        return !now.contains(leaked_id) && now == claims;
      },
      seconds(180)))
      << "the leaked instance " << leaked_id << " was not garbage-collected";

  // The instance Karpenter does not own was never touched.
  Result<std::vector<aws::Instance>> unmanaged =
      ec2_->DescribeInstances({seed_["unmanaged_instance"].get<std::string>()});
  ASSERT_THAT(unmanaged, IsOk());
  ASSERT_EQ(unmanaged->size(), 1U);
  EXPECT_EQ(unmanaged->front().state, "running");

  // The generated policy allowed every call. What the run needed and was refused under each
  // policy, for the README's figures (scripts/iam-figures).
  const kube::Object decisions = aws::testing::IamDecisions();
  ASSERT_TRUE(decisions.is_object());
  const std::string figures = std::string(KARPENTER_TESTENV_DIR) + "/iam-decisions-";
  std::ofstream(figures + "generated.json") << decisions.dump(2) << "\n";
  EXPECT_GT(Part(decisions, "allowed").value("ec2:CreateFleet", 0), 0) << "nothing was enforced";
  EXPECT_EQ(decisions.value("denials", -1), 0) << decisions["denied"].dump(2);
  // The same authorizations under upstream's policy (none refused) and the guide's (only the
  // interruption queue's, and the queue was read, so they are there to refuse).
  for (const std::string policy : {"upstream", "seed"}) {
    const kube::Object replayed =
        aws::testing::IamReplay(aws::testing::ControllerPolicyFor(policy));
    ASSERT_TRUE(replayed.is_object()) << policy;
    std::ofstream(figures + policy + ".json") << replayed.dump(2) << "\n";
    EXPECT_GT(replayed.value("replayed", 0), 0) << policy;
    EXPECT_GT(Part(replayed, "allowed").value("ec2:CreateFleet", 0), 0) << policy;
    if (policy == "upstream") {
      EXPECT_EQ(replayed.value("denials", -1), 0) << replayed["denied"].dump(2);
      continue;
    }
    EXPECT_GT(replayed.value("denials", 0), 0) << "the queue was never read";
    for (const kube::Object& denial : Part(replayed, "denied")) {
      EXPECT_TRUE(denial.value("action", "").starts_with("sqs:")) << denial.dump();
    }
  }
  EXPECT_TRUE(controller_->Running());
  ExpectNoCredentialsInWhatTheControllerWrote();
}

// Under the generated policy without a statement, the controller says what it was refused where a
// user looks, launches nothing and keeps running: without the SSM reads that resolve AMI aliases
// (nor the interruption queue's calls, which the migration guide's policy leaves out), AMIsReady
// is False and a Warning Event names the action and the parameter; with those back but
// without the statement that lets launches use the account's images, subnets and security groups,
// the DryRun checks catch it before any launch (ValidationSucceeded False, naming ec2:CreateFleet;
// the class not Ready). Once the policy is whole again the pods run, with no further denial.
class AwsMissingStatementE2E : public AwsE2E {
 protected:
  // The generated policy without the statements `sids`.
  kube::Object Without(const kube::Object& whole, const std::set<std::string>& sids) {
    kube::Object missing = whole;
    missing["Statement"] = kube::Object::array();
    for (const kube::Object& statement : whole["Statement"]) {
      if (!sids.contains(statement.value("Sid", ""))) missing["Statement"].push_back(statement);
    }
    EXPECT_EQ(missing["Statement"].size() + sids.size(), whole["Statement"].size());
    return missing;
  }

  // The default EC2NodeClass's condition `type` (an empty object when it has none).
  kube::Object Condition(const char* type) {
    Result<kube::Object> node_class = client_->Get(kube::resources::kEC2NodeClasses, "", "default");
    if (!node_class.ok()) return kube::Object::object();
    for (const kube::Object& c : Part(Part(*node_class, "status"), "conditions")) {
      if (c.value("type", "") == type) return c;
    }
    return kube::Object::object();
  }
};

TEST_F(AwsMissingStatementE2E, MissingStatementsShowOnTheNodeClassAndFixingThePolicyRecovers) {
  const kube::Object whole = aws::testing::ControllerPolicyFor("generated");
  // Nor may it read the interruption queue, as under the migration guide's policy.
  aws::testing::SetControllerPolicy(
      Without(whole, {"AllowSSMReadActions", "AllowInterruptionQueueActions"}));
  StartAwsController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "aws.yaml"));

  const std::string parameter_arn =
      "arn:aws:ssm:" + seed_["region"].get<std::string>() + "::parameter/aws/service/eks/";
  ASSERT_TRUE(support::WaitFor(
      [&] {
        const kube::Object amis = Condition("AMIsReady");
        return amis.value("status", "") == "False" &&
               amis.value("message", "").find("ssm:GetParameter") != std::string::npos;
      },
      seconds(60)))
      << "AMIsReady: " << Condition("AMIsReady").dump();
  EXPECT_NE(Condition("AMIsReady").value("message", "").find(parameter_arn), std::string::npos)
      << Condition("AMIsReady").dump();
  // Nothing to check the launch permissions with until the AMIs resolve.
  EXPECT_EQ(Condition("ValidationSucceeded").value("reason", ""), "DependenciesNotReady");
  std::string event;
  ASSERT_TRUE(support::WaitFor(
      [&] {
        for (const kube::Object& e : List(*client_, kube::resources::kEvents)) {
          if (kube::StringAt(e, {"involvedObject", "kind"}) == "EC2NodeClass" &&
              kube::StringAt(e, {"type"}) == "Warning" &&
              kube::StringAt(e, {"message"}).find("ssm:GetParameter") != std::string::npos) {
            event = kube::StringAt(e, {"message"});
          }
        }
        return !event.empty();
      },
      seconds(30)))
      << "no Warning Event on the EC2NodeClass names ssm:GetParameter";
  EXPECT_NE(event.find(parameter_arn), std::string::npos) << event;
  const kube::Object refused = aws::testing::IamDecisions();
  std::set<std::string> refused_services;
  for (const kube::Object& denial : Part(refused, "denied")) {
    const std::string action = denial.value("action", "");
    refused_services.insert(action.substr(0, action.find(':')));
  }
  EXPECT_EQ(refused_services, (std::set<std::string>{"sqs", "ssm"})) << refused.dump(2);
  EXPECT_TRUE(controller_->Running());

  // The SSM reads back, the launch permissions not: the DryRun checks catch it.
  aws::testing::SetControllerPolicy(Without(whole, {"AllowScopedEC2InstanceAccessActions"}));
  ASSERT_TRUE(support::WaitFor(
      [&] {
        return Condition("ValidationSucceeded").value("reason", "") == "CreateFleetAuthCheckFailed";
      },
      seconds(90)))
      << Condition("ValidationSucceeded").dump();
  EXPECT_EQ(Condition("ValidationSucceeded").value("status", ""), "False");
  EXPECT_NE(Condition("ValidationSucceeded").value("message", "").find("ec2:CreateFleet"),
            std::string::npos)
      << Condition("ValidationSucceeded").dump();
  EXPECT_EQ(Condition("AMIsReady").value("status", ""), "True");
  EXPECT_EQ(Condition("Ready").value("status", ""), "False");
  // Nothing launched, nothing leaked, the controller still up.
  auto [instances, claims] = InstancesAndClaims();
  EXPECT_TRUE(instances.empty());
  EXPECT_TRUE(claims.empty());
  EXPECT_EQ(CountRunning(*client_, "aws-e2e"), 0U);
  EXPECT_TRUE(controller_->Running());

  // The policy fixed: the class is validated and the pods run, with no further denial.
  aws::testing::SetControllerPolicy(whole);
  ASSERT_TRUE(WaitRegistering([&] { return CountRunning(*client_, "aws-e2e") == 8; }, seconds(240)))
      << CountRunning(*client_, "aws-e2e") << " of 8 pods Running; ValidationSucceeded "
      << Condition("ValidationSucceeded").dump();
  EXPECT_EQ(Condition("ValidationSucceeded").value("status", ""), "True");
  auto [after, claimed] = InstancesAndClaims();
  EXPECT_EQ(after, claimed);
  EXPECT_EQ(aws::testing::IamDecisions().value("denials", -1), 0)
      << aws::testing::IamDecisions()["denied"].dump(2);
  EXPECT_TRUE(controller_->Running());
  // Refused calls are where an error message could carry a signed request.
  ExpectNoCredentialsInWhatTheControllerWrote();
}

// Drift on what the EC2NodeClass's selectors resolve to, with a budget of one node: a subnet whose
// tag no longer matches (the spec unchanged: found when the subnets are read again) drifts exactly
// the NodeClaims whose instances run in it (SubnetDrift), the guide's pinned alias bumped to
// latest drifts every node (AMIDrift), and so does a newer release published under the parameter
// that alias reads; each is replaced, one node at a time, until every instance runs what the class
// resolves to.
class AwsDriftE2E : public AwsE2E {
 protected:
  // A Deployment of `replicas` pods of 1 CPU pinned to `zone`.
  static kube::Object ZoneDeployment(const std::string& name, const std::string& zone,
                                     int replicas) {
    kube::Object deployment = kube::Object::parse(R"({
      "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"namespace": "aws-e2e"},
      "spec": {"template": {"spec": {"containers": [{"name": "app",
        "image": "registry.k8s.io/pause:3.10",
        "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}})");
    deployment["metadata"]["name"] = name;
    deployment["spec"]["replicas"] = replicas;
    deployment["spec"]["selector"] = {{"matchLabels", {{"app", name}}}};
    deployment["spec"]["template"]["metadata"] = {{"labels", {{"app", name}}}};
    deployment["spec"]["template"]["spec"]["nodeSelector"] = {{std::string(api::kLabelZone), zone}};
    return deployment;
  }

  // The Drifted reason of each NodeClaim (empty when not drifted), by name.
  std::map<std::string, std::string> DriftReasons() {
    std::map<std::string, std::string> reasons;
    for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
      std::string& reason = reasons[std::string(kube::Name(claim))];
      for (const kube::Object& condition : Part(Part(claim, "status"), "conditions")) {
        if (condition.value("type", "") == "Drifted" && condition.value("status", "") == "True") {
          reason = condition.value("reason", "");
        }
      }
    }
    return reasons;
  }

  // The drift reason of NodeClaim `name`: as a poll saw its Drifted condition, or else as the
  // Event written with the condition says ("NodeClaim drifted: AMIDrift") — a claim replaced
  // within one poll interval (slow polls under sanitizers) is gone before a poll sees it, its
  // Events are not.
  std::string DriftOf(const std::string& name, const std::map<std::string, std::string>& seen) {
    if (const auto it = seen.find(name); it != seen.end() && !it->second.empty()) return it->second;
    constexpr std::string_view kSaid = "NodeClaim drifted: ";
    for (const kube::Object& event : List(*client_, kube::resources::kEvents)) {
      const std::string message = event.value("message", "");
      if (kube::StringAt(event, {"involvedObject", "kind"}) == "NodeClaim" &&
          kube::StringAt(event, {"involvedObject", "name"}) == name &&
          event.value("reason", "") == api::kConditionDrifted && message.starts_with(kSaid)) {
        return message.substr(kSaid.size());
      }
    }
    return "";
  }

  // Waits until `done`, checking all along that at most one NodeClaim is being deleted at a time
  // (the budget) and recording every drift reason seen, by NodeClaim.
  bool WaitWithinBudget(const std::function<bool()>& done, seconds timeout,
                        std::map<std::string, std::string>& seen_drifted) {
    return WaitRegistering(
        [&] {
          size_t deleting = 0;
          for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
            if (!kube::DeletionTimestamp(claim).empty()) ++deleting;
          }
          EXPECT_LE(deleting, 1U) << "more NodeClaims disrupted at once than the budget allows";
          for (const auto& [name, reason] : DriftReasons()) {
            if (!reason.empty()) seen_drifted[name] = reason;
          }
          return done();
        },
        timeout);
  }

  // The subnet each running instance of the cluster is in, by instance id.
  std::map<std::string, std::string> SubnetOfInstances() {
    std::map<std::string, std::string> subnets;
    if (Result<std::vector<aws::Instance>> owned = OwnedInstances(); owned.ok()) {
      for (const aws::Instance& instance : *owned) {
        subnets[instance.instance_id] = instance.subnet_id;
      }
    }
    return subnets;
  }

  // The standard amd64 AMI (not the accelerated one) the default EC2NodeClass resolves to now.
  std::string ResolvedAmd64Image() {
    Result<kube::Object> node_class = client_->Get(kube::resources::kEC2NodeClasses, "", "default");
    if (!node_class.ok()) return "";
    for (const kube::Object& ami : Part(Part(*node_class, "status"), "amis")) {
      bool amd64 = false;
      bool accelerated = false;
      for (const kube::Object& requirement : Part(ami, "requirements")) {
        amd64 = amd64 || (requirement.value("key", "") == api::kLabelArch &&
                          Part(requirement, "values").dump().find("amd64") != std::string::npos);
        accelerated = accelerated || requirement.value("operator", "") == "Exists";
      }
      if (amd64 && !accelerated) return ami.value("id", "");
    }
    return "";
  }

  std::set<std::string> ClaimNames() {
    std::set<std::string> names;
    for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
      names.emplace(kube::Name(claim));
    }
    return names;
  }

  // The image each running instance of the cluster runs, by instance id.
  std::map<std::string, std::string> ImageOfInstances() {
    std::map<std::string, std::string> images;
    if (Result<std::vector<aws::Instance>> owned = OwnedInstances(); owned.ok()) {
      for (const aws::Instance& instance : *owned) images[instance.instance_id] = instance.image_id;
    }
    return images;
  }
};

TEST_F(AwsDriftE2E, ChangedSelectorsDriftExactlyTheAffectedNodesAndReplaceThemWithinTheBudget) {
  const kube::Object& subnet_a = seed_["subnets"][0];
  const kube::Object& subnet_b = seed_["subnets"][1];
  const std::string untagged = seed_["untagged_subnet"].get<std::string>();
  const auto tag_subnets = [&](const std::vector<std::string>& ids, const std::string& value) {
    ASSERT_THAT(ec2_->CreateTags(ids, {{"karpenter-e2e/drift", value}}), IsOk());
  };
  tag_subnets({subnet_a["id"].get<std::string>(), subnet_b["id"].get<std::string>(),
               seed_["subnets"][2]["id"].get<std::string>()},
              "selected");
  tag_subnets({untagged}, "not-yet");
  StartAwsController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "aws-drift.yaml"));
  const std::string zone_a = subnet_a["zone"].get<std::string>();
  const std::string zone_b = subnet_b["zone"].get<std::string>();
  ASSERT_OK(support::Apply(*client_, ZoneDeployment("in-a", zone_a, 2)));
  ASSERT_OK(support::Apply(*client_, ZoneDeployment("in-b", zone_b, 2)));
  ASSERT_TRUE(WaitRegistering([&] { return CountRunning(*client_, "aws-e2e") == 4; }, seconds(240)))
      << CountRunning(*client_, "aws-e2e") << " of 4 pods Running";
  std::set<std::string> in_a;
  std::set<std::string> in_b;
  for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
    (kube::Label(claim, api::kLabelZone) == zone_a ? in_a : in_b).emplace(kube::Name(claim));
  }
  ASSERT_FALSE(in_a.empty());
  ASSERT_FALSE(in_b.empty());
  // Every instance runs the class's (amd64) AMI of the pinned release, for the test cluster's
  // Kubernetes version.
  const std::string pinned_image = ResolvedAmd64Image();
  ASSERT_NE(pinned_image.find("ami-"), std::string::npos);
  for (const auto& [instance, image] : ImageOfInstances()) {
    EXPECT_EQ(image, pinned_image) << instance << " does not run the pinned release";
  }

  // Zone a's subnet leaves the selection and the untagged subnet of the same zone joins it, by
  // their tags alone: the EC2NodeClass does not change.
  const auto generation = [&]() -> int64_t {
    Result<kube::Object> node_class = client_->Get(kube::resources::kEC2NodeClasses, "", "default");
    return node_class.ok() ? kube::Generation(*node_class) : -1;
  };
  const int64_t spec_generation = generation();
  tag_subnets({subnet_a["id"].get<std::string>()}, "retired");
  tag_subnets({untagged}, "selected");
  std::map<std::string, std::string> drifted;
  ASSERT_TRUE(WaitWithinBudget(
      [&] {
        for (const auto& [name, reason] : DriftReasons()) {
          if (in_a.contains(name)) return false;
        }
        auto [instances, claims] = InstancesAndClaims();
        if (instances != claims || CountRunning(*client_, "aws-e2e") != 4) return false;
        for (const auto& [instance, subnet] : SubnetOfInstances()) {
          if (subnet == subnet_a["id"].get<std::string>()) return false;
        }
        return true;
      },
      seconds(300), drifted))
      << "zone a's nodes were not replaced into the new subnet";
  EXPECT_EQ(generation(), spec_generation) << "the EC2NodeClass changed";
  for (const std::string& name : in_a) {
    EXPECT_EQ(DriftOf(name, drifted), "SubnetDrift") << name;
  }
  for (const std::string& name : in_b) {
    EXPECT_EQ(DriftOf(name, drifted), "") << name << " drifted";
  }
  for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
    if (in_b.contains(std::string(kube::Name(claim)))) continue;
    EXPECT_EQ(kube::Label(claim, api::kLabelZone), zone_a) << kube::Name(claim);
  }
  for (const auto& [instance, subnet] : SubnetOfInstances()) {
    EXPECT_TRUE(subnet == untagged || subnet == subnet_b["id"].get<std::string>())
        << instance << " in " << subnet;
  }
  // The drift was said where a user looks: an Event on each drifted NodeClaim.
  for (const std::string& name : in_a) {
    bool said = false;
    for (const kube::Object& event : List(*client_, kube::resources::kEvents)) {
      said = said || (kube::StringAt(event, {"involvedObject", "name"}) == name &&
                      kube::StringAt(event, {"message"}).find("SubnetDrift") != std::string::npos);
    }
    EXPECT_TRUE(said) << "no Event says " << name << " drifted";
  }

  // The pinned alias bumped to latest (after a control-plane upgrade, in the guide's words): every
  // node runs an older AMI than the class resolves to now, and every one is replaced.
  const std::set<std::string> before = ClaimNames();
  ASSERT_THAT(
      client_->Patch(kube::resources::kEC2NodeClasses, "", "default", kube::PatchType::kMerge,
                     {{"spec", {{"amiSelectorTerms", {{{"alias", "al2023@latest"}}}}}}},
                     kube::Subresource::kNone),
      IsOk());
  std::string latest_image;
  drifted.clear();
  ASSERT_TRUE(WaitWithinBudget(
      [&] {
        latest_image = ResolvedAmd64Image();
        if (latest_image == pinned_image) return false;
        auto [instances, claims] = InstancesAndClaims();
        if (instances != claims || CountRunning(*client_, "aws-e2e") != 4) return false;
        for (const auto& [instance, image] : ImageOfInstances()) {
          if (image != latest_image) return false;
        }
        return true;
      },
      seconds(420), drifted))
      << "the nodes were not rolled to the new AMI";
  for (const std::string& name : before) {
    EXPECT_EQ(DriftOf(name, drifted), "AMIDrift") << name;
  }

  // AWS publishes a newer release under the parameter al2023@latest reads: the spec unchanged,
  // the AMI refresh finds it and every node rolls again.
  std::string parameter;
  for (const auto& [name, next] : seed_["next_releases"].items()) {
    if (seed_["ssm_parameters"].value(name, "") == latest_image) parameter = name;
  }
  ASSERT_FALSE(parameter.empty()) << "no seeded parameter names " << latest_image;
  const std::string next_image = seed_["next_releases"][parameter].get<std::string>();
  const int64_t alias_generation = generation();
  const std::set<std::string> on_latest = ClaimNames();
  aws::testing::PutParameter(clients_->ssm(), parameter, next_image);
  drifted.clear();
  const bool rolled = WaitWithinBudget(
      [&] {
        if (ResolvedAmd64Image() != next_image) return false;
        auto [instances, claims] = InstancesAndClaims();
        if (instances != claims || CountRunning(*client_, "aws-e2e") != 4) return false;
        for (const auto& [instance, image] : ImageOfInstances()) {
          if (image != next_image) return false;
        }
        return true;
      },
      seconds(420), drifted);
  // The release withdrawn for the tests that come after (moto is shared), whatever happened.
  aws::testing::PutParameter(clients_->ssm(), parameter, latest_image);
  ASSERT_TRUE(rolled) << "the nodes were not rolled to the newly published AMI";
  EXPECT_EQ(generation(), alias_generation) << "the EC2NodeClass changed";
  for (const std::string& name : on_latest) {
    EXPECT_EQ(DriftOf(name, drifted), "AMIDrift") << name;
  }
  EXPECT_TRUE(controller_->Running());
  // The subnets untagged for the tests that come after (moto is shared).
  tag_subnets({subnet_a["id"].get<std::string>(), subnet_b["id"].get<std::string>(),
               seed_["subnets"][2]["id"].get<std::string>(), untagged},
              "retired");
}

// A capacity reservation is used first, only as far as it holds, with the EC2NodeClass's launch
// fields; once it ends, its node is relabelled on-demand and, as its NodePool takes reserved or
// spot capacity only, drifts.
class AwsReservedE2E : public AwsE2E {};

TEST_F(AwsReservedE2E, AReservationIsUsedFirstAsFarAsItHoldsAndItsEndIsHandled) {
  const std::string tag = aws::testing::UniqueName("reserved-e2e");
  const std::string zone = seed_["subnets"][0]["zone"].get<std::string>();
  const std::string id =
      aws::testing::CreateCapacityReservation(clients_->ec2(), "m5.large", zone, 1, tag);
  ASSERT_TRUE(id.starts_with("cr-")) << id;
  StartAwsController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "aws-reserved.yaml"));
  ASSERT_THAT(
      client_->Patch(kube::resources::kEC2NodeClasses, "", "default", kube::PatchType::kMerge,
                     {{"spec",
                       {{"capacityReservationSelectorTerms",
                         kube::Object::array({{{"tags", {{"test", tag}}}}})}}}},
                     kube::Subresource::kNone),
      IsOk());
  // Two pods that each need a node of their own (1.5 of m5.large's 2 vCPUs).
  kube::Object deployment = kube::Object::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"namespace": "aws-e2e", "name": "reserved"},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "reserved"}},
      "template": {"metadata": {"labels": {"app": "reserved"}},
        "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
          "resources": {"requests": {"cpu": "1500m", "memory": "1Gi"}}}]}}}})");
  ASSERT_OK(support::Apply(*client_, deployment));
  ASSERT_TRUE(WaitRegistering([&] { return CountRunning(*client_, "aws-e2e") == 2; }, seconds(240)))
      << CountRunning(*client_, "aws-e2e") << " of 2 pods Running";

  Result<kube::Object> node_class = client_->Get(kube::resources::kEC2NodeClasses, "", "default");
  ASSERT_THAT(node_class, IsOk());
  const kube::Object reservations = Part(Part(*node_class, "status"), "capacityReservations");
  ASSERT_EQ(reservations.size(), 1U) << Part(*node_class, "status").dump();
  EXPECT_EQ(reservations[0].value("id", ""), id);
  std::string reserved_claim;
  std::string reserved_instance;
  size_t spot = 0;
  for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
    const std::string_view type = kube::Label(claim, api::kLabelCapacityType);
    if (type == "spot") {
      ++spot;
      EXPECT_EQ(kube::Label(claim, api::kLabelCapacityReservationId), "") << kube::Name(claim);
      continue;
    }
    EXPECT_EQ(type, "reserved") << kube::Name(claim);
    EXPECT_TRUE(reserved_claim.empty()) << "more NodeClaims in a reservation of 1";
    reserved_claim = std::string(kube::Name(claim));
    EXPECT_EQ(kube::Label(claim, api::kLabelCapacityReservationId), id);
    EXPECT_EQ(kube::Label(claim, api::kLabelInstanceType), "m5.large");
    EXPECT_EQ(kube::Label(claim, api::kLabelZone), zone);
    const std::string provider_id(kube::StringAt(claim, {"status", "providerID"}));
    reserved_instance = provider_id.substr(provider_id.rfind('/') + 1);
  }
  ASSERT_FALSE(reserved_claim.empty()) << "nothing launched into the reservation";
  EXPECT_EQ(spot, 1U);
  Result<std::vector<aws::Instance>> described = ec2_->DescribeInstances({reserved_instance});
  ASSERT_THAT(described, IsOk());
  ASSERT_EQ(described->size(), 1U);
  EXPECT_EQ(described->front().capacity_reservation_id, id);
  EXPECT_EQ(described->front().tags.at("team"), "platform");
  // The launch fields reached EC2 through the controller: what moto keeps of the template the
  // reserved instance launched from, and the kubelet's max pods in its user data.
  Result<std::vector<aws::LaunchTemplate>> templates =
      ec2_->DescribeLaunchTemplates({{"tag:karpenter.k8s.aws/ec2nodeclass", {"default"}}});
  ASSERT_THAT(templates, IsOk());
  bool found = false;
  for (const aws::LaunchTemplate& launch_template : *templates) {
    const kube::Object data = aws::testing::LaunchTemplateDataInMoto(
        seed_["region"].get<std::string>(), launch_template.name);
    if (!data.is_object() || data.value("CapacityReservationSpecification", kube::Object::object())
                                     .value("CapacityReservationTarget", kube::Object::object())
                                     .value("CapacityReservationId", "") != id) {
      continue;
    }
    found = true;
    EXPECT_EQ(data["CapacityReservationSpecification"]["CapacityReservationPreference"],
              "capacity-reservations-only");
    EXPECT_EQ(data["Monitoring"]["Enabled"], true) << data;
    EXPECT_EQ(data["MetadataOptions"]["HttpPutResponseHopLimit"], 2) << data;
    EXPECT_EQ(data["MetadataOptions"]["HttpTokens"], "required") << data;
    EXPECT_EQ(data["BlockDeviceMappings"][0]["DeviceName"], "/dev/xvda") << data;
    EXPECT_EQ(data["BlockDeviceMappings"][0]["Ebs"]["VolumeSize"], 40) << data;
    EXPECT_EQ(data["BlockDeviceMappings"][0]["Ebs"]["Iops"], 4000) << data;
    EXPECT_EQ(data["BlockDeviceMappings"][0]["Ebs"]["KmsKeyId"],
              "arn:aws:kms:us-west-2:123456789012:key/e2e-root")
        << data;
    EXPECT_EQ(data["BlockDeviceMappings"][1]["DeviceName"], "/dev/xvdb") << data;
    EXPECT_EQ(data["BlockDeviceMappings"][1]["Ebs"]["SnapshotId"], "snap-0123456789abcdef0")
        << data;
    EXPECT_EQ(data["BlockDeviceMappings"][1]["Ebs"]["DeleteOnTermination"], false) << data;
    EXPECT_EQ(data["NetworkInterfaces"][0]["AssociatePublicIpAddress"], false) << data;
  }
  EXPECT_TRUE(found) << "no launch template targets " << id;
  // The scheduler planned with the root volume the node gets.
  Result<kube::Object> launched = client_->Get(kube::resources::kNodeClaims, "", reserved_claim);
  ASSERT_THAT(launched, IsOk());
  Result<Quantity> planned =
      Quantity::Parse(kube::StringAt(*launched, {"status", "capacity", "ephemeral-storage"}));
  ASSERT_THAT(planned, IsOk()) << Part(*launched, "status").dump();
  EXPECT_EQ(*planned, *Quantity::Parse("40Gi")) << Part(*launched, "status").dump();
  Result<std::string> user_data = ec2_->DescribeInstanceUserData(reserved_instance);
  ASSERT_THAT(user_data, IsOk());
  Result<std::string> decoded = DecodeBase64(*user_data);
  ASSERT_THAT(decoded, IsOk());
  Result<aws::NodeRegistration> registration = aws::ParseNodeRegistration(*decoded);
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->max_pods, 20);
  EXPECT_NE(decoded->find("echo \"set up by the e2e user data\""), std::string::npos) << *decoded;

  // The reservation ends: the instance runs on as on-demand, which its NodePool does not allow.
  // The NodeClaim and its Node are relabelled one after the other, and the claim may drift before
  // the Node's patch lands, so the test waits for all three.
  aws::testing::CancelCapacityReservation(clients_->ec2(), id);
  const auto relabelled = [&](const kube::Object& object) {
    return kube::Label(object, api::kLabelCapacityType) == "on-demand" &&
           kube::Label(object, api::kLabelCapacityReservationId).empty();
  };
  bool claim_relabelled = false;
  bool node_relabelled = false;
  std::string drift;
  ASSERT_TRUE(WaitRegistering(
      [&] {
        Result<kube::Object> claim = client_->Get(kube::resources::kNodeClaims, "", reserved_claim);
        if (!claim.ok()) return false;
        claim_relabelled = claim_relabelled || relabelled(*claim);
        for (const kube::Object& condition : Part(Part(*claim, "status"), "conditions")) {
          if (condition.value("type", "") == "Drifted" && condition.value("status", "") == "True") {
            drift = condition.value("reason", "");
          }
        }
        for (const kube::Object& node : List(*client_, kube::resources::kNodes)) {
          if (kube::StringAt(node, {"spec", "providerID"}).ends_with(reserved_instance)) {
            node_relabelled = node_relabelled || relabelled(node);
          }
        }
        return claim_relabelled && node_relabelled && !drift.empty();
      },
      seconds(120)))
      << "the NodeClaim of the ended reservation was not relabelled on-demand (" << claim_relabelled
      << "), its Node too (" << node_relabelled << ") and drifted (" << drift << ")";

  // Drift allowed again: the drifted node is replaced (by spot: the reservation is gone) and its
  // pod runs on.
  ASSERT_THAT(
      client_->Patch(
          kube::resources::kNodePools, "", "default", kube::PatchType::kMerge,
          {{"spec", {{"disruption", {{"budgets", kube::Object::array({{{"nodes", "1"}}})}}}}}},
          kube::Subresource::kNone),
      IsOk());
  EXPECT_TRUE(WaitRegistering(
      [&] {
        if (client_->Get(kube::resources::kNodeClaims, "", reserved_claim).ok()) return false;
        for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
          if (kube::Label(claim, api::kLabelCapacityType) != "spot") return false;
        }
        return CountRunning(*client_, "aws-e2e") == 2;
      },
      seconds(120)))
      << "the drifted NodeClaim was not replaced";
  EXPECT_TRUE(controller_->Running());
}

}  // namespace
}  // namespace karpenter::integration
