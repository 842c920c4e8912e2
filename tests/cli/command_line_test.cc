#include "cli/command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/version.h"

namespace karpenter::cli {
namespace {

using testing::HasSubstr;
using testing::Not;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Outcome RunArgs(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  Outcome outcome;
  outcome.exit_code = RunCommandLine(args, out, err);
  outcome.out = out.str();
  outcome.err = err.str();
  return outcome;
}

TEST(CommandLineTest, UnknownCommandNamesItselfAndIsAUsageError) {
  const Outcome outcome = RunArgs({"foo"});
  EXPECT_EQ(outcome.exit_code, kExitUsage);
  EXPECT_THAT(outcome.err, HasSubstr("unknown command \"foo\""));
  EXPECT_THAT(outcome.err, HasSubstr("controller, iam, migrate, plan, simulate, validate"));
  EXPECT_EQ(outcome.out, "");
  // A subcommand's help is its own: `migrate plan --help` prints migrate plan's options.
  const Outcome nested = RunArgs({"migrate", "plan", "--help"});
  EXPECT_EQ(nested.exit_code, 0);
  EXPECT_THAT(nested.out, HasSubstr("--cluster-name"));
  // migrate wants one of its subcommands, and plan its cluster.
  EXPECT_EQ(RunArgs({"migrate"}).exit_code, kExitUsage);
  const Outcome no_cluster = RunArgs({"migrate", "plan"});
  EXPECT_EQ(no_cluster.exit_code, kExitUsage);
  EXPECT_THAT(no_cluster.err, HasSubstr("--cluster-name"));
  const Outcome bad_output = RunArgs({"migrate", "plan", "--cluster-name", "c", "-o", "yaml"});
  EXPECT_EQ(bad_output.exit_code, kExitUsage);
}

TEST(CommandLineTest, NoCommandIsAUsageError) {
  const Outcome outcome = RunArgs({});
  EXPECT_EQ(outcome.exit_code, kExitUsage);
  EXPECT_THAT(outcome.err, HasSubstr("subcommand is required"));
}

TEST(CommandLineTest, UnknownFlagNamesItselfAndIsAUsageError) {
  const Outcome plan = RunArgs({"plan", "--bogus"});
  EXPECT_EQ(plan.exit_code, kExitUsage);
  EXPECT_THAT(plan.err, HasSubstr("--bogus"));
  EXPECT_THAT(plan.err, HasSubstr("karpenter plan --help"));
  const Outcome top = RunArgs({"--bogus"});
  EXPECT_EQ(top.exit_code, kExitUsage);
  EXPECT_THAT(top.err, HasSubstr("--bogus"));
  const Outcome controller = RunArgs({"controller", "--bogus"});
  EXPECT_EQ(controller.exit_code, kExitUsage);
  EXPECT_THAT(controller.err, HasSubstr("--bogus"));
}

TEST(CommandLineTest, MissingArgumentIsAUsageError) {
  const Outcome outcome = RunArgs({"validate"});
  EXPECT_EQ(outcome.exit_code, kExitUsage);
  EXPECT_THAT(outcome.err, HasSubstr("files"));
}

TEST(CommandLineTest, EachCommandHasItsOwnHelp) {
  const Outcome top = RunArgs({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_THAT(top.out, HasSubstr("simulate"));
  EXPECT_THAT(top.out, HasSubstr("validate"));
  const Outcome plan = RunArgs({"plan", "--help"});
  EXPECT_EQ(plan.exit_code, 0);
  EXPECT_THAT(plan.out, HasSubstr("--zones"));
  EXPECT_THAT(plan.out, Not(HasSubstr("--timeline")));
  const Outcome simulate = RunArgs({"simulate", "--help"});
  EXPECT_EQ(simulate.exit_code, 0);
  EXPECT_THAT(simulate.out, HasSubstr("--timeline"));
  EXPECT_THAT(simulate.out, Not(HasSubstr("--forecast")));
  const Outcome validate = RunArgs({"validate", "--help"});
  EXPECT_EQ(validate.exit_code, 0);
  EXPECT_THAT(validate.out, HasSubstr("Validate"));
  const Outcome controller = RunArgs({"controller", "--help"});
  EXPECT_EQ(controller.exit_code, 0);
  EXPECT_THAT(controller.out, HasSubstr("--cluster-name"));
}

TEST(CommandLineTest, IamPolicyPrintsTheScopedPolicyAndRefusesBadInput) {
  const Outcome policy =
      RunArgs({"iam", "policy", "--cluster-name", "demo", "--region", "eu-west-1", "--account",
               "111122223333", "--interruption-queue", "demo"});
  EXPECT_EQ(policy.exit_code, 0) << policy.err;
  EXPECT_THAT(policy.out, HasSubstr("\"Sid\": \"AllowScopedDeletion\""));
  EXPECT_THAT(policy.out, HasSubstr("arn:aws:sqs:eu-west-1:111122223333:demo"));
  const Outcome bad = RunArgs(
      {"iam", "policy", "--cluster-name", "demo", "--region", "eu-west-1", "--account", "12"});
  EXPECT_EQ(bad.exit_code, kExitUsage);
  EXPECT_THAT(bad.err, HasSubstr("--account \"12\""));
  EXPECT_EQ(bad.out, "");
  const Outcome missing =
      RunArgs({"iam", "policy", "--cluster-name", "demo", "--account", "111122223333"});
  EXPECT_EQ(missing.exit_code, kExitUsage);
  EXPECT_THAT(missing.err, HasSubstr("--region"));
  const Outcome too_long = RunArgs({"iam", "policy", "--cluster-name", std::string(90, 'c'),
                                    "--region", "eu-west-1", "--account", "111122223333"});
  EXPECT_EQ(too_long.exit_code, kExitFailure);
  EXPECT_THAT(too_long.err, HasSubstr("over IAM's limit of 6144"));
  const Outcome bare = RunArgs({"iam"});
  EXPECT_EQ(bare.exit_code, kExitUsage);
  const Outcome auth = RunArgs({"iam", "aws-auth", "--cluster-name", "demo", "--account",
                                "111122223333", "--partition", "aws-cn"});
  EXPECT_EQ(auth.exit_code, 0) << auth.err;
  EXPECT_THAT(auth.out,
              HasSubstr("rolearn: arn:aws-cn:iam::111122223333:role/KarpenterNodeRole-demo"));
}

TEST(CommandLineTest, MalformedOptionValuesAreUsageErrors) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"simulate", "--output", "yaml"},
                                             {"simulate", "--duration", "0s"},
                                             {"simulate", "--duration", "soon"},
                                             {"simulate", "--catalog", "/nonexistent/catalog.json"},
                                             {"plan", "--output", "xml"},
                                             {"plan", "--catalog", "fake"}}) {
    const Outcome outcome = RunArgs(args);
    EXPECT_EQ(outcome.exit_code, kExitUsage) << args[1] << " " << args[2] << ": " << outcome.err;
    EXPECT_THAT(outcome.err, HasSubstr(args[1])) << args[1];
    EXPECT_EQ(outcome.out, "");
  }
}

TEST(CommandLineTest, VersionComesFromTheRepository) {
  const Outcome outcome = RunArgs({"--version"});
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("karpenter " + std::string(Version())));
  EXPECT_THAT(outcome.out, HasSubstr("commit "));
  std::ifstream file(KARPENTER_SOURCE_DIR "/VERSION");
  std::string version;
  std::getline(file, version);
  EXPECT_EQ(Version(), version);
}

TEST(CommandLineTest, AFailedRunExitsOne) {
  const std::string path = testing::TempDir() + "/command-line-bad.yaml";
  std::ofstream(path) << "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\n"
                         "spec: {template: {spec: {nodeClassRef: {}}}}\n";
  const Outcome outcome = RunArgs({"validate", path});
  EXPECT_EQ(outcome.exit_code, kExitFailure) << outcome.out << outcome.err;
}

}  // namespace
}  // namespace karpenter::cli
