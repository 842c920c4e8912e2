// `karpenter migrate plan` against moto's seeded account (a cluster, two managed node groups, the
// node role, discovery tags, the AMI parameters) and an in-memory cluster: what it reads, the steps
// it judges, what it derives, and the clear failure of a cluster that does not exist.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "aws/api/moto_fixture.h"
#include "cli/command_line.h"
#include "cli/migrate_command.h"
#include "cli/migrate_html.h"
#include "kube/memory/memory_client.h"

namespace karpenter::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

class MigratePlanTest : public aws::testing::MotoTest {
 protected:
  int Run(const MigratePlanOptions& options, std::ostringstream& out, std::ostringstream& err) {
    return RunMigratePlan(options, environment_, cluster_objects_, out, err);
  }

  kube::memory::MemoryClient cluster_objects_{clock_};
};

TEST_F(MigratePlanTest, ReadsTheClusterAndItsNodeGroupsAndDerivesTheirNodePools) {
  std::ostringstream out, err;
  ASSERT_EQ(Run({{cluster_, "", ""}, "v20240807", "json"}, out, err), 0) << err.str();
  EXPECT_THAT(err.str(), IsEmpty());
  const Json report = Json::parse(out.str());
  EXPECT_EQ(report["cluster"]["name"], cluster_);
  EXPECT_EQ(report["cluster"]["region"], seed_["region"]);
  EXPECT_EQ(report["cluster"]["version"], seed_["kubernetes_version"]);
  EXPECT_EQ(report["cluster"]["authenticationMode"], "CONFIG_MAP");
  ASSERT_EQ(report["nodeGroups"].size(), seed_["node_groups"].size());
  // The seed's two node groups differ in labels, taints and capacity type: a NodePool each, one
  // EC2NodeClass (both AL2023).
  ASSERT_EQ(report["nodePools"].size(), 2);
  ASSERT_EQ(report["nodeClasses"].size(), 1);
  EXPECT_EQ(report["nodeClasses"][0]["spec"]["amiSelectorTerms"][0]["alias"], "al2023@v20240807");
  EXPECT_EQ(report["nodeClasses"][0]["spec"]["role"], "KarpenterNodeRole-" + cluster_);
  // What the seed's account has: the node role (not the controller's), tagged subnets and
  // security group, the AMI parameters of its Kubernetes version; the alias version given wins.
  const Json& steps = report["steps"];
  ASSERT_EQ(steps.size(), 9);
  EXPECT_EQ(steps[0]["state"], "done");
  EXPECT_EQ(steps[1]["state"], "to do");
  EXPECT_THAT(steps[1]["details"].dump(), HasSubstr("create KarpenterControllerRole-" + cluster_));
  EXPECT_THAT(steps[1]["details"].dump(), ::testing::Not(HasSubstr("create KarpenterNodeRole")));
  EXPECT_EQ(steps[2]["state"], "done") << steps[2].dump();
  EXPECT_EQ(steps[3]["state"], "to do");  // the in-memory cluster has no aws-auth
  EXPECT_EQ(report["controllerNodeGroup"], "general");
  // Step 2's roles (the node role exists in the seed, the controller role does not) and step 5's
  // values, as apply would make them.
  ASSERT_EQ(report["iamRoles"].size(), 2);
  EXPECT_EQ(report["iamRoles"][0]["name"], "KarpenterNodeRole-" + cluster_);
  EXPECT_EQ(report["iamRoles"][0]["exists"], true);
  EXPECT_EQ(report["iamRoles"][0]["managedPolicies"].size(), 4);
  EXPECT_EQ(report["iamRoles"][1]["exists"], false);
  EXPECT_EQ(report["iamRoles"][1]["inlinePolicy"]["name"], "KarpenterControllerPolicy-" + cluster_);
  EXPECT_EQ(report["chartValues"]["settings"]["clusterName"], cluster_);
  EXPECT_EQ(report["chartValues"]["affinity"]["nodeAffinity"]
                  ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
                  ["matchExpressions"][1]["values"],
            Json({"general"}));
  const std::string image_name = seed_["images"]["al2023_x86_64"]["name"];
  EXPECT_EQ(report["cluster"]["aliasVersion"], image_name.substr(image_name.rfind('-') + 1));
  for (size_t i = 0; i < report["nodePools"].size(); ++i) {
    const Json& pool = report["nodePools"][i];
    const std::string group = report["nodePoolNodeGroups"][i][0];
    EXPECT_EQ(pool["spec"]["template"]["metadata"]["labels"], seed_["node_groups"][group]["labels"])
        << group;
  }
}

TEST_F(MigratePlanTest, TextNamesTheNodeGroupsAndPrintsTheManifests) {
  std::ostringstream out, err;
  ASSERT_EQ(Run({{cluster_, "", ""}, "", "text"}, out, err), 0) << err.str();
  for (const auto& [name, config] : seed_["node_groups"].items()) {
    EXPECT_THAT(out.str(), HasSubstr(name));
  }
  EXPECT_THAT(out.str(), HasSubstr("authentication mode CONFIG_MAP"));
  EXPECT_THAT(out.str(), HasSubstr("9. verify"));
  EXPECT_THAT(out.str(), HasSubstr("\"kind\": \"EC2NodeClass\""));
  EXPECT_THAT(out.str(), HasSubstr("\"kind\": \"NodePool\""));
}

TEST_F(MigratePlanTest, WithoutAnAliasVersionTheClusterVersionsReleaseIsPinned) {
  std::ostringstream out, err;
  ASSERT_EQ(Run({{cluster_, "", ""}, "", "json"}, out, err), 0) << err.str();
  const Json report = Json::parse(out.str());
  EXPECT_EQ(report["nodeClasses"][0]["spec"]["amiSelectorTerms"][0]["alias"],
            "al2023@" + report["cluster"]["aliasVersion"].get<std::string>());
  EXPECT_NE(report["cluster"]["aliasVersion"], "");
}

TEST_F(MigratePlanTest, AClusterInApiModeAdmitsTheNodeRoleThroughItsAccessEntry) {
  std::ostringstream out, err;
  const std::string api_cluster = seed_["api_cluster"].get<std::string>();
  ASSERT_EQ(Run({{api_cluster, "", ""}, "", "json", "0"}, out, err), 0) << err.str();
  const Json report = Json::parse(out.str());
  EXPECT_EQ(report["cluster"]["authenticationMode"], "API");
  EXPECT_EQ(report["steps"][3]["state"], "done") << report["steps"][3].dump();
  // The seeded cluster keeps aws-auth (CONFIG_MAP), which the in-memory cluster lacks.
  std::ostringstream config_map_out;
  ASSERT_EQ(Run({{cluster_, "", ""}, "", "json", "0"}, config_map_out, err), 0) << err.str();
  EXPECT_EQ(Json::parse(config_map_out.str())["steps"][3]["state"], "to do");
}

TEST_F(MigratePlanTest, TheControllerRoleTrustsTheServiceAccountOfTheNamespaceGiven) {
  std::ostringstream out, err;
  ASSERT_EQ(Run({{cluster_, "", ""}, "", "json", "0", "karpenter"}, out, err), 0) << err.str();
  const Json report = Json::parse(out.str());
  EXPECT_THAT(report["iamRoles"][1]["trust"].dump(),
              HasSubstr("system:serviceaccount:karpenter:karpenter"));
}

TEST_F(MigratePlanTest, HtmlIsOneSelfContainedPage) {
  std::ostringstream out, err;
  ASSERT_EQ(Run({{cluster_, "", ""}, "", "html", "0"}, out, err), 0) << err.str();
  const std::string page = out.str();
  EXPECT_TRUE(page.starts_with("<!doctype html>"));
  EXPECT_THAT(page, HasSubstr("<title>Karpenter migration plan — " + cluster_ + "</title>"));
  // Nine steps, each with its state's class; the seeded cluster's first step is done.
  size_t rows = 0;
  for (size_t at = page.find("<tr><td class=\"num\">"); at != std::string::npos;
       at = page.find("<tr><td class=\"num\">", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 9);
  EXPECT_THAT(page, HasSubstr("<td class=\"state-done\">done</td>"));
  for (const auto& [name, config] : seed_["node_groups"].items()) {
    EXPECT_THAT(page, HasSubstr("<td>" + name + "</td>"));
  }
  // The manifests, escaped; nothing the page would fetch or run.
  EXPECT_THAT(page, HasSubstr("&quot;kind&quot;: &quot;NodePool&quot;"));
  EXPECT_THAT(page, ::testing::Not(HasSubstr("<script")));
  EXPECT_THAT(page, ::testing::Not(HasSubstr("http://")));
  EXPECT_TRUE(page.ends_with("</html>\n"));
}

TEST(PlanHtmlTest, EscapesWhatTheAccountAndTheClusterSay) {
  migrate::AwsInventory aws;
  aws.cluster.name = "<script>alert(1)</script>";
  aws::EksNodegroup group;
  group.name = "ng\"><img src=x>";
  group.labels = {{"team", "a&b"}};
  aws.node_groups = {group};
  migrate::MigrationPlan plan;
  plan.warnings = {"Deployment <b>x</b> has no budget"};
  const migrate::DerivedNodePools derived;
  const std::optional<Result<simulate::SimulationResult>> forecast =
      Result<simulate::SimulationResult>(Error("no catalog for <region>"));
  const std::vector<std::string> notes;
  const std::vector<migrate::RoleArtifact> roles;
  const Json values = {{"settings", {{"clusterName", "<x>"}}}};
  const std::string page =
      RenderPlanHtml({&aws, &plan, &derived, &forecast, &notes, &roles, &values});
  EXPECT_THAT(page, ::testing::Not(HasSubstr("<script>")));
  EXPECT_THAT(page, ::testing::Not(HasSubstr("<img")));
  EXPECT_THAT(page, ::testing::Not(HasSubstr("<b>")));
  EXPECT_THAT(page, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(page, HasSubstr("team=a&amp;b"));
  EXPECT_THAT(page, HasSubstr("Not run: no catalog for &lt;region&gt;"));
  EXPECT_THAT(page, HasSubstr("&quot;clusterName&quot;: &quot;&lt;x&gt;&quot;"));
}

TEST_F(MigratePlanTest, AnUnknownClusterIsAClearFailure) {
  std::ostringstream out, err;
  EXPECT_EQ(Run({{"no-such-cluster", "", ""}, "", "text"}, out, err), kExitFailure);
  EXPECT_THAT(out.str(), IsEmpty());
  EXPECT_THAT(err.str(), HasSubstr("cluster no-such-cluster"));
  EXPECT_THAT(err.str(), HasSubstr("ResourceNotFoundException"));
}

TEST_F(MigratePlanTest, NoRegionIsAUsageError) {
  std::ostringstream out, err;
  EXPECT_EQ(RunMigratePlan({{cluster_, "", ""}, "", "text"}, aws::Environment(), cluster_objects_,
                           out, err),
            kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("no region"));
}

TEST_F(MigratePlanTest, ABatchOfNoNodesIsAUsageError) {
  std::ostringstream out, err;
  MigratePlanOptions options{{cluster_, "", ""}, "", "text", "0"};
  options.batch = 0;
  EXPECT_EQ(Run(options, out, err), kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("--batch: at least 1 node at a time"));
  EXPECT_THAT(out.str(), IsEmpty());
}

}  // namespace
}  // namespace karpenter::cli

namespace karpenter::cli {
namespace {

// `karpenter migrate plan` holding the controller's key, under the policy `karpenter iam
// migrate-policy` prints, enforced by the fault proxy's IAM evaluator.
class MigratePlanIamTest : public aws::testing::MotoTest {
 protected:
  MigratePlanIamTest() { through_fault_proxy_ = true; }

  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    const Json& key = seed_["controller_credentials"];
    enforced_ = aws::Environment({
        {"AWS_ENDPOINT_URL", aws::testing::ReadMotoEndpoint("fault_endpoint")},
        {"AWS_ACCESS_KEY_ID", key["access_key_id"].get<std::string>()},
        {"AWS_SECRET_ACCESS_KEY", key["secret_access_key"].get<std::string>()},
        {"AWS_REGION", seed_["region"].get<std::string>()},
        {"AWS_EC2_METADATA_DISABLED", "true"},
    });
    std::ostringstream out, err;
    ASSERT_EQ(
        RunCommandLine(std::vector<std::string>{"iam", "migrate-policy", "--cluster-name", cluster_,
                                                "--region", seed_["region"].get<std::string>(),
                                                "--account", seed_["account"].get<std::string>()},
                       out, err),
        0)
        << err.str();
    policy_ = Json::parse(out.str());
  }

  void TearDown() override { aws::testing::SetControllerPolicy(nullptr); }

  aws::Environment enforced_;
  Json policy_;
  kube::memory::MemoryClient cluster_objects_{clock_};
};

TEST_F(MigratePlanIamTest, ThePrintedPolicyAllowsEveryRead) {
  aws::testing::SetControllerPolicy(policy_);
  std::ostringstream out, err;
  ASSERT_EQ(
      RunMigratePlan({{cluster_, "", ""}, "", "json", "0"}, enforced_, cluster_objects_, out, err),
      0)
      << err.str();
  const Json decisions = aws::testing::IamDecisions();
  EXPECT_EQ(decisions["denials"], 0) << decisions.dump(2);
  for (const char* action :
       {"eks:DescribeCluster", "eks:ListNodegroups", "eks:DescribeNodegroup", "iam:GetRole",
        "ssm:GetParameter", "ec2:DescribeImages", "ec2:DescribeSubnets",
        "ec2:DescribeSecurityGroups", "sqs:GetQueueUrl", "events:ListRuleNamesByTarget"}) {
    EXPECT_TRUE(decisions["allowed"].contains(action)) << action << ": " << decisions.dump(2);
  }
}

TEST_F(MigratePlanIamTest, WithoutTheRoleReadsThePlanFailsNamingTheAction) {
  Json policy = policy_;
  Json& statements = policy["Statement"];
  const size_t before = statements.size();
  statements.erase(
      std::remove_if(statements.begin(), statements.end(),
                     [](const Json& statement) { return statement["Sid"] == "MigrateReadRoles"; }),
      statements.end());
  ASSERT_EQ(statements.size(), before - 1);
  aws::testing::SetControllerPolicy(policy);
  std::ostringstream out, err;
  EXPECT_EQ(
      RunMigratePlan({{cluster_, "", ""}, "", "text", "0"}, enforced_, cluster_objects_, out, err),
      kExitFailure);
  EXPECT_THAT(err.str(), HasSubstr("iam:GetRole"));
  EXPECT_THAT(err.str(), HasSubstr("cluster " + cluster_));
  EXPECT_THAT(out.str(), IsEmpty());
  const Json decisions = aws::testing::IamDecisions();
  EXPECT_EQ(decisions["denials"], 1) << decisions.dump(2);
}

}  // namespace
}  // namespace karpenter::cli
