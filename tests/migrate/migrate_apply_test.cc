// `karpenter migrate apply` and `rollback` on a cluster of their own in moto (migration_cluster.h)
// and an in-memory API server, with a stand-in for EKS's node-group controller (nodes removed down
// to the node group's desired size whenever apply waits): what each step changes and records, the
// resume after a crash at every point between two writes, the refusals, a batch that does not
// settle, and a rollback that leaves AWS and the cluster as they were.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "aws/api/moto_fixture.h"
#include "aws/sdk/curl_transport.h"
#include "cli/command_line.h"
#include "common/clock.h"
#include "kube/memory/memory_client.h"
#include "migrate/apply.h"
#include "migrate/migration_cluster.h"
#include "migrate/record.h"
#include "support/matchers.h"

namespace karpenter::migrate {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::MigrationCluster;

class MigrateApplyTest : public aws::testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    std::vector<std::string> zones;
    for (const Json& subnet : seed_["subnets"]) zones.push_back(subnet["zone"]);
    zones.resize(2);
    Result<MigrationCluster> made = testing::CreateMigrationCluster(
        *clients_, aws::testing::UniqueName("migrate"), Mode(), zones);
    ASSERT_THAT(made, IsOk());
    migration_ = std::move(*made);
    ASSERT_THAT(testing::CreateClusterObjects(objects_, migration_), IsOk());
    hooks_.clock = &virtual_clock_;
    hooks_.sleep = [this](std::chrono::milliseconds duration) {
      PlayNodeGroupController();
      virtual_clock_.Advance(duration);
    };
    hooks_.run = [this](const std::vector<std::string>& argv) { return PlayHelm(argv); };
  }

  // helm's part: the release's Deployment appears on install and goes on uninstall; the values
  // apply passed are kept.
  Result<std::string> PlayHelm(const std::vector<std::string>& argv) {
    helm_calls_.push_back(argv);
    if (argv.size() > 1 && argv[1] == "upgrade") {
      const auto values = std::find(argv.begin(), argv.end(), "--values");
      if (values == argv.end() || values + 1 == argv.end()) return Error("no --values");
      std::ifstream file(*(values + 1));
      helm_values_ = Json::parse(file, /*cb=*/nullptr, /*allow_exceptions=*/false);
      Result<kube::Object> created =
          objects_.Create(kube::resources::kDeployments,
                          testing::Deployment("kube-system", "karpenter", 2, kube::Object::object(),
                                              {{"app.kubernetes.io/name", "karpenter"}}),
                          {});
      if (!created.ok() && created.error().status != 409) return created.error();
    } else if (argv.size() > 1 && argv[1] == "uninstall") {
      (void)objects_.Delete(kube::resources::kDeployments, "kube-system", "karpenter", {});
    }
    return std::string("ok\n");
  }

  virtual std::string Mode() const { return "CONFIG_MAP"; }

  // EKS's part: the node group's nodes go down to its desired size (the last ones first).
  void PlayNodeGroupController() {
    aws::EksApi eks(clients_->eks());
    Result<aws::EksNodegroup> group = eks.DescribeNodegroup(migration_.name, "general");
    ASSERT_THAT(group, IsOk());
    for (int64_t i = 2; i >= group->desired_size; --i) {
      (void)objects_.Delete(kube::resources::kNodes, "", testing::NodeName("general", i), {});
    }
  }

  ApplyOptions Options(std::vector<int> steps) const {
    ApplyOptions options;
    options.cluster_name = migration_.name;
    options.steps = std::move(steps);
    options.alias_version = "v20240807";
    options.chart = "charts/karpenter";
    return options;
  }

  Status Apply(const ApplyOptions& options) {
    out_.str("");
    return ApplyMigration(*clients_, objects_, options, hooks_, out_);
  }

  Status Rollback(bool all, bool dry_run = false) {
    out_.str("");
    RollbackOptions options;
    options.cluster_name = migration_.name;
    options.all = all;
    options.dry_run = dry_run;
    return RollbackMigration(*clients_, objects_, options, hooks_, out_);
  }

  Json Inventory() {
    Result<Json> inventory = testing::Inventory(*clients_, objects_, migration_);
    EXPECT_THAT(inventory, IsOk());
    return inventory.ok() ? *inventory : Json();
  }

  MigrationCluster migration_;
  RealClock clock_;
  VirtualClock virtual_clock_{TimePoint{}};
  kube::memory::MemoryClient objects_{clock_};
  ApplyHooks hooks_;
  std::ostringstream out_;
  std::vector<std::vector<std::string>> helm_calls_;
  Json helm_values_;
};

const std::vector<int> kImplemented = {1, 2, 3, 4, 5, 6, 7, 8};

TEST_F(MigrateApplyTest, CarriesOutTheStepsAndRecordsWhatItChanged) {
  const Json before = Inventory();
  ASSERT_THAT(Apply(Options(kImplemented)), IsOk()) << out_.str();
  const Json after = Inventory();
  // Step 2: the node role with the guide's four policies, the controller role with its policy.
  const std::string node_role = "KarpenterNodeRole-" + migration_.name;
  const std::string controller_role = "KarpenterControllerRole-" + migration_.name;
  EXPECT_FALSE(before.contains("roles"));
  EXPECT_EQ(after["roles"][node_role]["attached"].size(), 4) << after["roles"].dump();
  EXPECT_EQ(after["roles"][node_role]["inline"], Json::array());
  EXPECT_EQ(after["roles"][controller_role]["inline"],
            Json({"KarpenterControllerPolicy-" + migration_.name}));
  // Step 3: the discovery tag on both subnets and the security group.
  for (const std::string& id : migration_.subnets) {
    EXPECT_EQ(after["tags"][id]["karpenter.sh/discovery"], migration_.name) << id;
  }
  EXPECT_EQ(after["tags"][migration_.security_group]["karpenter.sh/discovery"], migration_.name);
  // Step 4: aws-auth keeps the node groups' entry (and its comment) and maps the node role.
  const std::string map_roles = after["configMaps"]["aws-auth"]["mapRoles"];
  EXPECT_THAT(map_roles, HasSubstr("# the node groups' role"));
  EXPECT_THAT(map_roles, HasSubstr(migration_.node_group_role));
  EXPECT_THAT(map_roles, HasSubstr(":role/KarpenterNodeRole-" + migration_.name + "\n"));
  // Step 6: the node group's NodePool and EC2NodeClass, marked as the migration's.
  EXPECT_EQ(after["NodePool"], Json({"default"}));
  EXPECT_EQ(after["EC2NodeClass"], Json({"default"}));
  Result<kube::Object> pool = objects_.Get(kube::resources::kNodePools, "", "default");
  ASSERT_THAT(pool, IsOk());
  EXPECT_EQ(kube::Label(*pool, kLabelManagedBy), kManagedBy);
  // Step 7: coredns required onto the node group; Karpenter and Cluster Autoscaler untouched.
  const Json& affinity = after["deployments"]["kube-system/coredns"][1];
  EXPECT_THAT(affinity.dump(), HasSubstr("\"eks.amazonaws.com/nodegroup\""));
  EXPECT_THAT(affinity.dump(), HasSubstr("\"general\""));
  EXPECT_EQ(after["deployments"]["kube-system/karpenter"],
            before["deployments"]["kube-system/karpenter"]);
  // Step 8: Cluster Autoscaler at 0; the node group (two zones) at min = max = desired = 2.
  EXPECT_EQ(after["deployments"]["kube-system/cluster-autoscaler"][0], 0);
  EXPECT_EQ(after["general"], Json({2, 2, 2}));
  EXPECT_THAT(out_.str(), HasSubstr("node group general shrank from 3 to 2 nodes and settled"));

  // The record names what was there before.
  Result<std::optional<MigrationRecord>> record = LoadRecord(objects_, "kube-system");
  ASSERT_THAT(record, IsOk());
  ASSERT_TRUE(record->has_value());
  const MigrationRecord& kept = **record;
  EXPECT_EQ(kept.cluster, migration_.name);
  EXPECT_EQ(kept.roles, (std::vector<std::string>{node_role, controller_role}));
  EXPECT_EQ(kept.tagged.size(), 3);
  EXPECT_EQ(kept.aws_auth_role, "arn:aws:iam::" + seed_["account"].get<std::string>() +
                                    ":role/KarpenterNodeRole-" + migration_.name);
  EXPECT_FALSE(kept.aws_auth_created);
  ASSERT_EQ(kept.pinned.size(), 1);
  EXPECT_TRUE(kept.pinned[0].before.is_null());
  ASSERT_EQ(kept.scaled.size(), 1);
  EXPECT_EQ(kept.scaled[0].before, 1);
  ASSERT_EQ(kept.node_groups.size(), 1);
  EXPECT_EQ(kept.node_groups[0], (NodeGroupSize{"general", 3, 6, 3}));

  // Again: every step is done already, and nothing changes, the record included.
  ASSERT_THAT(Apply(Options(kImplemented)), IsOk());
  EXPECT_EQ(Inventory(), after);
  EXPECT_THAT(out_.str(), HasSubstr("step 8 (retire Cluster Autoscaler): done already"));
  Result<std::optional<MigrationRecord>> again = LoadRecord(objects_, "kube-system");
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->value(), kept);
}

TEST_F(MigrateApplyTest, StepNineVerifiesAndNamesWhatIsMissing) {
  ASSERT_THAT(Apply(Options(kImplemented)), IsOk()) << out_.str();
  Status unverified = Apply(Options({9}));
  ASSERT_FALSE(unverified.ok());
  EXPECT_THAT(unverified.error().message, HasSubstr("Karpenter's nodes joined"));
  EXPECT_THAT(unverified.error().message, HasSubstr("the controller runs on node-group nodes"));
  EXPECT_THAT(out_.str(), HasSubstr("step 9: ok   steps 1 to 8 done"));
  // Karpenter's node joins and the controller runs on the node group: only the interruption
  // queue (moto has none named after this cluster) is left.
  const kube::Object node = {{"apiVersion", "v1"},
                             {"kind", "Node"},
                             {"metadata",
                              {{"name", "karpenter-node"},
                               {"labels",
                                {{"karpenter.sh/nodepool", "default"},
                                 {"node.kubernetes.io/instance-type", "m5.large"}}}}}};
  ASSERT_THAT(objects_.Create(kube::resources::kNodes, node, {}), IsOk());
  kube::Object controller =
      testing::Pod("kube-system", "karpenter-0", "karpenter", testing::NodeName("general", 0));
  controller["metadata"]["labels"]["app.kubernetes.io/name"] = "karpenter";
  ASSERT_THAT(objects_.Create(kube::resources::kPods, controller, {}), IsOk());
  Result<kube::Object> pod = objects_.Get(kube::resources::kPods, "kube-system", "karpenter-0");
  ASSERT_THAT(pod, IsOk());
  (*pod)["status"]["phase"] = "Running";
  ASSERT_THAT(objects_.Update(kube::resources::kPods, *pod, kube::Subresource::kStatus), IsOk());
  unverified = Apply(Options({9}));
  ASSERT_FALSE(unverified.ok());
  EXPECT_EQ(unverified.error().message,
            "step 9 (verify): not verified: interruptions reach the controller");
}

TEST_F(MigrateApplyTest, AnUnknownClusterChangesNothing) {
  ApplyOptions options = Options(kImplemented);
  options.cluster_name = "no-such-cluster";
  Status failed = Apply(options);
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.error().message, HasSubstr("step 1: reading the account and the cluster"));
  EXPECT_THAT(failed.error().message, HasSubstr("ResourceNotFoundException"));
  Result<std::optional<MigrationRecord>> record = LoadRecord(objects_, "kube-system");
  ASSERT_THAT(record, IsOk());
  EXPECT_FALSE(record->has_value());
}

TEST_F(MigrateApplyTest, TheCommandLineNeedsAStepOrAll) {
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunCommandLine(std::vector<std::string>{"migrate", "apply", "--cluster-name", "c"},
                                out, err),
            cli::kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("give --step N or --all"));
  err.str("");
  EXPECT_EQ(cli::RunCommandLine(
                std::vector<std::string>{"migrate", "apply", "--cluster-name", "c", "--step", "10"},
                out, err),
            cli::kExitUsage);
  err.str("");
  EXPECT_EQ(cli::RunCommandLine(std::vector<std::string>{"migrate", "apply", "--cluster-name", "c",
                                                         "--step", "3", "--all"},
                                out, err),
            cli::kExitUsage);
}

TEST_F(MigrateApplyTest, RollbackRestoresCapacityAndRollbackAllRestoresEverything) {
  const Json before = Inventory();
  ASSERT_THAT(Apply(Options(kImplemented)), IsOk()) << out_.str();
  const Json applied = Inventory();

  ASSERT_THAT(Rollback(/*all=*/false), IsOk());
  const Json partly = Inventory();
  // Cluster Autoscaler and the node group as they were, coredns unpinned; the rest stays.
  EXPECT_EQ(partly["general"], before["general"]);
  EXPECT_EQ(partly["deployments"], before["deployments"]);
  EXPECT_EQ(partly["tags"], applied["tags"]);
  EXPECT_EQ(partly["NodePool"], applied["NodePool"]);

  ASSERT_THAT(Rollback(/*all=*/true), IsOk());
  EXPECT_EQ(Inventory(), before);
  Result<std::optional<MigrationRecord>> record = LoadRecord(objects_, "kube-system");
  ASSERT_THAT(record, IsOk());
  EXPECT_FALSE(record->has_value());
  // Nothing left to undo.
  ASSERT_THAT(Rollback(/*all=*/true), IsOk());
  EXPECT_THAT(out_.str(), HasSubstr("nothing to undo"));
}

TEST_F(MigrateApplyTest, RollbackKeepsWhatTheMigrationDidNotCreate) {
  // A tag that was there before and a NodePool someone changed the mark of stay.
  ASSERT_THAT(Apply(Options({3, 6})), IsOk()) << out_.str();
  Result<kube::Object> pool = objects_.Get(kube::resources::kNodePools, "", "default");
  ASSERT_THAT(pool, IsOk());
  ASSERT_THAT(objects_.Patch(kube::resources::kNodePools, "", "default", kube::PatchType::kMerge,
                             {{"metadata", {{"labels", {{kLabelManagedBy, "platform-team"}}}}}},
                             kube::Subresource::kNone),
              IsOk());
  ASSERT_THAT(Rollback(/*all=*/true), IsOk());
  EXPECT_THAT(out_.str(), HasSubstr("kept NodePool default"));
  EXPECT_EQ(Inventory()["NodePool"], Json({"default"}));
}

TEST_F(MigrateApplyTest, DryRunSaysWhatWouldChangeAndChangesNothing) {
  const Json before = Inventory();
  ApplyOptions options = Options(kImplemented);
  options.dry_run = true;
  ASSERT_THAT(Apply(options), IsOk());
  EXPECT_THAT(out_.str(), HasSubstr("step 3: would tag"));
  EXPECT_THAT(out_.str(), HasSubstr("step 4: would add"));
  EXPECT_THAT(out_.str(), HasSubstr("step 6: would create NodePool default"));
  EXPECT_THAT(out_.str(), HasSubstr("step 7: would require Deployment kube-system/coredns"));
  EXPECT_THAT(out_.str(),
              HasSubstr("step 8: would scale Deployment kube-system/cluster-autoscaler"));
  EXPECT_THAT(out_.str(), HasSubstr("step 8: would shrink node group general from 3 to 2"));
  EXPECT_EQ(Inventory(), before);
  Result<std::optional<MigrationRecord>> record = LoadRecord(objects_, "kube-system");
  ASSERT_THAT(record, IsOk());
  EXPECT_FALSE(record->has_value());
}

TEST_F(MigrateApplyTest, ShrinkingIsRefusedWhileWorkloadsOnNodeGroupsHaveNoBudget) {
  ASSERT_THAT(
      objects_.Create(kube::resources::kPods,
                      testing::Pod("default", "web-0", "web", testing::NodeName("general", 1)), {}),
      IsOk());
  ASSERT_THAT(Apply(Options({6})), IsOk());
  const Json before = Inventory();
  Status refused = Apply(Options({8}));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("Pod default/web-0"));
  EXPECT_THAT(refused.error().message, HasSubstr("--allow-unprotected"));
  EXPECT_THAT(refused.error().message, HasSubstr("nothing changed"));
  EXPECT_EQ(Inventory(), before);

  ApplyOptions allowed = Options({8});
  allowed.allow_unprotected = true;
  ASSERT_THAT(Apply(allowed), IsOk()) << out_.str();
  EXPECT_EQ(Inventory()["general"], Json({2, 2, 2}));
}

TEST_F(MigrateApplyTest, ShrinkingWaitsForKarpenter) {
  ASSERT_THAT(objects_.Delete(kube::resources::kDeployments, "kube-system", "karpenter", {}),
              IsOk());
  const Json before = Inventory();
  Status refused = Apply(Options({8}));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("Karpenter must run first (step 5"));
  EXPECT_EQ(Inventory(), before);
}

TEST_F(MigrateApplyTest, ABatchThatDoesNotSettleStopsAndLeavesTheClusterAsItIs) {
  // No node-group controller: the node never goes.
  hooks_.sleep = [this](std::chrono::milliseconds duration) { virtual_clock_.Advance(duration); };
  ASSERT_THAT(Apply(Options({6})), IsOk());
  ApplyOptions options = Options({8});
  options.settle_timeout = std::chrono::seconds(60);
  Status stopped = Apply(options);
  ASSERT_FALSE(stopped.ok());
  EXPECT_THAT(stopped.error().message, HasSubstr("did not settle within 60s"));
  EXPECT_THAT(stopped.error().message,
              HasSubstr("node group general still has 3 nodes (desired 2)"));
  EXPECT_THAT(stopped.error().message, HasSubstr("left the cluster as it is"));
  EXPECT_EQ(Inventory()["general"], Json({2, 2, 2}));
  // The node-group controller catches up; the next run finds the step done, and rollback still
  // knows the size before.
  PlayNodeGroupController();
  ASSERT_THAT(Apply(Options({8})), IsOk());
  EXPECT_THAT(out_.str(), HasSubstr("done already"));
  ASSERT_THAT(Rollback(/*all=*/false), IsOk());
  EXPECT_EQ(Inventory()["general"], Json({3, 6, 3}));
}

TEST_F(MigrateApplyTest, InstallsTheChartWithTheSeedsValuesAndAffinityEdit) {
  ASSERT_THAT(objects_.Delete(kube::resources::kDeployments, "kube-system", "karpenter", {}),
              IsOk());
  ApplyOptions options = Options({2, 5});
  options.chart = "charts/karpenter";
  options.values_files = {"mine.yaml"};
  options.kubeconfig = "/etc/kubeconfig";
  ASSERT_THAT(Apply(options), IsOk()) << out_.str();
  ASSERT_EQ(helm_calls_.size(), 1);
  const std::vector<std::string>& argv = helm_calls_[0];
  ASSERT_GE(argv.size(), 8);
  EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + 7),
            (std::vector<std::string>{"helm", "upgrade", "--install", "karpenter",
                                      "charts/karpenter", "--namespace", "kube-system"}));
  // The user's values come after the seed's, so they win; helm waits for the controller.
  EXPECT_THAT(argv, ::testing::IsSupersetOf({std::string("mine.yaml"), std::string("--wait"),
                                             std::string("600s"), std::string("/etc/kubeconfig")}));
  EXPECT_LT(std::find(argv.begin(), argv.end(), "--values") - argv.begin(),
            std::find(argv.begin(), argv.end(), "mine.yaml") - argv.begin() - 1);
  EXPECT_EQ(helm_values_["settings"]["clusterName"], migration_.name);
  // moto has no queue named after this cluster: interruption handling stays off.
  EXPECT_FALSE(helm_values_["settings"].contains("interruptionQueue"));
  EXPECT_EQ(helm_values_["serviceAccount"]["annotations"]["eks.amazonaws.com/role-arn"],
            "arn:aws:iam::" + seed_["account"].get<std::string>() +
                ":role/KarpenterControllerRole-" + migration_.name);
  const Json& expressions =
      helm_values_["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                  ["nodeSelectorTerms"][0]["matchExpressions"];
  EXPECT_EQ(expressions, Json::parse(R"([
      {"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"},
      {"key": "eks.amazonaws.com/nodegroup", "operator": "In", "values": ["general"]}])"));
  EXPECT_EQ(helm_values_["controller"]["resources"]["requests"]["cpu"], "1");
  // Done: helm is not run again.
  ASSERT_THAT(Apply(options), IsOk());
  EXPECT_EQ(helm_calls_.size(), 1);
  // rollback --all uninstalls the release it installed.
  ASSERT_THAT(Rollback(/*all=*/true), IsOk());
  ASSERT_EQ(helm_calls_.size(), 2);
  EXPECT_EQ(
      std::vector<std::string>(helm_calls_[1].begin(), helm_calls_[1].begin() + 5),
      (std::vector<std::string>{"helm", "uninstall", "karpenter", "--namespace", "kube-system"}));
}

TEST_F(MigrateApplyTest, InstallingTheChartNeedsTheChartAndHelm) {
  ASSERT_THAT(objects_.Delete(kube::resources::kDeployments, "kube-system", "karpenter", {}),
              IsOk());
  ApplyOptions without_chart = Options({2, 5});
  without_chart.chart.clear();
  Status refused = Apply(without_chart);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("step 5 (deploy Karpenter): give --chart"));
  EXPECT_THAT(helm_calls_, IsEmpty());
  hooks_.run = [](const std::vector<std::string>& argv) -> Result<std::string> {
    return Error(argv[0] + ": cannot run it", 0, "NotFound");
  };
  ApplyOptions options = Options({5});
  options.chart = "charts/karpenter";
  refused = Apply(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("helm, which is not on the PATH"));
}

TEST_F(MigrateApplyTest, TheChartWaitsForTheControllersRole) {
  ASSERT_THAT(objects_.Delete(kube::resources::kDeployments, "kube-system", "karpenter", {}),
              IsOk());
  ApplyOptions options = Options({5});
  options.chart = "charts/karpenter";
  Status refused = Apply(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("IAM role first (step 2)"));
  EXPECT_THAT(helm_calls_, IsEmpty());
}

// A crash at each point between two writes, then a second run: it finishes, and rollback --all
// still restores everything.
class MigrateApplyCrashTest : public MigrateApplyTest,
                              public ::testing::WithParamInterface<std::string> {};

TEST_P(MigrateApplyCrashTest, ARunStoppedAtACrashPointFinishesWhenRunAgain) {
  // Every step to do, the chart's included.
  ASSERT_THAT(objects_.Delete(kube::resources::kDeployments, "kube-system", "karpenter", {}),
              IsOk());
  const Json before = Inventory();
  bool crashed = false;
  hooks_.crash_at = [&](std::string_view point) {
    if (crashed || point != GetParam()) return false;
    crashed = true;
    return true;
  };
  Status first = Apply(Options(kImplemented));
  ASSERT_TRUE(crashed) << "no crash point " << GetParam();
  ASSERT_FALSE(first.ok());
  EXPECT_THAT(first.error().message, HasSubstr("crash point"));
  ASSERT_THAT(Apply(Options(kImplemented)), IsOk()) << out_.str();
  const Json after = Inventory();
  EXPECT_EQ(after["general"], Json({2, 2, 2}));
  // A batch the crash interrupted is waited for: the node is gone once the second run ends.
  EXPECT_FALSE(objects_.Get(kube::resources::kNodes, "", testing::NodeName("general", 2)).ok());
  EXPECT_EQ(after["deployments"]["kube-system/cluster-autoscaler"][0], 0);
  EXPECT_EQ(after["NodePool"], Json({"default"}));
  Result<std::optional<MigrationRecord>> record = LoadRecord(objects_, "kube-system");
  ASSERT_THAT(record, IsOk());
  ASSERT_TRUE(record->has_value());
  // The record kept what was there before the first run, not what the crash left.
  ASSERT_EQ((*record)->scaled.size(), 1);
  EXPECT_EQ((*record)->scaled[0].before, 1);
  ASSERT_EQ((*record)->node_groups.size(), 1);
  EXPECT_EQ((*record)->node_groups[0].desired_size, 3);
  ASSERT_EQ((*record)->pinned.size(), 1);
  EXPECT_TRUE((*record)->pinned[0].before.is_null());
  ASSERT_THAT(Rollback(/*all=*/true), IsOk());
  EXPECT_EQ(Inventory(), before);
}

INSTANTIATE_TEST_SUITE_P(
    EveryPoint, MigrateApplyCrashTest,
    ::testing::Values("step 2: recorded", "step 2: changed", "step 5: recorded", "step 5: changed",
                      "step 3: recorded", "step 3: changed", "step 4: recorded", "step 4: changed",
                      "step 6: recorded", "step 6: changed", "step 7: recorded", "step 7: changed",
                      "step 8: recorded", "step 8: changed", "step 8: batch"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name;
      for (const char c : info.param) {
        if (std::isalnum(static_cast<unsigned char>(c))) name.push_back(c);
      }
      return name;
    });

// Authentication mode API: the node role gets an access entry instead of an aws-auth entry.
class MigrateApplyApiModeTest : public MigrateApplyTest {
 protected:
  std::string Mode() const override { return "API"; }
};

TEST_F(MigrateApplyApiModeTest, AdmitsTheNodeRoleWithAnAccessEntryAndRemovesItOnRollback) {
  const Json before = Inventory();
  ASSERT_THAT(Apply(Options({4})), IsOk()) << out_.str();
  const std::string role = "arn:aws:iam::" + seed_["account"].get<std::string>() +
                           ":role/KarpenterNodeRole-" + migration_.name;
  const Json after = Inventory();
  EXPECT_EQ(after["accessEntries"], Json({role}));
  EXPECT_EQ(after["configMaps"]["aws-auth"], before["configMaps"]["aws-auth"]);
  ASSERT_THAT(Rollback(/*all=*/true), IsOk());
  EXPECT_EQ(Inventory(), before);
}

// apply and rollback under `karpenter iam migrate-policy`, enforced by the proxy's IAM evaluator:
// every write they make is allowed, and without a statement the step fails naming the action.
class MigrateApplyIamTest : public MigrateApplyApiModeTest {
 protected:
  MigrateApplyIamTest() { through_fault_proxy_ = true; }

  void SetUp() override {
    MigrateApplyApiModeTest::SetUp();
    if (HasFatalFailure()) return;
    const Json& key = seed_["controller_credentials"];
    enforced_env_ = aws::Environment({
        {"AWS_ENDPOINT_URL", aws::testing::ReadMotoEndpoint("fault_endpoint")},
        {"AWS_ACCESS_KEY_ID", key["access_key_id"].get<std::string>()},
        {"AWS_SECRET_ACCESS_KEY", key["secret_access_key"].get<std::string>()},
        {"AWS_REGION", seed_["region"].get<std::string>()},
        {"AWS_EC2_METADATA_DISABLED", "true"},
    });
    Result<aws::AwsClients> clients = aws::AwsClients::Create(
        enforced_env_, seed_["region"].get<std::string>(), enforced_transport_, clock_);
    ASSERT_THAT(clients, IsOk());
    enforced_.emplace(std::move(*clients));
    std::ostringstream out, err;
    ASSERT_EQ(
        cli::RunCommandLine(
            std::vector<std::string>{"iam", "migrate-policy", "--cluster-name", migration_.name,
                                     "--region", seed_["region"].get<std::string>(), "--account",
                                     seed_["account"].get<std::string>()},
            out, err),
        0)
        << err.str();
    policy_ = Json::parse(out.str());
  }

  void TearDown() override { aws::testing::SetControllerPolicy(nullptr); }

  Status EnforcedApply(const ApplyOptions& options) {
    out_.str("");
    return ApplyMigration(*enforced_, objects_, options, hooks_, out_);
  }

  aws::Environment enforced_env_;
  aws::CurlTransport enforced_transport_;
  std::optional<aws::AwsClients> enforced_;
  Json policy_;
};

TEST_F(MigrateApplyIamTest, ThePrintedPolicyAllowsApplyAndRollback) {
  const Json before = Inventory();
  aws::testing::SetControllerPolicy(policy_);
  ASSERT_THAT(EnforcedApply(Options(kImplemented)), IsOk()) << out_.str();
  RollbackOptions rollback;
  rollback.cluster_name = migration_.name;
  rollback.all = true;
  ASSERT_THAT(RollbackMigration(*enforced_, objects_, rollback, hooks_, out_), IsOk());
  const Json decisions = aws::testing::IamDecisions();
  EXPECT_EQ(decisions["denials"], 0) << decisions.dump(2);
  for (const char* action :
       {"ec2:CreateTags", "ec2:DeleteTags", "eks:CreateAccessEntry", "eks:DeleteAccessEntry",
        "eks:UpdateNodegroupConfig", "iam:CreateRole", "iam:TagRole", "iam:AttachRolePolicy",
        "iam:PutRolePolicy", "iam:DetachRolePolicy", "iam:DeleteRolePolicy", "iam:DeleteRole",
        "sqs:GetQueueUrl"}) {
    EXPECT_TRUE(decisions["allowed"].contains(action)) << action << ": " << decisions.dump(2);
  }
  EXPECT_EQ(Inventory(), before);
}

TEST_F(MigrateApplyIamTest, WithoutTheTaggingStatementStepThreeFailsAndChangesNothing) {
  Json policy = policy_;
  Json& statements = policy["Statement"];
  statements.erase(
      std::remove_if(statements.begin(), statements.end(),
                     [](const Json& statement) { return statement["Sid"] == "MigrateTagNetwork"; }),
      statements.end());
  const Json before = Inventory();
  aws::testing::SetControllerPolicy(policy);
  Status refused = EnforcedApply(Options({3}));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("step 3 (discovery tags)"));
  EXPECT_THAT(refused.error().message, HasSubstr("ec2:CreateTags"));
  EXPECT_EQ(aws::testing::IamDecisions()["denials"], 1);
  // AWS is as it was; the record names what the step was about to tag, for rollback.
  const Json after = Inventory();
  EXPECT_EQ(after["tags"], before["tags"]);
}

}  // namespace
}  // namespace karpenter::migrate
