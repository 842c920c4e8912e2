#pragma once
// The settings of `karpenter controller`. Each one has a flag and an environment variable named as
// upstream names them (`--batch-max-duration` / BATCH_MAX_DURATION), so the upstream Helm chart's
// `settings` block, which the chart turns into environment variables, configures us unchanged.
// A flag wins over its variable, and the variable over the default; an empty variable counts as
// unset (the chart renders unset values as "").

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/duration.h"
#include "common/log.h"
#include "common/result.h"

namespace karpenter::op {

enum class CloudProviderKind { kAws, kSim };
// How the scheduler treats preferred affinities and ScheduleAnyway spreads (upstream's
// PREFERENCE_POLICY).
enum class PreferencePolicy { kRespect, kIgnore };
// Whether a NodePool's minValues may be relaxed when they cannot be met (MIN_VALUES_POLICY).
enum class MinValuesPolicy { kStrict, kBestEffort };

// The feature gates upstream knows, with upstream's defaults. Others are an error: a gate we do not
// know is a feature we do not have, and saying so beats ignoring it.
std::map<std::string, bool, std::less<>> DefaultFeatureGates();
// FEATURE_GATES text ("Name=true,Name=false"), gates not named at their defaults; an error names
// the item that is not Name=bool or the gate that is unknown.
Result<std::map<std::string, bool, std::less<>>> ParseFeatureGates(std::string_view text);

struct Options {
  // Where the cluster and the cloud are.
  CloudProviderKind cloud_provider = CloudProviderKind::kAws;
  std::string catalog = "aws";  // sim only: "aws", "fake<N>" or a catalog JSON file
  // Sim only: from an instance's launch to its Node appearing (an EC2 instance boots and its
  // kubelet registers in about this long; `karpenter simulate` assumes 40 s).
  Duration sim_node_boot_delay = Duration::Of(std::chrono::seconds(0));
  int sim_node_boot_spread_percent = 0;  // sim only: cloud/sim/node_booter.h's boot_spread
  std::string kubeconfig;                // empty: the in-cluster service account
  std::string cluster_name;              // required for aws
  std::string cluster_endpoint;
  std::string cluster_ca_bundle;
  std::string aws_region;  // empty: left to the AWS client to discover
  bool isolated_vpc = false;
  std::string interruption_queue;  // empty: interruption handling off
  int reserved_enis = 0;
  double vm_memory_overhead_percent = 0.075;
  // How often each EC2NodeClass's AMIs, subnets and security groups are resolved again.
  Duration ami_refresh_interval = Duration::Of(std::chrono::minutes(1));
  Duration subnet_refresh_interval = Duration::Of(std::chrono::minutes(1));
  Duration security_group_refresh_interval = Duration::Of(std::chrono::minutes(1));
  // Upstream settings without an effect here yet: refused unless at their defaults.
  bool eks_control_plane = false;
  bool enable_zonal_shift = false;
  bool disable_dry_run = false;

  // Scheduling.
  Duration batch_max_duration = Duration::Of(std::chrono::seconds(10));
  Duration batch_idle_duration = Duration::Of(std::chrono::seconds(1));
  PreferencePolicy preference_policy = PreferencePolicy::kRespect;
  MinValuesPolicy min_values_policy = MinValuesPolicy::kStrict;
  std::map<std::string, bool, std::less<>> feature_gates = DefaultFeatureGates();

  // The process.
  bool leader_elect = true;
  std::string leader_election_name = "karpenter-leader-election";
  std::string leader_election_namespace = "kube-system";
  int metrics_port = 8080;
  int health_probe_port = 8081;  // 0 picks a free port
  bool debug_endpoints = false;  // /debug/state on the health probe port
  int kube_client_qps = 200;
  int kube_client_burst = 300;
  LogLevel log_level = LogLevel::kInfo;

  // --help was given: print OptionsHelp() and exit; nothing else was parsed or checked.
  bool show_help = false;

  bool FeatureGate(std::string_view name) const {
    const auto it = feature_gates.find(name);
    return it != feature_gates.end() && it->second;
  }

  friend bool operator==(const Options&, const Options&) = default;
};

using Getenv = std::function<std::optional<std::string>(std::string_view)>;

// Parses the arguments after `karpenter controller` (no program or subcommand name): `--flag=value`
// or `--flag value` (one dash works too, as with Go's flag package); a boolean flag alone means
// true and takes its value only after "=". A flag given twice keeps the last value. Errors name
// the flag or the variable the bad value came from and why:
//   BATCH_MAX_DURATION: invalid duration "10x": unknown unit "x"
Result<Options> ParseOptions(const std::vector<std::string>& args, const Getenv& getenv);

// One setting, for help text and for tests that walk every setting.
struct OptionDoc {
  std::string flag;              // "batch-max-duration"
  std::vector<std::string> env;  // "BATCH_MAX_DURATION", then any fallbacks, in order
  std::string value;             // "DURATION"; empty for a boolean
  std::string default_text;      // as it would be written on the command line; empty: none
  std::string help;
  std::vector<std::string> aliases;  // further flags for the same setting
  std::vector<std::string> negated;  // flags and variables that say the opposite (a boolean's
                                     // --disable-… form)
};
std::vector<OptionDoc> DescribeOptions();

// The text of `karpenter controller --help`.
std::string OptionsHelp();

}  // namespace karpenter::op
