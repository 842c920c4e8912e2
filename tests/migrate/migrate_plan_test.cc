// `karpenter migrate plan` against moto's seeded cluster and its two managed node groups: what it
// reads and what it derives, and the clear failure of a cluster that does not exist.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "aws/api/moto_fixture.h"
#include "cli/command_line.h"
#include "cli/migrate_command.h"

namespace karpenter::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

class MigratePlanTest : public aws::testing::MotoTest {};

TEST_F(MigratePlanTest, ReadsTheClusterAndItsNodeGroupsAndDerivesTheirNodePools) {
  std::ostringstream out, err;
  ASSERT_EQ(RunMigratePlan({cluster_, "", "v20240807", "json"}, environment_, out, err), 0)
      << err.str();
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
  for (size_t i = 0; i < report["nodePools"].size(); ++i) {
    const Json& pool = report["nodePools"][i];
    const std::string group = report["nodePoolNodeGroups"][i][0];
    EXPECT_EQ(pool["spec"]["template"]["metadata"]["labels"], seed_["node_groups"][group]["labels"])
        << group;
  }
}

TEST_F(MigratePlanTest, TextNamesTheNodeGroupsAndPrintsTheManifests) {
  std::ostringstream out, err;
  ASSERT_EQ(RunMigratePlan({cluster_, "", "latest", "text"}, environment_, out, err), 0)
      << err.str();
  for (const auto& [name, config] : seed_["node_groups"].items()) {
    EXPECT_THAT(out.str(), HasSubstr(name));
  }
  EXPECT_THAT(out.str(), HasSubstr("authentication mode: CONFIG_MAP"));
  EXPECT_THAT(out.str(), HasSubstr("\"kind\": \"EC2NodeClass\""));
  EXPECT_THAT(out.str(), HasSubstr("\"kind\": \"NodePool\""));
}

TEST_F(MigratePlanTest, AnUnknownClusterIsAClearFailure) {
  std::ostringstream out, err;
  EXPECT_EQ(RunMigratePlan({"no-such-cluster", "", "latest", "text"}, environment_, out, err),
            kExitFailure);
  EXPECT_THAT(out.str(), IsEmpty());
  EXPECT_THAT(err.str(), HasSubstr("cluster no-such-cluster"));
  EXPECT_THAT(err.str(), HasSubstr("ResourceNotFoundException"));
}

TEST_F(MigratePlanTest, NoRegionIsAUsageError) {
  std::ostringstream out, err;
  EXPECT_EQ(RunMigratePlan({cluster_, "", "latest", "text"}, aws::Environment(), out, err),
            kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("no region"));
}

}  // namespace
}  // namespace karpenter::cli
