#include "operator/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "support/matchers.h"
#include "support/param_name.h"

namespace karpenter::op {
namespace {

using std::chrono::seconds;
using testing::HasSubstr;

using Env = std::map<std::string, std::string, std::less<>>;

Getenv From(const Env& env) {
  return [env](std::string_view name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

Result<Options> Parse(const std::vector<std::string>& args, const Env& env = {}) {
  return ParseOptions(args, From(env));
}

// Most tests use the simulated cloud, which needs no cluster name.
Options ParseSim(std::vector<std::string> args, const Env& env = {}) {
  args.insert(args.begin(), "--cloud-provider=sim");
  Result<Options> options = Parse(args, env);
  EXPECT_THAT(options, IsOk());
  return options.ok() ? *options : Options{};
}

std::string ErrorOf(const std::vector<std::string>& args, const Env& env = {}) {
  Result<Options> options = Parse(args, env);
  EXPECT_FALSE(options.ok());
  return options.ok() ? "" : options.error().message;
}

TEST(OptionsTest, DefaultsAreUpstreams) {
  Result<Options> parsed = Parse({}, {{"CLUSTER_NAME", "prod"}});
  ASSERT_THAT(parsed, IsOk());
  const Options& o = *parsed;
  EXPECT_EQ(o.cloud_provider, CloudProviderKind::kAws);
  EXPECT_EQ(o.catalog, "aws");
  EXPECT_EQ(o.kubeconfig, "");
  EXPECT_EQ(o.cluster_name, "prod");
  EXPECT_EQ(o.cluster_endpoint, "");
  EXPECT_EQ(o.cluster_ca_bundle, "");
  EXPECT_EQ(o.aws_region, "");
  EXPECT_FALSE(o.isolated_vpc);
  EXPECT_EQ(o.interruption_queue, "");
  EXPECT_EQ(o.reserved_enis, 0);
  EXPECT_DOUBLE_EQ(o.vm_memory_overhead_percent, 0.075);
  EXPECT_EQ(o.batch_max_duration, Duration::Of(seconds(10)));
  EXPECT_EQ(o.batch_idle_duration, Duration::Of(seconds(1)));
  EXPECT_EQ(o.preference_policy, PreferencePolicy::kRespect);
  EXPECT_EQ(o.min_values_policy, MinValuesPolicy::kStrict);
  EXPECT_EQ(o.feature_gates,
            (std::map<std::string, bool, std::less<>>{{"BalancedConsolidation", false},
                                                      {"CapacityBuffer", false},
                                                      {"NodeOverlay", false},
                                                      {"NodeRepair", false},
                                                      {"ReservedCapacity", true},
                                                      {"SpotToSpotConsolidation", false},
                                                      {"StaticCapacity", false}}));
  EXPECT_TRUE(o.leader_elect);
  EXPECT_EQ(o.leader_election_name, "karpenter-leader-election");
  EXPECT_EQ(o.leader_election_namespace, "kube-system");
  EXPECT_EQ(o.metrics_port, 8080);
  EXPECT_EQ(o.health_probe_port, 8081);
  EXPECT_EQ(o.kube_client_qps, 200);
  EXPECT_EQ(o.kube_client_burst, 300);
  EXPECT_EQ(o.log_level, LogLevel::kInfo);
  EXPECT_FALSE(o.show_help);

  Options expected;
  expected.cluster_name = "prod";
  EXPECT_EQ(o, expected);
}

// The documented defaults, given back as flags, change nothing: the help text tells the truth.
TEST(OptionsTest, DocumentedDefaultsAreTheDefaults) {
  std::vector<std::string> args = {"--cloud-provider=sim"};
  for (const OptionDoc& doc : DescribeOptions()) {
    if (doc.flag == "cloud-provider" || doc.flag == "catalog") continue;
    args.push_back("--" + doc.flag + "=" + doc.default_text);
  }
  Result<Options> parsed = Parse(args);
  ASSERT_THAT(parsed, IsOk());
  Options expected;
  expected.cloud_provider = CloudProviderKind::kSim;
  EXPECT_EQ(*parsed, expected);
}

// Every setting has a variable, named from its flag as upstream derives it (upper snake case),
// except where the variable says the opposite (DISABLE_LEADER_ELECTION for --leader-elect).
TEST(OptionsTest, EverySettingHasAVariableNamedAfterItsFlag) {
  for (const OptionDoc& doc : DescribeOptions()) {
    ASSERT_FALSE(doc.env.empty()) << doc.flag;
    std::string derived;
    for (char c : doc.flag) derived += c == '-' ? '_' : static_cast<char>(std::toupper(c));
    const bool negated = !doc.negated.empty();
    EXPECT_TRUE(negated || doc.env.front() == derived) << doc.flag << " " << doc.env.front();
  }
}

TEST(OptionsTest, FlagsTakeValuesAfterEqualsOrAsTheNextArgument) {
  const Options o = ParseSim({"--batch-max-duration=30s", "--batch-idle-duration", "2s",
                              "-cluster-name", "dev", "-reserved-enis=2"});
  EXPECT_EQ(o.batch_max_duration, Duration::Of(seconds(30)));
  EXPECT_EQ(o.batch_idle_duration, Duration::Of(seconds(2)));
  EXPECT_EQ(o.cluster_name, "dev");
  EXPECT_EQ(o.reserved_enis, 2);
}

TEST(OptionsTest, AFlagWinsOverItsVariableAndTheVariableOverTheDefault) {
  const Env env = {{"BATCH_MAX_DURATION", "20s"}, {"BATCH_IDLE_DURATION", "3s"}};
  const Options o = ParseSim({"--batch-max-duration=30s"}, env);
  EXPECT_EQ(o.batch_max_duration, Duration::Of(seconds(30)));
  EXPECT_EQ(o.batch_idle_duration, Duration::Of(seconds(3)));
  EXPECT_EQ(ParseSim({}).batch_idle_duration, Duration::Of(seconds(1)));
}

TEST(OptionsTest, TheLastOfARepeatedFlagWins) {
  EXPECT_EQ(ParseSim({"--log-level=debug", "--log-level=error"}).log_level, LogLevel::kError);
}

TEST(OptionsTest, AnEmptyVariableCountsAsUnset) {
  const Options o = ParseSim({}, {{"BATCH_MAX_DURATION", ""},
                                  {"HEALTH_PROBE_PORT", ""},
                                  {"LEADER_ELECTION_NAMESPACE", ""},
                                  {"SYSTEM_NAMESPACE", "karpenter"}});
  EXPECT_EQ(o.batch_max_duration, Duration::Of(seconds(10)));
  EXPECT_EQ(o.health_probe_port, 8081);
  EXPECT_EQ(o.leader_election_namespace, "karpenter");
}

TEST(OptionsTest, ReadsTheChartsVariables) {
  // What the upstream chart's deployment sets from its values.
  const Env env = {{"CLUSTER_NAME", "prod"},
                   {"CLUSTER_ENDPOINT", "https://ABC.gr7.us-west-2.eks.amazonaws.com"},
                   {"CLUSTER_CA_BUNDLE", "LS0tLS1CRUdJTg=="},
                   {"INTERRUPTION_QUEUE", "prod"},
                   {"ISOLATED_VPC", "true"},
                   {"RESERVED_ENIS", "1"},
                   {"VM_MEMORY_OVERHEAD_PERCENT", "0.1"},
                   {"BATCH_MAX_DURATION", "15s"},
                   {"BATCH_IDLE_DURATION", "2s"},
                   {"PREFERENCE_POLICY", "Respect"},
                   {"MIN_VALUES_POLICY", "Strict"},
                   {"FEATURE_GATES",
                    "ReservedCapacity=false,SpotToSpotConsolidation=true,NodeRepair=false,"
                    "NodeOverlay=false,StaticCapacity=false"},
                   {"LOG_LEVEL", "debug"},
                   {"METRICS_PORT", "8000"},
                   {"HEALTH_PROBE_PORT", "8001"},
                   {"DEBUG_ENDPOINTS", "true"},
                   {"SYSTEM_NAMESPACE", "karpenter"},
                   {"KUBE_CLIENT_QPS", "200"},
                   {"KUBE_CLIENT_BURST", "300"},
                   {"AWS_REGION", "us-west-2"},
                   {"AMI_REFRESH_INTERVAL", "5m"},
                   {"SUBNET_REFRESH_INTERVAL", "30s"},
                   {"SECURITY_GROUP_REFRESH_INTERVAL", "2m"},
                   {"EKS_CONTROL_PLANE", "false"},
                   {"ENABLE_ZONAL_SHIFT", "false"},
                   {"DISABLE_DRY_RUN", "true"},
                   {"MEMORY_LIMIT", "1073741824"},  // upstream's, for Go's GC: ignored
                   {"KARPENTER_SERVICE", "karpenter"}};
  Result<Options> parsed = Parse({}, env);
  ASSERT_THAT(parsed, IsOk());
  const Options& o = *parsed;
  EXPECT_EQ(o.cluster_name, "prod");
  EXPECT_EQ(o.cluster_endpoint, "https://ABC.gr7.us-west-2.eks.amazonaws.com");
  EXPECT_EQ(o.cluster_ca_bundle, "LS0tLS1CRUdJTg==");
  EXPECT_EQ(o.interruption_queue, "prod");
  EXPECT_TRUE(o.isolated_vpc);
  EXPECT_EQ(o.reserved_enis, 1);
  EXPECT_DOUBLE_EQ(o.vm_memory_overhead_percent, 0.1);
  EXPECT_EQ(o.batch_max_duration, Duration::Of(seconds(15)));
  EXPECT_EQ(o.batch_idle_duration, Duration::Of(seconds(2)));
  EXPECT_EQ(o.preference_policy, PreferencePolicy::kRespect);
  EXPECT_EQ(o.min_values_policy, MinValuesPolicy::kStrict);
  EXPECT_TRUE(o.FeatureGate("SpotToSpotConsolidation"));
  EXPECT_FALSE(o.FeatureGate("ReservedCapacity"));
  EXPECT_FALSE(o.FeatureGate("CapacityBuffer"));
  EXPECT_FALSE(o.FeatureGate("NoSuchGate"));
  EXPECT_EQ(o.log_level, LogLevel::kDebug);
  EXPECT_EQ(o.metrics_port, 8000);
  EXPECT_EQ(o.health_probe_port, 8001);
  EXPECT_TRUE(o.debug_endpoints);
  EXPECT_FALSE(ParseSim({}).debug_endpoints);
  EXPECT_EQ(o.leader_election_namespace, "karpenter");
  EXPECT_EQ(o.kube_client_qps, 200);
  EXPECT_EQ(o.kube_client_burst, 300);
  EXPECT_EQ(o.aws_region, "us-west-2");
  EXPECT_EQ(o.ami_refresh_interval, Duration::Of(std::chrono::minutes(5)));
  EXPECT_EQ(o.subnet_refresh_interval, Duration::Of(seconds(30)));
  EXPECT_EQ(o.security_group_refresh_interval, Duration::Of(std::chrono::minutes(2)));
  EXPECT_TRUE(o.disable_dry_run);
  EXPECT_FALSE(ParseSim({}).disable_dry_run);
  EXPECT_EQ(ParseSim({}).ami_refresh_interval, Duration::Of(std::chrono::minutes(1)));
}

// Upstream settings this controller does not implement are refused unless left at their defaults,
// each naming where the value came from and what is missing.
TEST(OptionsTest, UnimplementedSettingsAreRefusedUnlessDefault) {
  const std::vector<std::pair<Env, std::string>> refused = {
      {{{"EKS_CONTROL_PLANE", "true"}}, "EKS_CONTROL_PLANE: EKS_CONTROL_PLANE=true is not"},
      {{{"ENABLE_ZONAL_SHIFT", "true"}},
       "ENABLE_ZONAL_SHIFT: avoiding zones under a zonal shift is not implemented yet"},
  };
  for (const auto& [env, message] : refused) {
    Env with = env;
    with.emplace("CLOUD_PROVIDER", "sim");
    EXPECT_THAT(Parse({}, with), ErrorIs(testing::HasSubstr(message)));
  }
  // The defaults, ReservedCapacity either way, and the gates implemented since.
  EXPECT_THAT(Parse({}, {{"CLOUD_PROVIDER", "sim"},
                         {"PREFERENCE_POLICY", "Respect"},
                         {"MIN_VALUES_POLICY", "Strict"},
                         {"FEATURE_GATES", "ReservedCapacity=false,NodeRepair=false"}}),
              IsOk());
  Result<Options> repair =
      Parse({}, {{"CLOUD_PROVIDER", "sim"}, {"FEATURE_GATES", "NodeRepair=true"}});
  ASSERT_THAT(repair, IsOk());
  EXPECT_TRUE(repair->FeatureGate("NodeRepair"));
  Result<Options> limited = Parse(
      {}, {{"CLOUD_PROVIDER", "sim"}, {"KUBE_CLIENT_QPS", "50"}, {"KUBE_CLIENT_BURST", "60"}});
  ASSERT_THAT(limited, IsOk());
  EXPECT_EQ(limited->kube_client_qps, 50);
  EXPECT_EQ(limited->kube_client_burst, 60);
}

TEST(OptionsTest, FallbackVariablesComeAfterThePrimaryOne) {
  EXPECT_EQ(ParseSim({}, {{"LEADER_ELECTION_NAMESPACE", "a"}, {"SYSTEM_NAMESPACE", "b"}})
                .leader_election_namespace,
            "a");
  EXPECT_EQ(ParseSim({}, {{"AWS_DEFAULT_REGION", "eu-west-1"}}).aws_region, "eu-west-1");
  EXPECT_EQ(
      ParseSim({}, {{"AWS_REGION", "us-east-2"}, {"AWS_DEFAULT_REGION", "eu-west-1"}}).aws_region,
      "us-east-2");
  EXPECT_EQ(ParseSim({"--leader-election-namespace=c"}, {{"SYSTEM_NAMESPACE", "b"}})
                .leader_election_namespace,
            "c");
}

TEST(OptionsTest, BooleanFlagsAloneMeanTrue) {
  EXPECT_TRUE(ParseSim({"--isolated-vpc"}).isolated_vpc);
  EXPECT_FALSE(ParseSim({"--isolated-vpc=false"}, {{"ISOLATED_VPC", "true"}}).isolated_vpc);
  for (const char* yes : {"1", "t", "T", "true", "TRUE", "True"}) {
    EXPECT_TRUE(ParseSim({}, {{"ISOLATED_VPC", yes}}).isolated_vpc) << yes;
  }
  for (const char* no : {"0", "f", "F", "false", "FALSE", "False"}) {
    EXPECT_FALSE(ParseSim({"--isolated-vpc=" + std::string(no)}).isolated_vpc) << no;
  }
}

TEST(OptionsTest, LeaderElectionTakesOursAndUpstreamsSpelling) {
  EXPECT_TRUE(ParseSim({}).leader_elect);
  EXPECT_FALSE(ParseSim({"--leader-elect=false"}).leader_elect);
  EXPECT_FALSE(ParseSim({"--disable-leader-election"}).leader_elect);
  EXPECT_TRUE(ParseSim({"--disable-leader-election=false"}).leader_elect);
  EXPECT_FALSE(ParseSim({}, {{"DISABLE_LEADER_ELECTION", "true"}}).leader_elect);
  EXPECT_TRUE(ParseSim({}, {{"DISABLE_LEADER_ELECTION", "false"}}).leader_elect);
  // A flag wins over the variable, whichever way either is said.
  EXPECT_TRUE(ParseSim({"--leader-elect"}, {{"DISABLE_LEADER_ELECTION", "true"}}).leader_elect);
  // The two flags are one setting: the last given wins.
  EXPECT_FALSE(ParseSim({"--leader-elect", "--disable-leader-election"}).leader_elect);
  EXPECT_TRUE(ParseSim({"--disable-leader-election", "--leader-elect"}).leader_elect);
}

TEST(OptionsTest, FeatureGatesOverrideOnlyTheGatesNamed) {
  const Options o =
      ParseSim({"--feature-gates", " SpotToSpotConsolidation = true ,,ReservedCapacity=0,"});
  EXPECT_TRUE(o.FeatureGate("SpotToSpotConsolidation"));
  EXPECT_FALSE(o.FeatureGate("ReservedCapacity"));
  EXPECT_FALSE(o.FeatureGate("NodeRepair"));  // its default
  EXPECT_EQ(o.feature_gates.size(), DefaultFeatureGates().size());
}

TEST(OptionsTest, DurationsAreGoDurations) {
  const Options o = ParseSim({"--batch-max-duration=1m30s", "--batch-idle-duration=500ms"});
  EXPECT_EQ(o.batch_max_duration, Duration::Of(seconds(90)));
  EXPECT_EQ(o.batch_idle_duration, Duration::Of(std::chrono::milliseconds(500)));
  EXPECT_EQ(ParseSim({"--batch-idle-duration=0s"}).batch_idle_duration, Duration());
}

TEST(OptionsTest, CatalogAppliesToTheSimulatedCloud) {
  EXPECT_EQ(ParseSim({"--catalog=fake400"}).catalog, "fake400");
  EXPECT_EQ(ParseSim({}, {{"CATALOG", "/tmp/types.json"}}).catalog, "/tmp/types.json");
  EXPECT_EQ(ParseSim({}, {{"CLOUD_PROVIDER", "aws"}}).cloud_provider, CloudProviderKind::kSim);
}

TEST(OptionsTest, KubeconfigComesFromTheFlagOrKUBECONFIG) {
  EXPECT_EQ(ParseSim({}, {{"KUBECONFIG", "/home/me/.kube/config"}}).kubeconfig,
            "/home/me/.kube/config");
  EXPECT_EQ(ParseSim({"--kubeconfig", "/x"}, {{"KUBECONFIG", "/y"}}).kubeconfig, "/x");
}

TEST(OptionsTest, HelpNeedsNothingElse) {
  for (const char* flag : {"--help", "-h", "-help"}) {
    Result<Options> o = Parse({"--bogus", flag});
    ASSERT_THAT(o, IsOk()) << flag << ": " << o.error().message;
    EXPECT_TRUE(o->show_help);
  }
  // After "--" it is an argument, not a request for help.
  EXPECT_EQ(ErrorOf({"--cloud-provider=sim", "--", "--help"}),
            "unexpected argument \"--help\": settings are flags (see --help)");
}

TEST(OptionsTest, HelpListsEveryFlagVariableAndDefault) {
  const std::string help = OptionsHelp();
  EXPECT_THAT(help, testing::StartsWith("Usage: karpenter controller [flags]\n"));
  for (const OptionDoc& doc : DescribeOptions()) {
    EXPECT_THAT(help, HasSubstr("--" + doc.flag)) << doc.flag;
    for (const std::string& env : doc.env) EXPECT_THAT(help, HasSubstr("$" + env)) << doc.flag;
    for (const std::string& alias : doc.aliases) {
      EXPECT_THAT(help, HasSubstr("--" + alias)) << doc.flag;
    }
    if (!doc.default_text.empty()) {
      // Long defaults are wrapped after commas: compare without any spaces or line breaks.
      std::string flat = help;
      flat.erase(std::remove_if(flat.begin(), flat.end(), [](char c) { return std::isspace(c); }),
                 flat.end());
      EXPECT_THAT(flat, HasSubstr("default" + doc.default_text)) << doc.flag;
    }
  }
  EXPECT_THAT(help, HasSubstr("  --batch-max-duration=DURATION\n      [$BATCH_MAX_DURATION; "
                              "default 10s] The longest"));
  EXPECT_THAT(help, HasSubstr("$DISABLE_LEADER_ELECTION (the opposite)"));
  for (const std::string& line : [&] {
         std::vector<std::string> lines;
         std::string::size_type start = 0, end;
         while ((end = help.find('\n', start)) != std::string::npos) {
           lines.push_back(help.substr(start, end - start));
           start = end + 1;
         }
         return lines;
       }()) {
    EXPECT_LE(line.size(), 100u) << line;
  }
}

struct ErrorCase {
  std::vector<std::string> args;
  Env env;
  std::string message;
};

class OptionsErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(OptionsErrorTest, NamesTheFlagOrVariableAndWhy) {
  EXPECT_EQ(ErrorOf(GetParam().args, GetParam().env), GetParam().message);
}

const Env kSim = {{"CLOUD_PROVIDER", "sim"}};

Env Sim(Env env) {
  env.insert(kSim.begin(), kSim.end());
  return env;
}

INSTANTIATE_TEST_SUITE_P(
    Messages, OptionsErrorTest,
    testing::Values(
        // Arguments.
        ErrorCase{{"--nope=1"}, kSim, "unknown flag \"--nope\" (see --help)"},
        ErrorCase{{"-nope"}, kSim, "unknown flag \"--nope\" (see --help)"},
        ErrorCase{{"run"}, kSim, "unexpected argument \"run\": settings are flags (see --help)"},
        ErrorCase{{"-"}, kSim, "unexpected argument \"-\": settings are flags (see --help)"},
        ErrorCase{{"--isolated-vpc", "false"},
                  kSim,
                  "unexpected argument \"false\": settings are flags (see --help)"},
        ErrorCase{{"--cluster-name"}, kSim, "--cluster-name: missing value"},
        // Durations.
        ErrorCase{
            {},
            Sim({{"BATCH_MAX_DURATION", "10x"}}),
            "BATCH_MAX_DURATION: invalid duration \"10x\": unknown unit \"x\" (want ns, us, ms, "
            "s, m or h)"},
        ErrorCase{{"--batch-idle-duration=-1s"},
                  kSim,
                  "--batch-idle-duration: invalid duration \"-1s\": must not be negative"},
        ErrorCase{{"--batch-max-duration=Never"},
                  kSim,
                  "--batch-max-duration: invalid duration \"Never\": \"Never\" is not allowed "
                  "here"},
        // Booleans.
        ErrorCase{{},
                  Sim({{"ISOLATED_VPC", "yes"}}),
                  "ISOLATED_VPC: invalid boolean \"yes\": want true or false"},
        ErrorCase{
            {"--isolated-vpc="}, kSim, "--isolated-vpc: invalid boolean \"\": want true or false"},
        ErrorCase{{},
                  Sim({{"DISABLE_LEADER_ELECTION", "no"}}),
                  "DISABLE_LEADER_ELECTION: invalid boolean \"no\": want true or false"},
        // Numbers.
        ErrorCase{{},
                  Sim({{"RESERVED_ENIS", "one"}}),
                  "RESERVED_ENIS: invalid count \"one\": not an integer"},
        ErrorCase{{"--reserved-enis=-1"},
                  kSim,
                  "--reserved-enis: invalid count \"-1\": must not be negative"},
        ErrorCase{{"--health-probe-port=65536"},
                  kSim,
                  "--health-probe-port: invalid port \"65536\": must be between 0 and 65535"},
        ErrorCase{{},
                  Sim({{"METRICS_PORT", "99999999999"}}),
                  "METRICS_PORT: invalid port \"99999999999\": must be between 0 and 65535"},
        ErrorCase{
            {"--metrics-port=80.5"}, kSim, "--metrics-port: invalid port \"80.5\": not an integer"},
        ErrorCase{{"--kube-client-qps=0"},
                  kSim,
                  "--kube-client-qps: invalid rate \"0\": must be at least 1"},
        ErrorCase{{},
                  Sim({{"KUBE_CLIENT_BURST", "-5"}}),
                  "KUBE_CLIENT_BURST: invalid count \"-5\": must be at least 1"},
        ErrorCase{{},
                  Sim({{"VM_MEMORY_OVERHEAD_PERCENT", "7.5%"}}),
                  "VM_MEMORY_OVERHEAD_PERCENT: invalid fraction \"7.5%\": not a number"},
        ErrorCase{{"--vm-memory-overhead-percent=-0.1"},
                  kSim,
                  "--vm-memory-overhead-percent: invalid fraction \"-0.1\": must be at least 0 "
                  "and below 1"},
        ErrorCase{{"--vm-memory-overhead-percent=1"},
                  kSim,
                  "--vm-memory-overhead-percent: invalid fraction \"1\": must be at least 0 and "
                  "below 1"},
        ErrorCase{{"--vm-memory-overhead-percent=nan"},
                  kSim,
                  "--vm-memory-overhead-percent: invalid fraction \"nan\": not a number"},
        // Named values.
        ErrorCase{{"--cloud-provider=gcp"},
                  {},
                  "--cloud-provider: invalid cloud provider \"gcp\": want aws or sim"},
        ErrorCase{{},
                  Sim({{"LOG_LEVEL", "verbose"}}),
                  "LOG_LEVEL: invalid log level \"verbose\": want debug, info, warn or error"},
        ErrorCase{{"--preference-policy=respect"},
                  kSim,
                  "--preference-policy: invalid preference policy \"respect\": want Respect or "
                  "Ignore"},
        ErrorCase{{},
                  Sim({{"MIN_VALUES_POLICY", "Lax"}}),
                  "MIN_VALUES_POLICY: invalid min values policy \"Lax\": want Strict or "
                  "BestEffort"},
        // Feature gates.
        ErrorCase{{},
                  Sim({{"FEATURE_GATES", "Drift=true"}}),
                  "FEATURE_GATES: unknown feature gate \"Drift\" (known: BalancedConsolidation, "
                  "CapacityBuffer, NodeOverlay, NodeRepair, ReservedCapacity, "
                  "SpotToSpotConsolidation, StaticCapacity)"},
        ErrorCase{{"--feature-gates=NodeRepair"},
                  kSim,
                  "--feature-gates: invalid feature gates \"NodeRepair\": \"NodeRepair\" is not "
                  "Name=true|false"},
        ErrorCase{{"--feature-gates=NodeRepair=maybe"},
                  kSim,
                  "--feature-gates: invalid value \"maybe\" for feature gate \"NodeRepair\": want "
                  "true or false"},
        // Strings.
        ErrorCase{{},
                  {{"CLUSTER_NAME", "prod"}, {"CLUSTER_ENDPOINT", "ABC.eks.amazonaws.com"}},
                  "CLUSTER_ENDPOINT: invalid URL \"ABC.eks.amazonaws.com\": want an absolute "
                  "URL with a host, such as https://api.example.com"},
        ErrorCase{{"--cluster-endpoint=https://"},
                  kSim,
                  "--cluster-endpoint: invalid URL \"https://\": want an absolute URL with a "
                  "host, such as https://api.example.com"},
        ErrorCase{{"--leader-election-name="}, kSim, "--leader-election-name: must not be empty"},
        ErrorCase{{"--catalog="}, kSim, "--catalog: must not be empty"},
        // Across settings.
        ErrorCase{{}, {}, "--cluster-name (CLUSTER_NAME): required with --cloud-provider=aws"},
        ErrorCase{{"--cluster-name=prod", "--catalog=fake400"},
                  {},
                  "--catalog: applies only with --cloud-provider=sim"},
        ErrorCase{{},
                  {{"CLUSTER_NAME", "prod"}, {"CATALOG", "fake400"}},
                  "CATALOG: applies only with --cloud-provider=sim"}),
    ::karpenter::ReadableParamName());

TEST(OptionsTest, AcceptsEndpointsOfEveryUsualShape) {
  for (const char* endpoint :
       {"https://ABC.gr7.us-west-2.eks.amazonaws.com", "https://10.0.0.1:6443",
        "http://[fd00::1]:6443/", "https://user@host.example/path?x#y"}) {
    EXPECT_EQ(ParseSim({"--cluster-endpoint", endpoint}).cluster_endpoint, endpoint);
  }
}

}  // namespace
}  // namespace karpenter::op
