#include "api/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/manifest.h"
#include "support/matchers.h"

namespace karpenter::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---- the corpus: every file in valid/ decodes cleanly, every file in invalid/ fails with the
// ---- message its first line names ("# expect: <substring>").

std::filesystem::path CorpusDir(std::string_view name) {
  return std::filesystem::path(KARPENTER_TESTDATA) / "validation" / name;
}

std::vector<std::string> CorpusFiles(std::string_view name) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(CorpusDir(name), error)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string TestName(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.rfind('.'));
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
  return name;
}

class ValidCorpusTest : public testing::TestWithParam<std::string> {};

TEST_P(ValidCorpusTest, Validates) {
  const DecodeOutcome outcome = LoadManifestFile((CorpusDir("valid") / GetParam()).string());
  EXPECT_THAT(outcome.errors, IsEmpty());
  const Manifest& m = outcome.manifest;
  EXPECT_GT(m.node_pools.size() + m.node_claims.size() + m.node_classes.size() +
                m.node_overlays.size() + m.capacity_buffers.size(),
            0u);
  EXPECT_THAT(m.ignored, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Corpus, ValidCorpusTest, testing::ValuesIn(CorpusFiles("valid")),
                         TestName);

class InvalidCorpusTest : public testing::TestWithParam<std::string> {};

TEST_P(InvalidCorpusTest, FailsWithTheExpectedMessage) {
  const std::filesystem::path path = CorpusDir("invalid") / GetParam();
  std::ifstream file(path);
  std::string first_line;
  std::getline(file, first_line);
  constexpr std::string_view kPrefix = "# expect: ";
  ASSERT_TRUE(first_line.starts_with(kPrefix)) << "first line must be `# expect: ...`";
  const std::string expected = first_line.substr(kPrefix.size());

  const DecodeOutcome outcome = LoadManifestFile(path.string());
  ASSERT_FALSE(outcome.errors.empty()) << "accepted an invalid object";
  const bool found = std::any_of(outcome.errors.begin(), outcome.errors.end(),
                                 [&](const std::string& e) { return e.find(expected) != e.npos; });
  EXPECT_TRUE(found) << "expected a problem containing: " << expected << "\ngot:\n"
                     << testing::PrintToString(outcome.errors);
  for (const std::string& error : outcome.errors) {
    EXPECT_THAT(error, testing::StartsWith(path.string() + ":"));
  }
  const Manifest& m = outcome.manifest;
  EXPECT_EQ(m.node_pools.size() + m.node_claims.size() + m.node_classes.size(), 0u)
      << "one object per file, and it must be rejected";
}

INSTANTIATE_TEST_SUITE_P(Corpus, InvalidCorpusTest, testing::ValuesIn(CorpusFiles("invalid")),
                         TestName);

TEST(CorpusTest, IsNotEmpty) {
  EXPECT_GE(CorpusFiles("valid").size(), 15u);
  EXPECT_GE(CorpusFiles("invalid").size(), 100u);
}

// ---- syntax helpers ----------------------------------------------------------------------------

TEST(LabelSyntaxTest, QualifiedNames) {
  for (const char* key : {"app", "example.com/app", "a", "A_b.c-9", "kubernetes.io/arch",
                          "node.kubernetes.io/instance-type"}) {
    EXPECT_TRUE(IsQualifiedName(key)) << key;
  }
  for (const char* key :
       {"", "-a", "a-", "a b", "Example.com/app", "example.com/", "/app", "a/b/c", "example..com/x",
        "x1234567890123456789012345678901234567890123456789012345678901234"}) {
    EXPECT_FALSE(IsQualifiedName(key)) << key;
  }
}

TEST(LabelSyntaxTest, LabelValues) {
  EXPECT_TRUE(IsLabelValue(""));
  EXPECT_TRUE(IsLabelValue("on-demand"));
  EXPECT_TRUE(IsLabelValue("m5.large"));
  EXPECT_TRUE(IsLabelValue(std::string(63, 'a')));
  EXPECT_FALSE(IsLabelValue(std::string(64, 'a')));
  EXPECT_FALSE(IsLabelValue("a/b"));
  EXPECT_FALSE(IsLabelValue("_a"));
}

TEST(LabelSyntaxTest, DnsSubdomains) {
  EXPECT_TRUE(IsDnsSubdomain("default"));
  EXPECT_TRUE(IsDnsSubdomain("gpu-pool.team-a"));
  EXPECT_FALSE(IsDnsSubdomain(""));
  EXPECT_FALSE(IsDnsSubdomain("Default"));
  EXPECT_FALSE(IsDnsSubdomain("a_b"));
  EXPECT_FALSE(IsDnsSubdomain("a."));
  EXPECT_FALSE(IsDnsSubdomain(std::string(254, 'a')));
}

TEST(LabelSyntaxTest, RestrictedKeys) {
  for (const char* key :
       {"karpenter.sh/capacity-type", "kubernetes.io/arch", "kubernetes.io/os",
        "topology.kubernetes.io/zone", "node.kubernetes.io/instance-type",
        "node-restriction.kubernetes.io/team", "example.node.kubernetes.io/x",
        "karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-gpu-count",
        "topology.k8s.aws/zone-id", "kops.k8s.io/instancegroup", "example.com/team", "team"}) {
    EXPECT_EQ(RestrictedLabelReason(key), "") << key;
  }
  EXPECT_EQ(RestrictedLabelReason("karpenter.sh/nodepool"),
            R"(label "karpenter.sh/nodepool" is restricted)");
  EXPECT_EQ(RestrictedLabelReason("kubernetes.io/hostname"),
            R"(label "kubernetes.io/hostname" is restricted)");
  EXPECT_THAT(RestrictedLabelReason("karpenter.sh/registered"), HasSubstr("karpenter.sh"));
  EXPECT_THAT(RestrictedLabelReason("team.karpenter.sh/x"), HasSubstr("karpenter.sh"));
  EXPECT_THAT(RestrictedLabelReason("kubernetes.io/role"), HasSubstr("kubernetes.io"));
  EXPECT_THAT(RestrictedLabelReason("x.k8s.io/y"), HasSubstr("k8s.io"));
  EXPECT_THAT(RestrictedLabelReason("karpenter.k8s.aws/anything"), HasSubstr("karpenter.k8s.aws"));
}

TEST(DurationSyntaxTest, Expiry) {
  for (const char* text : {"720h", "1h30m", "90s", "0s", "1h1m1s", "Never"}) {
    EXPECT_THAT(CheckDurationSyntax(text, DurationSyntax::kExpiry), IsOk()) << text;
  }
  for (const char* text : {"", "1.5h", "30d", "h", "10", "never", "500ms", "-1h", "1h "}) {
    EXPECT_FALSE(CheckDurationSyntax(text, DurationSyntax::kExpiry).ok()) << text;
  }
  EXPECT_THAT(CheckDurationSyntax("48h", DurationSyntax::kGracePeriod), IsOk());
  EXPECT_FALSE(CheckDurationSyntax("Never", DurationSyntax::kGracePeriod).ok());
  EXPECT_THAT(CheckDurationSyntax("1.5h", DurationSyntax::kGo), IsOk());
}

TEST(DurationSyntaxTest, BudgetWindow) {
  for (const char* text : {"8h", "30m", "1h30m", "1h30m0s", "10m0s", "0h"}) {
    EXPECT_THAT(CheckDurationSyntax(text, DurationSyntax::kBudgetWindow), IsOk()) << text;
  }
  for (const char* text : {"", "30s", "1h30s", "30m1h", "1h1h", "1.5h", "Never", "1d", "0s"}) {
    EXPECT_FALSE(CheckDurationSyntax(text, DurationSyntax::kBudgetWindow).ok()) << text;
  }
}

TEST(VolumeSizeSyntaxTest, UnitsAndRanges) {
  for (const char* text : {"1Gi", "20Gi", "59000Gi", "64000G", "1Ti", "58Ti", "64T"}) {
    EXPECT_THAT(CheckVolumeSizeSyntax(text), IsOk()) << text;
  }
  for (const char* text : {"", "20", "0Gi", "020Gi", "59001Gi", "64001G", "59Ti", "65T", "4096Mi",
                           "1.5Gi", "Gi", "-1Gi"}) {
    EXPECT_FALSE(CheckVolumeSizeSyntax(text).ok()) << text;
  }
}

// ---- object rules, on objects built in code ----------------------------------------------------

NodePool ValidPool() {
  NodePool pool;
  pool.metadata.name = "default";
  pool.spec.template_.spec.requirements = {
      {"kubernetes.io/arch", NodeSelectorOperator::kIn, {"amd64"}, std::nullopt}};
  pool.spec.template_.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  return pool;
}

TEST(ValidateNodePoolTest, AcceptsAMinimalPool) {
  EXPECT_THAT(ValidateNodePool(ValidPool()), IsEmpty());
}

TEST(ValidateNodePoolTest, ReportsEveryProblemWithItsPath) {
  NodePool pool = ValidPool();
  pool.spec.template_.spec.requirements.push_back(
      {"karpenter.k8s.aws/instance-cpu", NodeSelectorOperator::kGte, {}, 0});
  pool.spec.template_.spec.node_class_ref.kind.clear();
  pool.spec.template_.spec.taints.push_back({"", "", TaintEffect::kNoSchedule});
  pool.spec.weight = 200;
  Budget budget;
  budget.nodes = "5%%";
  budget.schedule = "@daily";
  pool.spec.disruption.budgets.push_back(budget);
  EXPECT_THAT(
      ValidateNodePool(pool),
      ElementsAre(
          "spec.template.spec.requirements[1].values: operator Gte needs exactly one "
          "non-negative integer value",
          "spec.template.spec.requirements[1].minValues: must be between 1 and 50, got 0",
          R"(spec.template.spec.taints[0].key: invalid taint key "": must be a qualified name)",
          "spec.template.spec.nodeClassRef.kind: required",
          R"(spec.disruption.budgets[0].nodes: invalid value "5%%": must be a node count such as "5" or a percentage such as "10%")",
          "spec.disruption.budgets[0]: schedule and duration must be set together",
          "spec.weight: must be between 1 and 100, got 200"));
}

TEST(ValidateNodePoolTest, MinValuesCountsInValuesOnly) {
  NodePool pool = ValidPool();
  pool.spec.template_.spec.requirements = {
      {"karpenter.k8s.aws/instance-family", NodeSelectorOperator::kExists, {}, 5},
      {"karpenter.k8s.aws/instance-family", NodeSelectorOperator::kNotIn, {"t2"}, 3},
      {"karpenter.k8s.aws/instance-category", NodeSelectorOperator::kIn, {"c", "m"}, 2}};
  EXPECT_THAT(ValidateNodePool(pool), IsEmpty());
  pool.spec.template_.spec.requirements[2].min_values = 3;
  EXPECT_THAT(ValidateNodePool(pool),
              ElementsAre("spec.template.spec.requirements[2].values: has 2 values, fewer than "
                          "minValues 3"));
}

AmiSelectorTerm AliasTerm(std::string alias) {
  AmiSelectorTerm term;
  term.alias = std::move(alias);
  return term;
}

EC2NodeClass ValidNodeClass() {
  EC2NodeClass node_class;
  node_class.metadata.name = "default";
  node_class.spec.role = "KarpenterNodeRole-demo";
  node_class.spec.ami_selector_terms = {AliasTerm("al2023@latest")};
  node_class.spec.subnet_selector_terms.emplace_back().tags = {{"karpenter.sh/discovery", "demo"}};
  node_class.spec.security_group_selector_terms.emplace_back().id = "sg-0123";
  return node_class;
}

TEST(ValidateEC2NodeClassTest, AcceptsAMinimalNodeClass) {
  EXPECT_THAT(ValidateEC2NodeClass(ValidNodeClass()), IsEmpty());
}

TEST(ValidateEC2NodeClassTest, AliasFamilyAndAmiFamily) {
  EC2NodeClass node_class = ValidNodeClass();
  for (const char* family : {"AL2023", "Custom"}) {
    node_class.spec.ami_family = family;
    EXPECT_THAT(ValidateEC2NodeClass(node_class), IsEmpty()) << family;
  }
  node_class.spec.ami_family = "Bottlerocket";
  EXPECT_THAT(ValidateEC2NodeClass(node_class),
              ElementsAre(HasSubstr(R"(spec.amiFamily: must be "AL2023" or "Custom")")));
  node_class.spec.ami_selector_terms = {AliasTerm("bottlerocket@v1.10.0")};
  EXPECT_THAT(ValidateEC2NodeClass(node_class), IsEmpty());
  node_class.spec.ami_selector_terms = {AliasTerm("windows2019@latest")};
  node_class.spec.ami_family.clear();
  EXPECT_THAT(ValidateEC2NodeClass(node_class), IsEmpty());
}

TEST(ValidateEC2NodeClassTest, KubeletRules) {
  EC2NodeClass node_class = ValidNodeClass();
  KubeletConfiguration& kubelet = node_class.spec.kubelet.emplace();
  kubelet.image_gc_high_threshold_percent = 80;
  kubelet.image_gc_low_threshold_percent = 80;
  kubelet.eviction_soft = {{"memory.available", "5%"}};
  kubelet.eviction_soft_grace_period = {{"memory.available", "30s"}};
  EXPECT_THAT(ValidateEC2NodeClass(node_class),
              ElementsAre("spec.kubelet.imageGCHighThresholdPercent: must be greater than "
                          "imageGCLowThresholdPercent (80 <= 80)"));
  kubelet.image_gc_high_threshold_percent = 81;
  EXPECT_THAT(ValidateEC2NodeClass(node_class), IsEmpty());
}

}  // namespace
}  // namespace karpenter::api
