// `karpenter migrate` end to end, as a user runs it: the binary, with helm on the PATH, holding a
// key that the IAM evaluator in front of moto holds to `karpenter iam migrate-policy`, against an
// EKS cluster of its own in moto and the test cluster. The cluster is as one that runs Cluster
// Autoscaler has it: three kwok nodes of managed node group `general`, which a stand-in for EKS's
// node-group controller keeps equal to the node group's desired size in moto (draining a node
// through the Eviction API, as EKS does, before it goes), Cluster Autoscaler, a coredns-like
// add-on and a web Deployment with PodDisruptionBudgets, aws-auth. Karpenter itself runs as the
// chart runs it (the simulated cloud: kwok plays its machines).
//
// plan → apply --all → verify passes, with no PodDisruptionBudget ever short of healthy pods (the
// audit is shown to count one that is) and no pod pending longer than the batch timeout; then
// rollback --all leaves AWS and the cluster as they were.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/api/eks_api.h"
#include "aws/api/moto_fixture.h"
#include "aws/iam/cloudformation.h"
#include "aws/sdk/curl_transport.h"
#include "aws/sdk/json_protocol.h"
#include "cli/command_line.h"
#include "common/run_program.h"
#include "integration/end_to_end.h"
#include "migrate/migration_cluster.h"

namespace karpenter::integration {
namespace {

using ::testing::HasSubstr;

constexpr char kGroup[] = "general";
constexpr auto kSettleTimeout = std::chrono::minutes(3);

// Plays EKS's node-group controller for `general` and audits the cluster meanwhile, on a thread
// of its own (its own clients).
class NodeGroupStandIn {
 public:
  NodeGroupStandIn(const aws::Environment& environment, std::string region, std::string cluster)
      : environment_(environment), region_(std::move(region)), cluster_(std::move(cluster)) {}
  ~NodeGroupStandIn() { Stop(); }

  void Start() {
    thread_ = std::thread([this] { Loop(); });
  }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  // Ticks that saw a PodDisruptionBudget, once met, with fewer healthy pods than it needs.
  int violations() const { return violations_; }
  // Which budgets were short, and by how much, at each violation.
  std::string shortfalls() {
    std::lock_guard lock(mutex_);
    return fmt::format("{}", fmt::join(shortfalls_, "; "));
  }
  // The longest any pod has been pending so far.
  std::chrono::milliseconds longest_pending() {
    std::lock_guard lock(mutex_);
    return longest_pending_;
  }
  std::vector<std::string> errors() {
    std::lock_guard lock(mutex_);
    return errors_;
  }

 private:
  void Loop() {
    std::unique_ptr<kube::Client> client = TestClusterClient();
    aws::CurlTransport transport;
    RealClock clock;
    Result<aws::AwsClients> clients =
        aws::AwsClients::Create(environment_, region_, transport, clock);
    if (client == nullptr || !clients.ok()) {
      Note("the stand-in has no clients");
      return;
    }
    aws::EksApi eks(clients->eks());
    while (!stop_) {
      Result<aws::EksNodegroup> group = eks.DescribeNodegroup(cluster_, kGroup);
      if (group.ok()) {
        Reconcile(*client, group->desired_size);
      } else {
        Note("DescribeNodegroup: " + group.error().message);
      }
      Audit(*client);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }

  // Nodes go down (the last first: cordoned, drained through evictions, deleted) or up to the
  // desired size.
  void Reconcile(kube::Client& client, int64_t desired) {
    std::vector<std::string> names;
    for (const kube::Object& node : List(client, kube::resources::kNodes)) {
      if (Part(node, "metadata")
              .value("labels", kube::Object::object())
              .value(std::string(migrate::kLabelNodeGroup), "") == kGroup) {
        names.push_back(Part(node, "metadata").value("name", ""));
      }
    }
    std::sort(names.begin(), names.end());
    if (static_cast<int64_t>(names.size()) > desired) {
      Drain(client, names.back());
    } else if (static_cast<int64_t>(names.size()) < desired) {
      for (int i = 0;; ++i) {
        const std::string name = NodeName(i);
        if (std::find(names.begin(), names.end(), name) == names.end()) {
          Status added = support::Apply(client, GroupNode(name));
          if (!added.ok()) Note("adding " + name + ": " + added.error().message);
          break;
        }
      }
    }
  }

  void Drain(kube::Client& client, const std::string& node) {
    (void)client.Patch(kube::resources::kNodes, "", node, kube::PatchType::kMerge,
                       {{"spec", {{"unschedulable", true}}}}, kube::Subresource::kNone);
    int left = 0;
    for (const kube::Object& pod : List(client, kube::resources::kPods)) {
      if (integration::NodeName(pod) != node) continue;
      ++left;
      const kube::Object& metadata = Part(pod, "metadata");
      if (metadata.contains("deletionTimestamp")) continue;
      // 429: a budget does not allow it now; tried again on the next tick.
      (void)client.Evict(metadata.value("namespace", ""), metadata.value("name", ""), {});
    }
    if (left == 0) (void)client.Delete(kube::resources::kNodes, "", node, {});
  }

  void Audit(kube::Client& client) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    // A budget counts once it has been met: one created with its pods (the chart's, at step 5)
    // is short until they first turn Ready, and that is a start, not a disruption.
    for (const kube::Object& budget : List(client, kube::resources::kPodDisruptionBudgets)) {
      const kube::Object& metadata = Part(budget, "metadata");
      const kube::Object& status = Part(budget, "status");
      const std::string key = metadata.value("namespace", "") + "/" + metadata.value("name", "");
      if (status.value("currentHealthy", 0) >= status.value("desiredHealthy", 0)) {
        met_.insert(key);
      } else if (met_.contains(key)) {
        ++violations_;
        shortfalls_.push_back(fmt::format("{}: {} healthy of {} needed", key,
                                          status.value("currentHealthy", 0),
                                          status.value("desiredHealthy", 0)));
      }
    }
    std::map<std::string, std::chrono::steady_clock::time_point> still;
    for (const kube::Object& pod : List(client, kube::resources::kPods)) {
      if (Phase(pod) != "Pending") continue;
      const std::string uid = Part(pod, "metadata").value("uid", "");
      const auto since = pending_since_.find(uid);
      still[uid] = since != pending_since_.end() ? since->second : now;
      longest_pending_ =
          std::max(longest_pending_,
                   std::chrono::duration_cast<std::chrono::milliseconds>(now - still[uid]));
    }
    pending_since_ = std::move(still);
  }

  void Note(const std::string& error) {
    std::lock_guard lock(mutex_);
    errors_.push_back(error);
  }

 public:
  static std::string NodeName(int i) {
    return "migrate-e2e-" + std::string(kGroup) + "-" + std::to_string(i);
  }

  // A node of the node group, as its kubelet registers it (kwok runs its pods).
  static kube::Object GroupNode(const std::string& name) {
    const kube::Object resources = {{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "110"}};
    return {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata",
             {{"name", name},
              {"labels",
               {{std::string(migrate::kLabelNodeGroup), kGroup},
                {"kubernetes.io/hostname", name},
                {"kubernetes.io/arch", "amd64"},
                {"kubernetes.io/os", "linux"},
                {"node.kubernetes.io/instance-type", "m5.large"},
                {"topology.kubernetes.io/zone", "us-west-2a"}}},
              {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
            {"status", {{"capacity", resources}, {"allocatable", resources}}}};
  }

 private:
  const aws::Environment environment_;
  const std::string region_;
  const std::string cluster_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> violations_{0};
  std::mutex mutex_;
  std::map<std::string, std::chrono::steady_clock::time_point> pending_since_;
  std::set<std::string> met_;            // budgets (namespace/name) seen with enough healthy pods
  std::vector<std::string> shortfalls_;  // each violation: the budget and its counts
  std::chrono::milliseconds longest_pending_{0};
  std::vector<std::string> errors_;
};

kube::Object Budget(const std::string& namespace_, const std::string& name) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", {{"name", name}, {"namespace", namespace_}}},
          {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app", name}}}}}}}};
}

class MigrateE2E : public ControllerEndToEnd {
 protected:
  MigrateE2E() : ControllerEndToEnd({"shop"}) {}

  void SetUp() override {
    ControllerEndToEnd::SetUp();
    if (HasFatalFailure()) return;
    seed_ = Json::parse(aws::testing::ReadMotoFile("seed.json"));
    region_ = seed_["region"].get<std::string>();
    admin_ = aws::Environment({
        {"AWS_ENDPOINT_URL", aws::testing::ReadMotoEndpoint("endpoint")},
        {"AWS_ACCESS_KEY_ID", seed_["credentials"]["access_key_id"].get<std::string>()},
        {"AWS_SECRET_ACCESS_KEY", seed_["credentials"]["secret_access_key"].get<std::string>()},
        {"AWS_REGION", region_},
        {"AWS_EC2_METADATA_DISABLED", "true"},
    });
    Result<aws::AwsClients> clients = aws::AwsClients::Create(admin_, region_, transport_, clock_);
    ASSERT_THAT(clients, IsOk());
    clients_.emplace(std::move(*clients));
    std::vector<std::string> zones;
    for (const Json& subnet : seed_["subnets"]) zones.push_back(subnet["zone"]);
    zones.resize(2);
    Result<migrate::testing::MigrationCluster> made = migrate::testing::CreateMigrationCluster(
        *clients_, aws::testing::UniqueName("mige2e"), "CONFIG_MAP", zones);
    ASSERT_THAT(made, IsOk());
    cluster_ = std::move(*made);
    // The interruption queue the seed names after the cluster, and the rules that feed it (those
    // `karpenter iam cloudformation` makes).
    ASSERT_THAT(aws::CallJson(clients_->sqs(), aws::kSqsJson, "CreateQueue",
                              {{"QueueName", cluster_.name}}),
                IsOk());
    const std::string queue_arn =
        "arn:aws:sqs:" + region_ + ":" + seed_["account"].get<std::string>() + ":" + cluster_.name;
    for (const aws::iam::InterruptionEvent& event : aws::iam::kInterruptionEvents) {
      const std::string rule = cluster_.name + "-" + std::string(event.rule);
      const Json pattern = {{"source", {event.source}}, {"detail-type", {event.detail_type}}};
      ASSERT_THAT(aws::CallJson(clients_->events(), aws::kEventsJson, "PutRule",
                                {{"Name", rule}, {"EventPattern", pattern.dump()}}),
                  IsOk());
      ASSERT_THAT(
          aws::CallJson(clients_->events(), aws::kEventsJson, "PutTargets",
                        {{"Rule", rule}, {"Targets", {{{"Id", "queue"}, {"Arn", queue_arn}}}}}),
          IsOk());
    }
    Result<std::string> helm =
        RunProgram({std::string(KARPENTER_SOURCE_DIR) + "/scripts/testenv/build-helm"});
    ASSERT_THAT(helm, IsOk());
    helm_dir_ = helm->substr(0, helm->find_last_not_of("\n") + 1);
    RemoveKubeSystemObjects();
  }

  void TearDown() override {
    aws::testing::SetControllerPolicy(nullptr);
    if (stand_in_) stand_in_->Stop();
    // A run that failed before its rollback leaves the release; another test installs its own.
    if (!helm_dir_.empty()) {
      (void)RunProgram({helm_dir_ + "/helm", "uninstall", "karpenter", "--namespace", "kube-system",
                        "--ignore-not-found", "--kubeconfig", KARPENTER_TESTENV_KUBECONFIG});
    }
    RemoveKubeSystemObjects();
    for (int i = 0; i < 4; ++i) {
      (void)client_->Delete(kube::resources::kNodes, "", NodeGroupStandIn::NodeName(i), {});
    }
    ControllerEndToEnd::TearDown();
  }

  void RemoveKubeSystemObjects() {
    for (const char* name : {"cluster-autoscaler", "coredns-e2e"}) {
      (void)client_->Delete(kube::resources::kDeployments, "kube-system", name, {});
    }
    (void)client_->Delete(kube::resources::kPodDisruptionBudgets, "kube-system", "coredns-e2e", {});
    for (const char* name : {"aws-auth", "karpenter-migration"}) {
      (void)client_->Delete(kube::resources::kConfigMaps, "kube-system", name, {});
    }
  }

  // The cluster as it runs before the migration.
  void CreateClusterAsItRuns() {
    for (int i = 0; i < 3; ++i) {
      ASSERT_OK(
          support::Apply(*client_, NodeGroupStandIn::GroupNode(NodeGroupStandIn::NodeName(i))));
    }
    ASSERT_OK(support::Apply(
        *client_,
        {{"apiVersion", "v1"},
         {"kind", "ConfigMap"},
         {"metadata", {{"name", "aws-auth"}, {"namespace", "kube-system"}}},
         {"data",
          {{"mapRoles", "- groups:\n  - system:bootstrappers\n  - system:nodes\n  rolearn: " +
                            cluster_.node_group_role +
                            "\n  username: system:node:{{EC2PrivateDNSName}}\n"}}}}));
    const kube::Object on_group = {
        {"nodeSelector", {{std::string(migrate::kLabelNodeGroup), kGroup}}}};
    ASSERT_OK(support::Apply(*client_, migrate::testing::Requesting(
                                           migrate::testing::Deployment(
                                               "kube-system", "cluster-autoscaler", 1, on_group),
                                           "10m", "128Mi")));
    ASSERT_OK(support::Apply(
        *client_,
        migrate::testing::Requesting(migrate::testing::Deployment("kube-system", "coredns-e2e", 2),
                                     "10m", "128Mi")));
    ASSERT_OK(support::Apply(*client_, Budget("kube-system", "coredns-e2e")));
    ASSERT_OK(support::Apply(
        *client_, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "shop"}}}}));
    // Five web pods fill the three nodes (two per node of 2 CPU); on two nodes one must wait for
    // a node of Karpenter's.
    ASSERT_OK(support::Apply(
        *client_, migrate::testing::Requesting(migrate::testing::Deployment("shop", "web", 5),
                                               "900m", "128Mi")));
    ASSERT_OK(support::Apply(*client_, Budget("shop", "web")));
    ASSERT_TRUE(support::WaitFor([&] { return CountRunning(*client_, "shop") == 5; },
                                 std::chrono::seconds(60)))
        << "the web pods did not run on the node group";
  }

  // `karpenter migrate ARGS` as the user runs it: exit status and output.
  std::pair<bool, std::string> Migrate(std::vector<std::string> args) {
    const Json& key = seed_["controller_credentials"];
    std::vector<std::string> argv = {
        "env",
        "PATH=" + helm_dir_ + ":" + std::string(getenv("PATH") != nullptr ? getenv("PATH") : ""),
        "AWS_ENDPOINT_URL=" + aws::testing::ReadMotoEndpoint("fault_endpoint"),
        "AWS_ACCESS_KEY_ID=" + key["access_key_id"].get<std::string>(),
        "AWS_SECRET_ACCESS_KEY=" + key["secret_access_key"].get<std::string>(),
        "AWS_REGION=" + region_,
        "AWS_EC2_METADATA_DISABLED=true",
        KARPENTER_BINARY,
        "migrate"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(),
                {"--cluster-name", cluster_.name, "--kubeconfig", KARPENTER_TESTENV_KUBECONFIG});
    Result<std::string> out = RunProgram(argv);
    return out.ok() ? std::pair{true, *out} : std::pair{false, out.error().message};
  }

  Json Inventory() {
    Result<Json> inventory = migrate::testing::Inventory(*clients_, *client_, cluster_);
    EXPECT_THAT(inventory, IsOk());
    if (!inventory.ok()) return Json();
    // The test cluster's other objects are not the migration's to restore.
    Json& config_maps = (*inventory)["configMaps"];
    for (auto it = config_maps.begin(); it != config_maps.end();) {
      it = it.key() == "aws-auth" || it.key() == "karpenter-migration" ? std::next(it)
                                                                       : config_maps.erase(it);
    }
    Json& deployments = (*inventory)["deployments"];
    for (auto it = deployments.begin(); it != deployments.end();) {
      const bool ours = it.key() == "kube-system/cluster-autoscaler" ||
                        it.key() == "kube-system/coredns-e2e" || it.key() == "shop/web" ||
                        it.key() == "kube-system/karpenter";
      it = ours ? std::next(it) : deployments.erase(it);
    }
    return *inventory;
  }

  Json seed_;
  std::string region_;
  aws::Environment admin_;
  aws::CurlTransport transport_;
  RealClock clock_;
  std::optional<aws::AwsClients> clients_;
  migrate::testing::MigrationCluster cluster_;
  std::string helm_dir_;
  std::unique_ptr<NodeGroupStandIn> stand_in_;
};

TEST_F(MigrateE2E, PlanApplyVerifyThenRollbackLeavesEverythingAsItWas) {
  ASSERT_NO_FATAL_FAILURE(CreateClusterAsItRuns());
  stand_in_ = std::make_unique<NodeGroupStandIn>(admin_, region_, cluster_.name);
  stand_in_->Start();
  StartController();
  const Json before = Inventory();

  std::ostringstream policy_out, policy_err;
  ASSERT_EQ(
      cli::RunCommandLine(std::vector<std::string>{"iam", "migrate-policy", "--cluster-name",
                                                   cluster_.name, "--region", region_, "--account",
                                                   seed_["account"].get<std::string>()},
                          policy_out, policy_err),
      0);
  aws::testing::SetControllerPolicy(Json::parse(policy_out.str()));

  const auto [planned, plan] = Migrate({"plan", "--forecast", "0"});
  ASSERT_TRUE(planned) << plan;
  EXPECT_THAT(plan, HasSubstr("8. retire Cluster Autoscaler"));
  EXPECT_THAT(plan, HasSubstr("shrink node group general from 3 to 2 nodes"));

  // The chart's controller pods (stand-ins here: kwok runs them) small enough to move between the
  // node group's nodes, through a values file over the seed's.
  const std::string values = ::testing::TempDir() + "migrate-e2e-values.json";
  std::ofstream(values) << R"({"controller": {"resources": {"requests": {"cpu": "10m"}}}})";
  const auto [applied, apply] =
      Migrate({"apply", "--all", "--chart", std::string(KARPENTER_SOURCE_DIR) + "/charts/karpenter",
               "--values", values, "--settle-timeout", "3m"});
  ASSERT_TRUE(applied) << apply << "\n" << controller_->Log().substr(0, 4000);
  EXPECT_THAT(apply, HasSubstr("node group general shrank from 3 to 2 nodes and settled"));
  EXPECT_THAT(apply, HasSubstr("step 9: ok   Karpenter's nodes joined"));

  const auto [verified, verify] = Migrate({"verify"});
  EXPECT_TRUE(verified) << verify;
  EXPECT_THAT(verify, HasSubstr("verified"));
  const Json decisions = aws::testing::IamDecisions();
  EXPECT_EQ(decisions["denials"], 0) << decisions.dump(2);
  EXPECT_EQ(stand_in_->violations(), 0) << stand_in_->shortfalls();
  EXPECT_LT(stand_in_->longest_pending(), kSettleTimeout);

  const auto [rolled_back, rollback] = Migrate({"rollback", "--all"});
  ASSERT_TRUE(rolled_back) << rollback;
  // The node group is back at 3: the stand-in has added its node again.
  ASSERT_TRUE(support::WaitFor(
      [&] { return List(*client_, kube::resources::kNodes).size() >= 3 && Inventory() == before; },
      std::chrono::seconds(60)));
  EXPECT_EQ(Inventory(), before);
  EXPECT_EQ(aws::testing::IamDecisions()["denials"], 0);
  EXPECT_THAT(stand_in_->errors(), ::testing::IsEmpty());

  // The audit counts a budget short of healthy pods: two of web's pods deleted at once, with
  // nowhere to run again (the node group's nodes cordoned, no NodePool left).
  const int seen = stand_in_->violations();
  for (int i = 0; i < 4; ++i) {
    (void)client_->Patch(kube::resources::kNodes, "", NodeGroupStandIn::NodeName(i),
                         kube::PatchType::kMerge, {{"spec", {{"unschedulable", true}}}},
                         kube::Subresource::kNone);
  }
  int deleted = 0;
  for (const kube::Object& pod : List(*client_, kube::resources::kPods, "shop")) {
    if (deleted < 2) {
      (void)client_->Delete(kube::resources::kPods, "shop", Part(pod, "metadata").value("name", ""),
                            {});
      ++deleted;
    }
  }
  EXPECT_TRUE(
      support::WaitFor([&] { return stand_in_->violations() > seen; }, std::chrono::seconds(30)));
}

}  // namespace
}  // namespace karpenter::integration
