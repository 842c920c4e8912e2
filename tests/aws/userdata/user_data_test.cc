#include "aws/userdata/user_data.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>

#include "aws/userdata/mime.h"
#include "aws/userdata/toml.h"
#include "support/golden.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

// The user data tests' files: tests/testdata/aws/userdata/NAME.
std::string ReadUserData(std::string_view name) {
  return support::ReadTestData("aws/userdata/" + std::string(name));
}
void ExpectUserDataGolden(std::string_view name, const std::string& actual) {
  support::ExpectGolden("aws/userdata/" + std::string(name), actual);
}

api::Taint MakeTaint(std::string key, std::string value, api::TaintEffect effect) {
  api::Taint taint;
  taint.key = std::move(key);
  taint.value = std::move(value);
  taint.effect = effect;
  return taint;
}

NodeBootstrap Bootstrap(std::string family) {
  NodeBootstrap bootstrap;
  bootstrap.node_class = "default";
  bootstrap.cluster_name = "test-cluster";
  bootstrap.cluster_endpoint = "https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com";
  bootstrap.certificate_authority =
      "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUN0ZXN0Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";
  bootstrap.service_cidr = "10.100.0.0/16";
  bootstrap.ami_family = std::move(family);
  bootstrap.labels = {{"karpenter.sh/capacity-type", "spot"},
                      {"karpenter.sh/nodepool", "default"},
                      {"node.kubernetes.io/instance-type", "m5.large"},
                      {"team", "ml"}};
  // Out of order on purpose: the output sorts them.
  bootstrap.taints = {MakeTaint("example.com/startup", "", api::TaintEffect::kNoSchedule),
                      MakeTaint("dedicated", "gpu", api::TaintEffect::kNoSchedule)};
  bootstrap.max_pods = 29;
  return bootstrap;
}

api::KubeletConfiguration FullKubelet() {
  api::KubeletConfiguration kubelet;
  kubelet.max_pods = 110;  // bootstrap.max_pods wins
  kubelet.pods_per_core = 10;
  kubelet.system_reserved = {{"cpu", "100m"}, {"memory", "100Mi"}};
  kubelet.kube_reserved = {{"cpu", "200m"}, {"ephemeral-storage", "1Gi"}, {"memory", "1Gi"}};
  kubelet.eviction_hard = {{"memory.available", "5%"}, {"nodefs.available", "10%"}};
  kubelet.eviction_soft = {{"memory.available", "10%"}};
  kubelet.eviction_soft_grace_period = {{"memory.available", "1m30s"}};
  kubelet.eviction_max_pod_grace_period = 60;
  kubelet.image_gc_high_threshold_percent = 85;
  kubelet.image_gc_low_threshold_percent = 80;
  kubelet.cpu_cfs_quota = true;
  kubelet.cluster_dns = {"10.0.0.10"};
  return kubelet;
}

std::string Render(const NodeBootstrap& bootstrap) {
  auto rendered = RenderUserData(bootstrap);
  EXPECT_THAT(rendered, IsOk());
  return rendered.ok() ? *rendered : "";
}

// What the rendered user data makes the node register with is what the bootstrap asked for.
void ExpectRoundTrip(const NodeBootstrap& bootstrap, const std::string& user_data) {
  auto registration = ParseNodeRegistration(user_data);
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->cluster_name, bootstrap.cluster_name);
  for (const auto& [key, value] : bootstrap.labels) {
    EXPECT_EQ(registration->labels[key], value) << key;
  }
  EXPECT_EQ(registration->taints, RegistrationTaints(bootstrap));
  EXPECT_EQ(registration->max_pods, bootstrap.max_pods);
}

struct GoldenCase {
  const char* name;    // the golden file
  const char* family;  // amiFamily
  bool full_kubelet;
  const char* user_data_file;  // "" for none
};

std::ostream& operator<<(std::ostream& out, const GoldenCase& param) { return out << param.name; }

class UserDataGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(UserDataGoldenTest, RendersTheGoldenFileAndRegistersAsAsked) {
  const GoldenCase& param = GetParam();
  NodeBootstrap bootstrap = Bootstrap(param.family);
  if (param.full_kubelet) {
    bootstrap.kubelet = FullKubelet();
    bootstrap.instance_store_raid0 = true;
  }
  if (*param.user_data_file != '\0') {
    bootstrap.custom_user_data = ReadUserData(param.user_data_file);
    ASSERT_FALSE(bootstrap.custom_user_data.empty()) << param.user_data_file;
  }
  const std::string user_data = Render(bootstrap);
  ExpectUserDataGolden(param.name, user_data);
  EXPECT_EQ(Render(bootstrap), user_data) << "not deterministic";
  if (bootstrap.ami_family != "Custom") ExpectRoundTrip(bootstrap, user_data);
}

INSTANTIATE_TEST_SUITE_P(
    Families, UserDataGoldenTest,
    ::testing::Values(
        GoldenCase{"al2023.golden", "AL2023", false, ""},
        GoldenCase{"al2023_kubelet.golden", "AL2023", true, ""},
        GoldenCase{"al2023_user_mime.golden", "AL2023", false, "user_mime.txt"},
        GoldenCase{"al2023_user_nodeconfig.golden", "AL2023", false, "user_nodeconfig.yaml"},
        GoldenCase{"al2023_user_script.golden", "AL2023", false, "user_script.sh"},
        GoldenCase{"al2.golden", "AL2", false, ""},
        GoldenCase{"al2_kubelet.golden", "AL2", true, ""},
        GoldenCase{"al2_user_mime.golden", "AL2", false, "user_mime.txt"},
        GoldenCase{"al2_user_script.golden", "AL2", false, "user_script.sh"},
        GoldenCase{"bottlerocket.golden", "Bottlerocket", false, ""},
        GoldenCase{"bottlerocket_kubelet.golden", "Bottlerocket", true, ""},
        GoldenCase{"bottlerocket_user_toml.golden", "Bottlerocket", false,
                   "user_bottlerocket.toml"},
        GoldenCase{"windows2022.golden", "Windows2022", false, ""},
        GoldenCase{"windows2019_kubelet.golden", "Windows2019", true, ""},
        GoldenCase{"windows2025_user_script.golden", "Windows2025", false, "user_powershell.ps1"},
        GoldenCase{"custom_user_nodeconfig.golden", "Custom", false, "user_nodeconfig.yaml"}),
    [](const ::testing::TestParamInfo<GoldenCase>& info) {
      std::string name = info.param.name;
      name = name.substr(0, name.find('.'));
      return name;
    });

TEST(UserDataTest, EveryFamilyButCustomRegistersUnregistered) {
  for (const char* family : {"AL2", "AL2023", "Bottlerocket", "Windows2022"}) {
    NodeBootstrap bootstrap = Bootstrap(family);
    bootstrap.taints.clear();
    auto registration = ParseNodeRegistration(Render(bootstrap));
    ASSERT_THAT(registration, IsOk()) << family << ": " << registration.error().message;
    EXPECT_EQ(registration->taints,
              std::vector<api::Taint>{
                  MakeTaint("karpenter.sh/unregistered", "", api::TaintEffect::kNoExecute)})
        << family;
  }
  NodeBootstrap custom = Bootstrap("Custom");
  EXPECT_TRUE(RegistrationTaints(custom) ==
              (std::vector<api::Taint>{
                  MakeTaint("dedicated", "gpu", api::TaintEffect::kNoSchedule),
                  MakeTaint("example.com/startup", "", api::TaintEffect::kNoSchedule)}));
}

// A NodeConfig that yaml-cpp's LoadAll would loop on forever (found by the user-data fuzzer) is
// an error.
TEST(UserDataTest, ANodeConfigWithAStrayCommaIsAnErrorNotAHang) {
  auto registration = ParseNodeRegistration(
      "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n%e\n  ,x\n");
  ASSERT_FALSE(registration.ok());
  EXPECT_THAT(registration.error().message, testing::HasSubstr("YAML syntax error"));
}

TEST(UserDataTest, CustomIsTheUsersDataUnchanged) {
  NodeBootstrap bootstrap = Bootstrap("Custom");
  bootstrap.custom_user_data =
      "#!/bin/bash\n/etc/eks/bootstrap.sh 'other' --kubelet-extra-args "
      "'--node-labels=a=b'\n";
  EXPECT_EQ(Render(bootstrap), bootstrap.custom_user_data);
  auto registration = ParseNodeRegistration(bootstrap.custom_user_data);
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->cluster_name, "other");
  EXPECT_EQ(registration->labels, (api::Labels{{"a", "b"}}));
  EXPECT_TRUE(registration->taints.empty());

  bootstrap.custom_user_data = "";
  EXPECT_EQ(Render(bootstrap), "");
  auto empty = ParseNodeRegistration("");
  ASSERT_THAT(empty, IsOk());
  EXPECT_TRUE(empty->labels.empty());
  EXPECT_FALSE(empty->max_pods.has_value());
}

TEST(UserDataTest, Al2023KeepsTheUsersPartsFirstAndUnchanged) {
  NodeBootstrap bootstrap = Bootstrap("AL2023");
  bootstrap.custom_user_data = ReadUserData("user_mime.txt");
  auto user_parts = ParseMime(bootstrap.custom_user_data);
  ASSERT_THAT(user_parts, IsOk());
  auto parts = ParseMime(Render(bootstrap));
  ASSERT_THAT(parts, IsOk());
  ASSERT_EQ(parts->size(), user_parts->size() + 1);
  for (size_t i = 0; i < user_parts->size(); ++i) {
    EXPECT_EQ((*parts)[i].headers, (*user_parts)[i].headers);
    EXPECT_EQ((*parts)[i].body, (*user_parts)[i].body);
  }
  EXPECT_EQ(parts->back().MediaType(), "application/node.eks.aws");
  // The user's NodeConfig labels the node too.
  auto registration = ParseNodeRegistration(Render(bootstrap));
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->labels["user.example.com/team"], "search");
}

TEST(UserDataTest, Al2023OursWinsOverTheUsersNodeConfig) {
  NodeBootstrap bootstrap = Bootstrap("AL2023");
  bootstrap.custom_user_data = ReadUserData("user_nodeconfig.yaml");  // maxPods: 5
  auto registration = ParseNodeRegistration(Render(bootstrap));
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->max_pods, 29);
  EXPECT_EQ(registration->labels["user.example.com/tier"], "batch");
  // Without ours, the user's value stands.
  auto users = ParseNodeRegistration(bootstrap.custom_user_data);
  ASSERT_THAT(users, IsOk());
  EXPECT_EQ(users->max_pods, 5);
}

TEST(UserDataTest, KubeletFlagsWinOverKubeletConfig) {
  auto registration = ParseNodeRegistration(R"(apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    flags:
      - --max-pods=7
      - --register-with-taints=a=b:NoSchedule
    config:
      maxPods: 50
      registerWithTaints:
        - key: c
          effect: NoExecute
)");
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->max_pods, 7);
  EXPECT_EQ(registration->taints,
            std::vector<api::Taint>{MakeTaint("a", "b", api::TaintEffect::kNoSchedule)});
}

TEST(UserDataTest, BottlerocketKeepsTheUsersSettingsAndOursWin) {
  NodeBootstrap bootstrap = Bootstrap("Bottlerocket");
  bootstrap.custom_user_data = ReadUserData("user_bottlerocket.toml");
  auto root = ParseToml(Render(bootstrap));
  ASSERT_THAT(root, IsOk());
  const TomlTable* kubernetes = FindTomlTable(*root, {"settings", "kubernetes"});
  ASSERT_NE(kubernetes, nullptr);
  EXPECT_EQ(std::get<std::string>(kubernetes->at("cluster-name").value), "test-cluster");
  EXPECT_EQ(std::get<std::string>(kubernetes->at("cluster-dns-ip").value), "10.100.0.10");
  EXPECT_EQ(std::get<TomlArray>(kubernetes->at("allowed-unsafe-sysctls").value).size(), 2u);
  const TomlTable* admin = FindTomlTable(*root, {"settings", "host-containers", "admin"});
  ASSERT_NE(admin, nullptr);
  EXPECT_TRUE(std::get<bool>(admin->at("enabled").value));
  auto registration = ParseNodeRegistration(Render(bootstrap));
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->labels["user.example.com/team"], "storage");
  EXPECT_EQ(registration->labels["team"], "ml");
}

// nodeadm decodes YAML through JSON into string fields: strings that look like numbers or booleans
// must stay strings.
TEST(UserDataTest, Al2023QuotesStringsThatLookTyped) {
  NodeBootstrap bootstrap = Bootstrap("AL2023");
  bootstrap.cluster_name = "2024";
  bootstrap.taints = {MakeTaint("flag", "true", api::TaintEffect::kNoSchedule)};
  bootstrap.kubelet = api::KubeletConfiguration{};
  bootstrap.kubelet->kube_reserved = {{"cpu", "1"}, {"memory", "Mi"}};
  const std::string text = Render(bootstrap);
  EXPECT_NE(text.find("name: \"2024\""), std::string::npos) << text;
  EXPECT_NE(text.find("value: \"true\""), std::string::npos) << text;
  EXPECT_NE(text.find("cpu: \"1\""), std::string::npos) << text;
  EXPECT_NE(text.find("memory: Mi"), std::string::npos) << text;
  ExpectRoundTrip(bootstrap, text);
}

TEST(UserDataTest, ClusterDnsComesFromKubeletOrTheServiceCidr) {
  NodeBootstrap bootstrap = Bootstrap("AL2");
  bootstrap.service_cidr = "172.20.0.0/16";
  EXPECT_NE(Render(bootstrap).find("--dns-cluster-ip '172.20.0.10'"), std::string::npos);
  EXPECT_EQ(Render(bootstrap).find("--ip-family"), std::string::npos);
  bootstrap.service_cidr = "fd00:10:96::/108";
  EXPECT_NE(Render(bootstrap).find("--dns-cluster-ip 'fd00:10:96::a'"), std::string::npos);
  EXPECT_NE(Render(bootstrap).find("--ip-family ipv6"), std::string::npos);
  bootstrap.kubelet = api::KubeletConfiguration{};
  bootstrap.kubelet->cluster_dns = {"10.0.0.53"};
  EXPECT_NE(Render(bootstrap).find("--dns-cluster-ip '10.0.0.53'"), std::string::npos);
  bootstrap.kubelet.reset();
  bootstrap.service_cidr = "";
  EXPECT_EQ(Render(bootstrap).find("--dns-cluster-ip"), std::string::npos);
}

TEST(UserDataTest, MaxPodsFallsBackToTheKubeletConfiguration) {
  NodeBootstrap bootstrap = Bootstrap("AL2023");
  bootstrap.max_pods.reset();
  auto none = ParseNodeRegistration(Render(bootstrap));
  ASSERT_THAT(none, IsOk());
  EXPECT_FALSE(none->max_pods.has_value());
  bootstrap.kubelet = api::KubeletConfiguration{};
  bootstrap.kubelet->max_pods = 42;
  auto from_kubelet = ParseNodeRegistration(Render(bootstrap));
  ASSERT_THAT(from_kubelet, IsOk());
  EXPECT_EQ(from_kubelet->max_pods, 42);
}

TEST(UserDataTest, ReadsBase64EncodedParts) {
  NodeBootstrap bootstrap = Bootstrap("AL2023");
  auto parts = ParseMime(Render(bootstrap));
  ASSERT_THAT(parts, IsOk());
  MimePart& ours = parts->back();
  ours.headers.emplace_back("Content-Transfer-Encoding", "base64");
  ours.body =
      "YXBpVmVyc2lvbjogbm9kZS5la3MuYXdzL3YxYWxwaGExCmtpbmQ6IE5vZGVDb25maWcKc3BlYzoKICBrdWJl"
      "bGV0OgogICAgY29uZmlnOgogICAgICBtYXhQb2RzOiAzCg==";  // maxPods: 3
  auto registration = ParseNodeRegistration(RenderMultipart(*parts, "x"));
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->max_pods, 3);
}

struct ErrorCase {
  const char* name;
  const char* family;
  const char* user_data;
  const char* expected;  // a substring of the message
};

std::ostream& operator<<(std::ostream& out, const ErrorCase& param) { return out << param.name; }

class UserDataErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(UserDataErrorTest, NamesTheFieldAndTheReason) {
  NodeBootstrap bootstrap = Bootstrap(GetParam().family);
  bootstrap.custom_user_data = GetParam().user_data;
  auto rendered = RenderUserData(bootstrap);
  ASSERT_FALSE(rendered.ok()) << *rendered;
  EXPECT_NE(rendered.error().message.find(GetParam().expected), std::string::npos)
      << rendered.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, UserDataErrorTest,
    ::testing::Values(
        ErrorCase{"unclosed_mime", "AL2023",
                  "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n--b\n\n"
                  "echo hi\n",
                  "EC2NodeClass default: spec.userData: invalid MIME multipart document: no "
                  "closing delimiter \"--b--\""},
        ErrorCase{"mime_without_boundary", "AL2",
                  "MIME-Version: 1.0\nContent-Type: multipart/mixed\n\n--b\n\nhi\n--b--\n",
                  "EC2NodeClass default: spec.userData: invalid MIME multipart document: "
                  "Content-Type \"multipart/mixed\" has no boundary parameter"},
        ErrorCase{"unterminated_toml_array", "Bottlerocket",
                  "[settings.kubernetes]\nmax-pods = 10\nnode-labels = [\n",
                  "EC2NodeClass default: spec.userData: invalid TOML: line 3: unterminated array"},
        ErrorCase{"toml_without_equals", "Bottlerocket",
                  "[settings.kubernetes]\ncluster-name \"x\"\n",
                  "EC2NodeClass default: spec.userData: invalid TOML: line 2: expected '=' after "
                  "key \"cluster-name\""},
        ErrorCase{"unknown_family", "Ubuntu", "",
                  "EC2NodeClass default: spec.amiFamily \"Ubuntu\": no user data"}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) { return std::string(info.param.name); });

TEST(UserDataTest, AnEmptyClusterNameIsAnError) {
  NodeBootstrap bootstrap = Bootstrap("AL2023");
  bootstrap.cluster_name = "";
  auto rendered = RenderUserData(bootstrap);
  ASSERT_FALSE(rendered.ok());
  EXPECT_NE(rendered.error().message.find("cluster name is empty"), std::string::npos);
}

// Every prefix of every golden file is either read or rejected with an Error, never a crash.
TEST(ParseNodeRegistrationTest, TruncatedUserDataIsReadOrRejected) {
  for (const char* name : {"al2023_kubelet.golden", "al2023_user_mime.golden", "al2_kubelet.golden",
                           "al2_user_script.golden", "bottlerocket_user_toml.golden",
                           "windows2025_user_script.golden"}) {
    const std::string text = ReadUserData(name);
    ASSERT_FALSE(text.empty()) << name;
    size_t rejected = 0;
    for (size_t length = 0; length <= text.size(); length += 3) {
      auto registration = ParseNodeRegistration(text.substr(0, length));
      if (!registration.ok()) {
        ++rejected;
        EXPECT_EQ(registration.error().message.rfind("user data: ", 0), 0u)
            << registration.error().message;
      }
    }
    EXPECT_THAT(ParseNodeRegistration(text), IsOk()) << name;
    if (std::string_view(name).rfind("al2023", 0) == 0) {
      EXPECT_GT(rejected, 0u) << name;  // a cut-off MIME document has no closing delimiter
    }
  }
}

TEST(UserDataTest, LeadingBlankLinesBeforeAMimeDocumentAreIgnored) {
  NodeBootstrap bootstrap = Bootstrap("AL2023");
  bootstrap.custom_user_data = "\n\n" + ReadUserData("user_mime.txt");
  auto registration = ParseNodeRegistration(Render(bootstrap));
  ASSERT_THAT(registration, IsOk());
  EXPECT_EQ(registration->labels["user.example.com/team"], "search");
}

TEST(ParseNodeRegistrationTest, ReportsMalformedRegistrations) {
  auto bad_taint = ParseNodeRegistration(
      "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args "
      "'--register-with-taints=a=b:Nope'\n");
  ASSERT_FALSE(bad_taint.ok());
  EXPECT_NE(bad_taint.error().message.find("unknown effect \"Nope\""), std::string::npos)
      << bad_taint.error().message;
  auto bad_mime = ParseNodeRegistration("MIME-Version: 1.0\nContent-Type: multipart/mixed\n\nx\n");
  ASSERT_FALSE(bad_mime.ok());
  EXPECT_NE(bad_mime.error().message.find("no boundary"), std::string::npos);
  auto bad_toml = ParseNodeRegistration("[settings.kubernetes]\nmax-pods = \"ten\"\n");
  ASSERT_FALSE(bad_toml.ok());
  EXPECT_NE(bad_toml.error().message.find("max-pods: expected an integer"), std::string::npos)
      << bad_toml.error().message;
  auto bad_quote = ParseNodeRegistration("#!/bin/bash\n/etc/eks/bootstrap.sh 'c\n");
  ASSERT_FALSE(bad_quote.ok());
  EXPECT_NE(bad_quote.error().message.find("unterminated"), std::string::npos);
}

}  // namespace
}  // namespace karpenter::aws
