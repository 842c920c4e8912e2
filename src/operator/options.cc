#include "operator/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <utility>

#include "common/wrap.h"

namespace karpenter::op {
namespace {

using namespace std::string_view_literals;

// Turns the text of a flag or variable into part of Options. The reason it returns names the
// problem and quotes the text; the caller adds which flag or variable it came from. `negated` is
// set when the text came from a name that says the opposite (--disable-leader-election).
using Setter = std::function<Status(std::string_view text, bool negated, Options& options)>;

OptionDoc Doc(std::string flag, std::vector<std::string> env, std::string value,
              std::string default_text, std::string help) {
  OptionDoc doc;
  doc.flag = std::move(flag);
  doc.env = std::move(env);
  doc.value = std::move(value);
  doc.default_text = std::move(default_text);
  doc.help = std::move(help);
  return doc;
}

struct Setting {
  OptionDoc doc;
  Setter set;
  bool negated(std::string_view name) const {
    return std::find(doc.negated.begin(), doc.negated.end(), name) != doc.negated.end();
  }
};

// Go's strconv.ParseBool, which upstream's environment variables go through.
std::optional<bool> ParseBool(std::string_view text) {
  for (std::string_view yes : {"1"sv, "t"sv, "T"sv, "true"sv, "TRUE"sv, "True"sv}) {
    if (text == yes) return true;
  }
  for (std::string_view no : {"0"sv, "f"sv, "F"sv, "false"sv, "FALSE"sv, "False"sv}) {
    if (text == no) return false;
  }
  return std::nullopt;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

Setting StringSetting(std::string flag, std::vector<std::string> env, std::string default_text,
                      std::string help, std::string Options::*member, bool allow_empty = true) {
  Setting s{
      Doc(std::move(flag), std::move(env), "STRING", std::move(default_text), std::move(help)), {}};
  s.set = [member, allow_empty](std::string_view text, bool, Options& options) -> Status {
    if (!allow_empty && text.empty()) return Error("must not be empty");
    options.*member = text;
    return {};
  };
  return s;
}

Setting BoolSetting(std::string flag, std::vector<std::string> env, bool default_value,
                    std::string help, bool Options::*member) {
  Setting s{
      Doc(std::move(flag), std::move(env), "", default_value ? "true" : "false", std::move(help)),
      {}};
  s.set = [member](std::string_view text, bool negated, Options& options) -> Status {
    const std::optional<bool> value = ParseBool(text);
    if (!value) return Error(fmt::format("invalid boolean \"{}\": want true or false", text));
    options.*member = *value != negated;
    return {};
  };
  return s;
}

// `noun` names the kind of number in errors ("port", "count").
Setting IntSetting(std::string flag, std::vector<std::string> env, int default_value,
                   std::string help, int Options::*member, const std::string& noun, int min,
                   int max = INT_MAX) {
  Setting s{
      Doc(std::move(flag), std::move(env), "INT", std::to_string(default_value), std::move(help)),
      {}};
  s.set = [member, noun, min, max](std::string_view text, bool, Options& options) -> Status {
    std::string_view digits = text;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    int value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error == std::errc::invalid_argument ||
        end != digits.data() + digits.size()) {
      return Error(fmt::format("invalid {} \"{}\": not an integer", noun, text));
    }
    if (error == std::errc::result_out_of_range || value < min || value > max) {
      if (max != INT_MAX) {
        return Error(
            fmt::format("invalid {} \"{}\": must be between {} and {}", noun, text, min, max));
      }
      if (min == 0) {
        return Error(fmt::format("invalid {} \"{}\": must not be negative", noun, text));
      }
      return Error(fmt::format("invalid {} \"{}\": must be at least {}", noun, text, min));
    }
    options.*member = value;
    return {};
  };
  return s;
}

Setting DurationSetting(std::string flag, std::vector<std::string> env, std::string default_text,
                        std::string help, Duration Options::*member) {
  Setting s{
      Doc(std::move(flag), std::move(env), "DURATION", std::move(default_text), std::move(help)),
      {}};
  s.set = [member](std::string_view text, bool, Options& options) -> Status {
    Result<Duration> value = Duration::Parse(text, /*allow_never=*/false);
    if (!value.ok()) {
      return Error(fmt::format("invalid duration \"{}\": {}", text, value.error().message));
    }
    if (value->value().count() < 0) {
      return Error(fmt::format("invalid duration \"{}\": must not be negative", text));
    }
    options.*member = *value;
    return {};
  };
  return s;
}

// A setting with a few named values; `names` are in the order the help and errors list them.
template <class T>
Setting ChoiceSetting(std::string flag, std::vector<std::string> env, std::string default_text,
                      std::string help, T Options::*member, const std::string& noun,
                      std::vector<std::pair<std::string, T>> names) {
  std::string value;
  for (const auto& [name, unused] : names) value += (value.empty() ? "" : "|") + name;
  Setting s{Doc(std::move(flag), std::move(env), value, std::move(default_text), std::move(help)),
            {}};
  s.set = [member, noun, names](std::string_view text, bool, Options& options) -> Status {
    for (const auto& [name, choice] : names) {
      if (text == name) {
        options.*member = choice;
        return {};
      }
    }
    std::string want;
    for (size_t i = 0; i < names.size(); ++i) {
      if (i > 0) want += i + 1 == names.size() ? " or " : ", ";
      want += names[i].first;
    }
    return Error(fmt::format("invalid {} \"{}\": want {}", noun, text, want));
  };
  return s;
}

// Go's url.Parse accepts nearly anything, so upstream checks for a scheme and a host; so do we.
Status CheckUrl(std::string_view text) {
  const size_t colon = text.find("://");
  const auto scheme_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  };
  bool ok = colon != std::string_view::npos && colon > 0 &&
            std::isalpha(static_cast<unsigned char>(text[0])) &&
            std::all_of(text.begin(), text.begin() + colon, scheme_char);
  if (ok) {
    std::string_view authority = text.substr(colon + 3);
    authority = authority.substr(0, authority.find_first_of("/?#"));
    if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
      authority.remove_prefix(at + 1);
    }
    const std::string_view host = !authority.empty() && authority.front() == '['
                                      ? authority.substr(0, authority.find(']') + 1)
                                      : authority.substr(0, authority.find(':'));
    ok = !host.empty() && host != "[]";
  }
  if (!ok) {
    return Error(fmt::format(
        "invalid URL \"{}\": want an absolute URL with a host, such as https://api.example.com",
        text));
  }
  return {};
}

std::string GateList(const std::map<std::string, bool, std::less<>>& gates) {
  std::string list;
  for (const auto& [name, unused] : gates) list += (list.empty() ? "" : ", ") + name;
  return list;
}

Status SetFeatureGates(std::string_view text, Options& options) {
  ASSIGN_OR_RETURN(options.feature_gates, ParseFeatureGates(text));
  return {};
}

// Upstream's order, which is also the order the chart writes them in.
constexpr std::string_view kDefaultFeatureGatesText =
    "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,"
    "StaticCapacity=false,CapacityBuffer=false,BalancedConsolidation=false";

std::vector<Setting> Settings() {
  std::vector<Setting> settings;
  settings.push_back(ChoiceSetting<CloudProviderKind>(
      "cloud-provider", {"CLOUD_PROVIDER"}, "aws",
      "Where nodes come from: aws launches EC2 instances; sim simulates them, with no cloud "
      "account, for trying NodePools and for tests.",
      &Options::cloud_provider, "cloud provider",
      {{"aws", CloudProviderKind::kAws}, {"sim", CloudProviderKind::kSim}}));
  settings.push_back(StringSetting(
      "catalog", {"CATALOG"}, "aws",
      "With --cloud-provider=sim, the instance types to simulate: aws (the embedded EC2 "
      "catalog), fake<N> (N synthetic types) or the path of a catalog JSON file.",
      &Options::catalog, /*allow_empty=*/false));
  settings.push_back(DurationSetting(
      "sim-node-boot-delay", {"SIM_NODE_BOOT_DELAY"}, "0s",
      "With --cloud-provider=sim, how long a launched instance takes to become a Node (an EC2 "
      "instance boots and joins in tens of seconds; karpenter simulate assumes 40s).",
      &Options::sim_node_boot_delay));
  settings.push_back(IntSetting(
      "sim-node-boot-spread", {"SIM_NODE_BOOT_SPREAD"}, 0,
      "With --cloud-provider=sim, how far each boot strays from the delay, in percent: machines "
      "launched together join over a spread of times (karpenter simulate assumes 25).",
      &Options::sim_node_boot_spread_percent, "percent", 0, 100));
  settings.push_back(StringSetting("kubeconfig", {"KUBECONFIG"}, "",
                                   "The kubeconfig file to reach the API server with; without "
                                   "one, the pod's service account is used (in-cluster).",
                                   &Options::kubeconfig));
  settings.push_back(StringSetting("cluster-name", {"CLUSTER_NAME"}, "",
                                   "The cluster's name, which AWS resources are discovered and "
                                   "tagged by. Required with --cloud-provider=aws.",
                                   &Options::cluster_name));
  Setting endpoint = StringSetting(
      "cluster-endpoint", {"CLUSTER_ENDPOINT"}, "",
      "The API server URL that new nodes join; when empty, it is discovered from EKS.",
      &Options::cluster_endpoint);
  endpoint.set = [](std::string_view text, bool, Options& options) -> Status {
    if (!text.empty()) {
      if (Status ok = CheckUrl(text); !ok.ok()) return ok;
    }
    options.cluster_endpoint = text;
    return {};
  };
  settings.push_back(std::move(endpoint));
  settings.push_back(StringSetting(
      "cluster-ca-bundle", {"CLUSTER_CA_BUNDLE"}, "",
      "The CA bundle that new nodes trust the API server with; when empty, the controller's own.",
      &Options::cluster_ca_bundle));
  settings.push_back(StringSetting("aws-region", {"AWS_REGION", "AWS_DEFAULT_REGION"}, "",
                                   "The AWS region; required with --cloud-provider=aws (in an EKS "
                                   "pod, IRSA and Pod Identity set AWS_REGION).",
                                   &Options::aws_region));
  settings.push_back(BoolSetting("isolated-vpc", {"ISOLATED_VPC"}, false,
                                 "Assume that AWS services without a VPC endpoint are out of "
                                 "reach; this also turns off look-ups of on-demand prices.",
                                 &Options::isolated_vpc));
  settings.push_back(StringSetting("interruption-queue", {"INTERRUPTION_QUEUE"}, "",
                                   "The SQS queue of EC2 interruption events (spot interruptions, "
                                   "rebalance recommendations, scheduled changes, instance state "
                                   "changes); empty turns interruption handling off.",
                                   &Options::interruption_queue));
  settings.push_back(IntSetting("reserved-enis", {"RESERVED_ENIS"}, 0,
                                "ENIs left out of the max-pods and kube-reserved calculations, "
                                "as with VPC CNI custom networking.",
                                &Options::reserved_enis, "count", 0));
  Setting overhead{
      Doc("vm-memory-overhead-percent", {"VM_MEMORY_OVERHEAD_PERCENT"}, "FRACTION", "0.075",
          "The fraction of an instance type's memory taken off for the hypervisor "
          "(0.075 is 7.5%)."),
      {}};
  overhead.set = [](std::string_view text, bool, Options& options) -> Status {
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(value)) {
      return Error(fmt::format("invalid fraction \"{}\": not a number", text));
    }
    if (value < 0 || value >= 1) {
      return Error(fmt::format("invalid fraction \"{}\": must be at least 0 and below 1", text));
    }
    options.vm_memory_overhead_percent = value;
    return {};
  };
  settings.push_back(std::move(overhead));
  constexpr std::string_view kRefreshHelp =
      "How often each EC2NodeClass's {} are resolved again (its spec changing resolves them at "
      "once).";
  settings.push_back(DurationSetting("ami-refresh-interval", {"AMI_REFRESH_INTERVAL"}, "1m",
                                     fmt::format(kRefreshHelp, "AMIs"),
                                     &Options::ami_refresh_interval));
  settings.push_back(DurationSetting("subnet-refresh-interval", {"SUBNET_REFRESH_INTERVAL"}, "1m",
                                     fmt::format(kRefreshHelp, "subnets"),
                                     &Options::subnet_refresh_interval));
  settings.push_back(DurationSetting(
      "security-group-refresh-interval", {"SECURITY_GROUP_REFRESH_INTERVAL"}, "1m",
      fmt::format(kRefreshHelp, "security groups"), &Options::security_group_refresh_interval));
  settings.push_back(BoolSetting("eks-control-plane", {"EKS_CONTROL_PLANE"}, false,
                                 "Upstream's setting for EKS-managed control planes; not "
                                 "implemented: only false is accepted.",
                                 &Options::eks_control_plane));
  settings.push_back(BoolSetting("enable-zonal-shift", {"ENABLE_ZONAL_SHIFT"}, false,
                                 "Upstream's avoidance of zones under an ARC zonal shift; not "
                                 "implemented: only false is accepted.",
                                 &Options::enable_zonal_shift));
  settings.push_back(BoolSetting("disable-dry-run", {"DISABLE_DRY_RUN"}, false,
                                 "Skip the DryRun checks of the EC2 permissions a launch from "
                                 "each EC2NodeClass needs (its ValidationSucceeded condition).",
                                 &Options::disable_dry_run));
  settings.push_back(DurationSetting(
      "batch-max-duration", {"BATCH_MAX_DURATION"}, "10s",
      "The longest that pending pods are gathered into one batch before they are scheduled; "
      "longer batches make fewer, larger nodes.",
      &Options::batch_max_duration));
  settings.push_back(
      DurationSetting("batch-idle-duration", {"BATCH_IDLE_DURATION"}, "1s",
                      "A batch ends once no new pending pod has arrived for this long (or at "
                      "--batch-max-duration).",
                      &Options::batch_idle_duration));
  settings.push_back(ChoiceSetting<PreferencePolicy>(
      "preference-policy", {"PREFERENCE_POLICY"}, "Respect",
      "Whether scheduling honours preferred node and pod affinities and ScheduleAnyway topology "
      "spreads.",
      &Options::preference_policy, "preference policy",
      {{"Respect", PreferencePolicy::kRespect}, {"Ignore", PreferencePolicy::kIgnore}}));
  settings.push_back(ChoiceSetting<MinValuesPolicy>(
      "min-values-policy", {"MIN_VALUES_POLICY"}, "Strict",
      "Whether a NodePool's minValues may be relaxed when they cannot be met (BestEffort) or "
      "fail scheduling (Strict).",
      &Options::min_values_policy, "min values policy",
      {{"Strict", MinValuesPolicy::kStrict}, {"BestEffort", MinValuesPolicy::kBestEffort}}));
  Setting gates{Doc("feature-gates", {"FEATURE_GATES"}, "Name=BOOL,...",
                    std::string(kDefaultFeatureGatesText),
                    "Optional features, on or off. Gates not named keep their defaults; unknown "
                    "gates are an error. Gates: " +
                        GateList(DefaultFeatureGates()) + "."),
                {}};
  gates.set = [](std::string_view text, bool, Options& options) {
    return SetFeatureGates(text, options);
  };
  settings.push_back(std::move(gates));
  Setting leader = BoolSetting(
      "leader-elect", {"DISABLE_LEADER_ELECTION"}, true,
      "Act only while holding the leader Lease, so that one replica of several acts at a time. "
      "Upstream's --disable-leader-election and DISABLE_LEADER_ELECTION say the opposite.",
      &Options::leader_elect);
  leader.doc.aliases = {"disable-leader-election"};
  leader.doc.negated = {"disable-leader-election", "DISABLE_LEADER_ELECTION"};
  settings.push_back(std::move(leader));
  settings.push_back(StringSetting("leader-election-name", {"LEADER_ELECTION_NAME"},
                                   "karpenter-leader-election", "The name of the leader Lease.",
                                   &Options::leader_election_name, /*allow_empty=*/false));
  settings.push_back(StringSetting(
      "leader-election-namespace", {"LEADER_ELECTION_NAMESPACE", "SYSTEM_NAMESPACE"}, "kube-system",
      "The namespace of the leader Lease. The chart sets SYSTEM_NAMESPACE to Karpenter's own.",
      &Options::leader_election_namespace, /*allow_empty=*/false));
  settings.push_back(IntSetting("metrics-port", {"METRICS_PORT"}, 8080,
                                "The port of the Prometheus /metrics endpoint; 0 picks a free one.",
                                &Options::metrics_port, "port", 0, 65535));
  settings.push_back(IntSetting("health-probe-port", {"HEALTH_PROBE_PORT"}, 8081,
                                "The port of /healthz and /readyz; 0 picks a free one.",
                                &Options::health_probe_port, "port", 0, 65535));
  settings.push_back(BoolSetting(
      "debug-endpoints", {"DEBUG_ENDPOINTS"}, false,
      "Serve GET /debug/state on the health probe port: the controller's internal state as JSON "
      "(informers, batching window, last provisioning and disruption passes, budgets, queues).",
      &Options::debug_endpoints));
  settings.push_back(IntSetting("kube-client-qps", {"KUBE_CLIENT_QPS"}, 200,
                                "The sustained rate of requests to the API server, per second "
                                "(each request and each retry waits its turn).",
                                &Options::kube_client_qps, "rate", 1));
  settings.push_back(IntSetting("kube-client-burst", {"KUBE_CLIENT_BURST"}, 300,
                                "The most requests to the API server allowed in a burst.",
                                &Options::kube_client_burst, "count", 1));
  Setting level{Doc("log-level", {"LOG_LEVEL"}, "debug|info|warn|error", "info",
                    "The least severe level of log lines written."),
                {}};
  level.set = [](std::string_view text, bool, Options& options) -> Status {
    const std::optional<LogLevel> value = ParseLogLevel(text);
    if (!value) {
      return Error(fmt::format("invalid log level \"{}\": want debug, info, warn or error", text));
    }
    options.log_level = *value;
    return {};
  };
  settings.push_back(std::move(level));
  return settings;
}

}  // namespace

std::map<std::string, bool, std::less<>> DefaultFeatureGates() {
  return {{"NodeRepair", false},
          {"ReservedCapacity", true},
          {"SpotToSpotConsolidation", false},
          {"NodeOverlay", false},
          {"StaticCapacity", false},
          {"CapacityBuffer", false},
          {"BalancedConsolidation", false}};
}

// "Name=bool,Name=bool" as Kubernetes' MapStringBool reads it: empty items are skipped and
// spaces around names and values ignored. Gates not named keep their defaults.
Result<std::map<std::string, bool, std::less<>>> ParseFeatureGates(std::string_view text) {
  std::map<std::string, bool, std::less<>> gates = DefaultFeatureGates();
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    if (Trim(item).empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Error(
          fmt::format("invalid feature gates \"{}\": \"{}\" is not Name=true|false", text, item));
    }
    const std::string_view name = Trim(item.substr(0, eq));
    const std::string_view value_text = Trim(item.substr(eq + 1));
    const auto gate = gates.find(name);
    if (gate == gates.end()) {
      return Error(fmt::format("unknown feature gate \"{}\" (known: {})", name, GateList(gates)));
    }
    const std::optional<bool> value = ParseBool(value_text);
    if (!value) {
      return Error(fmt::format("invalid value \"{}\" for feature gate \"{}\": want true or false",
                               value_text, name));
    }
    gate->second = *value;
  }
  return gates;
}

Result<Options> ParseOptions(const std::vector<std::string>& args, const Getenv& getenv) {
  const std::vector<Setting> settings = Settings();

  // Help first: whatever else is wrong, the user asked how to get it right.
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg == "-h" || arg == "-help" || arg == "--help") {
      Options options;
      options.show_help = true;
      return options;
    }
  }

  struct Value {
    std::string text;
    std::string source;  // "--batch-max-duration" or "BATCH_MAX_DURATION", for errors
    bool negated = false;
  };
  std::vector<std::optional<Value>> values(settings.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      if (i + 1 < args.size()) {
        return Error(fmt::format("unexpected argument \"{}\": settings are flags (see --help)",
                                 args[i + 1]));
      }
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      return Error(fmt::format("unexpected argument \"{}\": settings are flags (see --help)", arg));
    }
    std::string_view body = arg;
    body.remove_prefix(arg[1] == '-' ? 2 : 1);
    const size_t eq = body.find('=');
    const std::string_view name = body.substr(0, eq);
    const std::string source = fmt::format("--{}", name);
    const auto setting = std::find_if(settings.begin(), settings.end(), [&](const Setting& s) {
      return s.doc.flag == name ||
             std::find(s.doc.aliases.begin(), s.doc.aliases.end(), name) != s.doc.aliases.end();
    });
    if (setting == settings.end()) {
      return Error(fmt::format("unknown flag \"{}\" (see --help)", source));
    }
    Value value{"", source, setting->negated(name)};
    if (eq != std::string_view::npos) {
      value.text = body.substr(eq + 1);
    } else if (setting->doc.value.empty()) {  // a boolean
      value.text = "true";
    } else if (i + 1 < args.size()) {
      value.text = args[++i];
    } else {
      return Error(fmt::format("{}: missing value", source));
    }
    values[setting - settings.begin()] = std::move(value);
  }

  Options options;
  std::vector<std::string> sources(settings.size());
  for (size_t i = 0; i < settings.size(); ++i) {
    const Setting& setting = settings[i];
    std::optional<Value> value = values[i];
    for (const std::string& env : setting.doc.env) {
      if (value) break;
      std::optional<std::string> text = getenv(env);
      if (text && !text->empty()) value = Value{std::move(*text), env, setting.negated(env)};
    }
    if (!value) continue;
    if (Status set = setting.set(value->text, value->negated, options); !set.ok()) {
      return Error(fmt::format("{}: {}", value->source, set.error().message));
    }
    sources[i] = value->source;
  }

  const auto source_of = [&](std::string_view flag) -> const std::string& {
    const auto it = std::find_if(settings.begin(), settings.end(),
                                 [&](const Setting& s) { return s.doc.flag == flag; });
    return sources[it - settings.begin()];
  };
  if (options.cloud_provider == CloudProviderKind::kAws && options.cluster_name.empty()) {
    return Error("--cluster-name (CLUSTER_NAME): required with --cloud-provider=aws");
  }
  for (std::string_view sim_only : {"catalog", "sim-node-boot-delay", "sim-node-boot-spread"}) {
    if (options.cloud_provider != CloudProviderKind::kSim && !source_of(sim_only).empty()) {
      return Error(fmt::format("{}: applies only with --cloud-provider=sim", source_of(sim_only)));
    }
  }
  // Settings that upstream has and this controller does not implement yet are accepted at their
  // defaults only: a value that would change nothing here is refused rather than ignored.
  const auto unimplemented = [&](std::string_view flag, std::string_view what) {
    return Error(fmt::format("{}: {} is not implemented yet; leave it at its default",
                             source_of(flag), what));
  };
  if (options.eks_control_plane) {
    return unimplemented("eks-control-plane", "EKS_CONTROL_PLANE=true");
  }
  if (options.enable_zonal_shift) {
    return unimplemented("enable-zonal-shift", "avoiding zones under a zonal shift");
  }
  return options;
}

std::vector<OptionDoc> DescribeOptions() {
  std::vector<OptionDoc> docs;
  for (Setting& setting : Settings()) docs.push_back(std::move(setting.doc));
  return docs;
}

std::string OptionsHelp() {
  std::string text =
      "Usage: karpenter controller [flags]\n"
      "\n" +
      Wrap(
          "Runs Karpenter's controllers. Every flag can also be set by the environment variable "
          "shown with it, which is how the upstream Helm chart passes its settings; a flag wins "
          "over its variable, and the variable over the default. Durations are written as "
          "10s, 1m or 2h45m.",
          0, 100) +
      "\n";
  for (const OptionDoc& doc : DescribeOptions()) {
    std::string line = "  --" + doc.flag;
    if (!doc.value.empty()) line += "=" + doc.value;
    for (const std::string& alias : doc.aliases) line += ", --" + alias;
    std::string where;
    for (const std::string& env : doc.env) {
      where += (where.empty() ? "" : ", ") + std::string("$") + env;
      if (std::find(doc.negated.begin(), doc.negated.end(), env) != doc.negated.end()) {
        where += " (the opposite)";
      }
    }
    if (!doc.default_text.empty()) where += "; default " + doc.default_text;
    text += line + "\n" + Wrap("[" + where + "] " + doc.help, 6, 100);
  }
  text += "  -h, --help\n" + Wrap("Prints this help.", 6, 100);
  return text;
}

}  // namespace karpenter::op
