#include "api/validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "common/cron.h"
#include "common/duration.h"
#include "common/quantity.h"

// Where these rules knowingly differ from upstream's CRDs:
// - nodeClassRef.group is not checked against the CRD's no-slash pattern: upstream's own
//   windows-custom-userdata example uses "karpenter.k8s.aws/v1" and must validate.
// - Subnet and security-group terms are checked one by one ("id alone", "name alone"); the CRD's
//   rule only fires when every term breaks it.
// - EBS volume sizes are checked as ranges (1–59000Gi, 1–64000G, 1–58Ti, 1–64T) instead of the
//   CRD's regular expression, which has gaps.
// - The CRD's kubernetes.io / k8s.io label-domain restrictions apply as well.
namespace karpenter::api {
namespace {

// ---- limits of the CRDs -------------------------------------------------------------------------

constexpr size_t kMaxRequirements = 100;
constexpr size_t kMaxTemplateLabels = 100;
constexpr size_t kMaxLabelKeyLength = 316;
constexpr int kMinMinValues = 1;
constexpr int kMaxMinValues = 50;
constexpr size_t kMaxBudgets = 50;
constexpr int kMinWeight = 1;
constexpr int kMaxWeight = 100;
constexpr size_t kMaxSelectorTerms = 30;
constexpr size_t kMaxSelectorTags = 20;
constexpr size_t kMaxAliasLength = 30;
constexpr size_t kMaxBlockDeviceMappings = 50;
constexpr int kMinHopLimit = 1;
constexpr int kMaxHopLimit = 64;
constexpr size_t kMaxNameLength = 63;
constexpr size_t kMaxSubdomainLength = 253;

// Well-known keys that may be used although their domain is reserved.
constexpr std::string_view kAllowedKubernetesKeys[] = {
    "beta.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "failure-domain.beta.kubernetes.io/zone",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "node.kubernetes.io/windows-build",
};

constexpr std::string_view kAllowedAwsKeys[] = {
    "karpenter.k8s.aws/ec2nodeclass",
    "karpenter.k8s.aws/instance-encryption-in-transit-supported",
    "karpenter.k8s.aws/instance-category",
    "karpenter.k8s.aws/instance-hypervisor",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-local-nvme",
    "karpenter.k8s.aws/instance-size",
    "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-cpu-manufacturer",
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
    "karpenter.k8s.aws/instance-memory",
    "karpenter.k8s.aws/instance-ebs-bandwidth",
    "karpenter.k8s.aws/instance-network-bandwidth",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.k8s.aws/instance-accelerator-name",
    "karpenter.k8s.aws/instance-accelerator-manufacturer",
    "karpenter.k8s.aws/instance-accelerator-count",
    "karpenter.k8s.aws/capacity-reservation-id",
    "karpenter.k8s.aws/capacity-reservation-type",
};

constexpr std::string_view kAmiFamilies[] = {"AL2",         "AL2023",      "Bottlerocket", "Custom",
                                             "Windows2019", "Windows2022", "Windows2025"};

constexpr std::string_view kVolumeTypes[] = {"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"};

constexpr std::string_view kEvictionSignals[] = {
    "memory.available",  "nodefs.available",   "nodefs.inodesFree",
    "imagefs.available", "imagefs.inodesFree", "pid.available",
};

constexpr std::string_view kReservedResources[] = {"cpu", "memory", "ephemeral-storage", "pid"};

constexpr std::string_view kRestrictedTagPrefix = "kubernetes.io/cluster";
constexpr std::string_view kRestrictedTags[] = {
    "eks:eks-cluster-name",
    "karpenter.sh/nodepool",
    "karpenter.sh/nodeclaim",
    "karpenter.k8s.aws/ec2nodeclass",
};

template <size_t N>
bool OneOf(std::string_view value, const std::string_view (&set)[N]) {
  return std::find(std::begin(set), std::end(set), value) != std::end(set);
}

template <size_t N>
std::string JoinQuoted(const std::string_view (&set)[N]) {
  std::string out;
  for (const std::string_view item : set) {
    if (!out.empty()) out += ", ";
    out += fmt::format("\"{}\"", item);
  }
  return out;
}

// ---- text helpers -------------------------------------------------------------------------------

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z'); }

// The name part of a qualified name or a label value: alphanumerics, '-', '_' and '.', starting and
// ending with an alphanumeric.
bool IsNamePart(std::string_view text) {
  if (text.empty() || text.size() > kMaxNameLength) return false;
  if (!IsAlnum(text.front()) || !IsAlnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool IsDnsLabel(std::string_view text) {
  if (text.empty() || text.size() > kMaxNameLength) return false;
  if (!IsLowerAlnum(text.front()) || !IsLowerAlnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

// "^[0-9]+$" within int64: the Gt/Lt operand.
bool IsNonNegativeInteger(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), IsDigit)) return false;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// Consumes a run of digits; returns the number of digits read.
size_t ConsumeDigits(std::string_view& text) {
  size_t n = 0;
  while (n < text.size() && IsDigit(text[n])) ++n;
  text.remove_prefix(n);
  return n;
}

// One or more "<digits><unit>" groups, the units drawn from `units`.
bool IsUnitSequence(std::string_view text, std::string_view units) {
  if (text.empty()) return false;
  while (!text.empty()) {
    if (ConsumeDigits(text) == 0 || text.empty() ||
        units.find(text.front()) == std::string_view::npos) {
      return false;
    }
    text.remove_prefix(1);
  }
  return true;
}

// "<n>h", "<n>m" or "<n>h<n>m", optionally followed by "0s" (as Go prints durations).
bool IsBudgetWindow(std::string_view text) {
  if (text.size() > 2 && text.ends_with("0s") &&
      (text[text.size() - 3] == 'h' || text[text.size() - 3] == 'm')) {
    text.remove_suffix(2);
  }
  if (ConsumeDigits(text) == 0 || text.empty()) return false;
  if (text[0] == 'm') return text.size() == 1;
  if (text[0] != 'h') return false;
  text.remove_prefix(1);
  if (text.empty()) return true;
  return ConsumeDigits(text) > 0 && text == "m";
}

// ---- findings -----------------------------------------------------------------------------------

class Findings {
 public:
  void Add(std::string_view path, std::string_view message) {
    lines_.push_back(fmt::format("{}: {}", path, message));
  }
  std::vector<std::string> Take() { return std::move(lines_); }

 private:
  std::vector<std::string> lines_;
};

// ---- shared rules -------------------------------------------------------------------------------

void ValidateName(const ObjectMeta& meta, Findings& findings) {
  if (!IsDnsSubdomain(meta.name)) {
    findings.Add("metadata.name",
                 fmt::format("invalid name \"{}\": must be a lower-case DNS subdomain", meta.name));
  }
}

// A label key used by a NodePool or NodeClaim: syntax, then reserved domains.
void ValidateLabelKey(std::string_view key, std::string_view path, Findings& findings) {
  if (std::string problem = LabelKeyProblem(key); !problem.empty()) {
    findings.Add(path, problem);
    return;
  }
  if (std::string reason = RestrictedLabelReason(key); !reason.empty()) {
    findings.Add(path, reason);
  }
}

void ValidateLabelValue(std::string_view value, std::string_view path, Findings& findings) {
  if (std::string problem = LabelValueProblem(value); !problem.empty()) {
    findings.Add(path, problem);
  }
}

// Whose requirements: a NodeClaim names its NodePool in them (karpenter.sh/nodepool In [name]), and
// a NodeOverlay may select by it; a NodePool's template may not. Only NodePools and NodeClaims
// have minValues.
enum class RequirementsOf { kNodePool, kNodeClaim, kNodeOverlay };

void ValidateRequirements(const std::vector<NodeSelectorRequirement>& requirements,
                          std::string_view path, RequirementsOf owner, Findings& findings) {
  if (requirements.size() > kMaxRequirements) {
    findings.Add(path, fmt::format("too many requirements: {} (at most {})", requirements.size(),
                                   kMaxRequirements));
  }
  for (size_t i = 0; i < requirements.size(); ++i) {
    const NodeSelectorRequirement& requirement = requirements[i];
    const std::string item = fmt::format("{}[{}]", path, i);
    if (owner == RequirementsOf::kNodePool || requirement.key != kLabelNodePool) {
      ValidateLabelKey(requirement.key, item + ".key", findings);
    }
    if (owner == RequirementsOf::kNodeOverlay && requirement.min_values) {
      findings.Add(item + ".minValues", "is not a field of NodeOverlay requirements");
    }
    const std::string_view op = ToString(requirement.op);
    switch (requirement.op) {
      case NodeSelectorOperator::kIn:
        if (requirement.values.empty()) {
          findings.Add(item + ".values", "operator In needs at least one value");
        }
        break;
      case NodeSelectorOperator::kGt:
      case NodeSelectorOperator::kLt:
      case NodeSelectorOperator::kGte:
      case NodeSelectorOperator::kLte:
        if (requirement.values.size() != 1 || !IsNonNegativeInteger(requirement.values[0])) {
          findings.Add(item + ".values",
                       fmt::format("operator {} needs exactly one non-negative integer value", op));
        }
        break;
      default:
        break;
    }
    for (size_t j = 0; j < requirement.values.size(); ++j) {
      ValidateLabelValue(requirement.values[j], fmt::format("{}.values[{}]", item, j), findings);
    }
    if (requirement.min_values && owner != RequirementsOf::kNodeOverlay) {
      const int min_values = *requirement.min_values;
      if (min_values < kMinMinValues || min_values > kMaxMinValues) {
        findings.Add(item + ".minValues", fmt::format("must be between {} and {}, got {}",
                                                      kMinMinValues, kMaxMinValues, min_values));
      } else if (requirement.op == NodeSelectorOperator::kIn &&
                 requirement.values.size() < static_cast<size_t>(min_values)) {
        findings.Add(item + ".values", fmt::format("has {} values, fewer than minValues {}",
                                                   requirement.values.size(), min_values));
      }
    }
  }
}

void ValidateTaints(const std::vector<Taint>& taints, std::string_view path, Findings& findings) {
  for (size_t i = 0; i < taints.size(); ++i) {
    const Taint& taint = taints[i];
    if (!IsQualifiedName(taint.key)) {
      findings.Add(fmt::format("{}[{}].key", path, i),
                   fmt::format("invalid taint key \"{}\": must be a qualified name", taint.key));
    }
    if (!taint.value.empty() && !IsQualifiedName(taint.value)) {
      findings.Add(fmt::format("{}[{}].value", path, i),
                   fmt::format("invalid taint value \"{}\"", taint.value));
    }
  }
}

void ValidateNodeClassRef(const NodeClassReference& ref, std::string_view path,
                          Findings& findings) {
  const std::pair<std::string_view, const std::string*> fields[] = {
      {"group", &ref.group}, {"kind", &ref.kind}, {"name", &ref.name}};
  for (const auto& [name, value] : fields) {
    if (value->empty()) findings.Add(fmt::format("{}.{}", path, name), "required");
  }
}

void ValidateClaimSpec(const NodeClaimSpec& spec, std::string_view path, RequirementsOf owner,
                       Findings& findings) {
  ValidateRequirements(spec.requirements, fmt::format("{}.requirements", path), owner, findings);
  ValidateTaints(spec.taints, fmt::format("{}.taints", path), findings);
  ValidateTaints(spec.startup_taints, fmt::format("{}.startupTaints", path), findings);
  ValidateNodeClassRef(spec.node_class_ref, fmt::format("{}.nodeClassRef", path), findings);
}

void ValidateTemplateLabels(const Labels& labels, Findings& findings) {
  constexpr std::string_view kPath = "spec.template.metadata.labels";
  if (labels.size() > kMaxTemplateLabels) {
    findings.Add(
        kPath, fmt::format("too many labels: {} (at most {})", labels.size(), kMaxTemplateLabels));
  }
  for (const auto& [key, value] : labels) {
    const std::string path = fmt::format("{}[{}]", kPath, key);
    ValidateLabelKey(key, path, findings);
    ValidateLabelValue(value, path, findings);
  }
}

// "10", "10%", "100%": a count, or a percentage of at most 100.
bool IsBudgetNodes(std::string_view nodes) {
  if (nodes.ends_with('%')) {
    const std::string_view digits = nodes.substr(0, nodes.size() - 1);
    if (digits == "100") return true;
    return !digits.empty() && digits.size() <= 2 &&
           std::all_of(digits.begin(), digits.end(), IsDigit);
  }
  return !nodes.empty() && std::all_of(nodes.begin(), nodes.end(), IsDigit);
}

void ValidateBudgets(const std::vector<Budget>& budgets, Findings& findings) {
  constexpr std::string_view kPath = "spec.disruption.budgets";
  if (budgets.size() > kMaxBudgets) {
    findings.Add(kPath,
                 fmt::format("too many budgets: {} (at most {})", budgets.size(), kMaxBudgets));
  }
  for (size_t i = 0; i < budgets.size(); ++i) {
    const Budget& budget = budgets[i];
    const std::string item = fmt::format("{}[{}]", kPath, i);
    if (!IsBudgetNodes(budget.nodes)) {
      findings.Add(item + ".nodes", fmt::format("invalid value \"{}\": must be a node count such "
                                                "as \"5\" or a percentage such as \"10%\"",
                                                budget.nodes));
    }
    if (budget.schedule.empty() != !budget.duration.has_value()) {
      findings.Add(item, "schedule and duration must be set together");
    }
    if (!budget.schedule.empty()) {
      if (Result<CronSchedule> cron = CronSchedule::Parse(budget.schedule); !cron.ok()) {
        findings.Add(item + ".schedule", "invalid " + cron.error().message);
      }
    }
  }
}

}  // namespace

// ---- public syntax checks -----------------------------------------------------------------------

bool IsDnsSubdomain(std::string_view name) {
  if (name.empty() || name.size() > kMaxSubdomainLength) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = name.find('.', start);
    if (!IsDnsLabel(name.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool IsQualifiedName(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return IsNamePart(key);
  return IsDnsSubdomain(key.substr(0, slash)) && IsNamePart(key.substr(slash + 1));
}

bool IsLabelValue(std::string_view value) { return value.empty() || IsNamePart(value); }

std::string PrintableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", byte);
    }
  }
  return out;
}

std::string LabelKeyProblem(std::string_view key) {
  if (IsQualifiedName(key) && key.size() <= kMaxLabelKeyLength) return "";
  return fmt::format(
      R"(invalid label key "{}": must be a qualified name such as "example.com/name")",
      PrintableText(key));
}

std::string LabelValueProblem(std::string_view value) {
  if (IsLabelValue(value)) return "";
  return fmt::format(
      R"(invalid label value "{}": at most 63 characters of [A-Za-z0-9-_.], starting and ending )"
      "alphanumeric",
      PrintableText(value));
}

std::string RestrictedLabelReason(std::string_view key) {
  const std::string_view domain = key.substr(0, key.find('/'));
  if (key == "kubernetes.io/hostname" || key == "karpenter.sh/nodepool") {
    return fmt::format("label \"{}\" is restricted", key);
  }
  if (domain.ends_with("karpenter.sh") && key != "karpenter.sh/capacity-type") {
    return "label domain \"karpenter.sh\" is restricted";
  }
  if (domain.ends_with("kubernetes.io") && !OneOf(key, kAllowedKubernetesKeys) &&
      !domain.ends_with("node.kubernetes.io") &&
      !domain.ends_with("node-restriction.kubernetes.io")) {
    return "label domain \"kubernetes.io\" is restricted";
  }
  if (domain.ends_with("k8s.io") && !domain.ends_with("kops.k8s.io")) {
    return "label domain \"k8s.io\" is restricted";
  }
  if (domain.ends_with("karpenter.k8s.aws") && !OneOf(key, kAllowedAwsKeys)) {
    return "label domain \"karpenter.k8s.aws\" is restricted";
  }
  return {};
}

Status CheckDurationSyntax(std::string_view text, DurationSyntax syntax) {
  switch (syntax) {
    case DurationSyntax::kGo:
      return {};
    case DurationSyntax::kExpiry:
      if (text == "Never" || IsUnitSequence(text, "smh")) return {};
      return Error{
          "must be whole hours, minutes and seconds such as \"720h\" or \"1h30m\", or "
          "\"Never\""};
    case DurationSyntax::kGracePeriod:
      if (IsUnitSequence(text, "smh")) return {};
      return Error{"must be whole hours, minutes and seconds such as \"24h\" or \"1h30m\""};
    case DurationSyntax::kBudgetWindow:
      if (IsBudgetWindow(text)) return {};
      return Error{"must be whole hours and/or minutes such as \"8h\", \"30m\" or \"1h30m\""};
  }
  return {};
}

Status CheckVolumeSizeSyntax(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    int max;
  };
  // Ordered so that "Gi" is tried before "G" and "Ti" before "T".
  constexpr Unit kUnits[] = {{"Gi", 59000}, {"Ti", 58}, {"G", 64000}, {"T", 64}};
  for (const Unit& unit : kUnits) {
    if (!text.ends_with(unit.suffix)) continue;
    const std::string_view digits = text.substr(0, text.size() - unit.suffix.size());
    int value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    const bool ok = !digits.empty() && digits[0] != '0' &&
                    std::all_of(digits.begin(), digits.end(), IsDigit) && error == std::errc() &&
                    end == digits.data() + digits.size() && value >= 1 && value <= unit.max;
    if (ok) return {};
    return Error{fmt::format("must be between 1{0} and {1}{0}", unit.suffix, unit.max)};
  }
  return Error{"must be a whole number of Gi, G, Ti or T such as \"20Gi\""};
}

// ---- NodePool and NodeClaim ---------------------------------------------------------------------

std::vector<std::string> ValidateNodePool(const NodePool& pool) {
  Findings findings;
  ValidateName(pool.metadata, findings);
  ValidateTemplateLabels(pool.spec.template_.metadata.labels, findings);
  ValidateClaimSpec(pool.spec.template_.spec, "spec.template.spec", RequirementsOf::kNodePool,
                    findings);
  ValidateBudgets(pool.spec.disruption.budgets, findings);
  if (const std::optional<int32_t> k = pool.spec.disruption.consolidation_threshold) {
    constexpr std::string_view kPath = "spec.disruption.consolidationThreshold";
    if (pool.spec.disruption.consolidation_policy != ConsolidationPolicy::kBalanced) {
      findings.Add(kPath, "may only be set with consolidationPolicy: Balanced");
    } else if (*k < kMinConsolidationThreshold || *k > kMaxConsolidationThreshold) {
      findings.Add(kPath, fmt::format("must be between {} and {}, got {}",
                                      kMinConsolidationThreshold, kMaxConsolidationThreshold, *k));
    }
  }
  if (pool.spec.weight && (*pool.spec.weight < kMinWeight || *pool.spec.weight > kMaxWeight)) {
    findings.Add("spec.weight", fmt::format("must be between {} and {}, got {}", kMinWeight,
                                            kMaxWeight, *pool.spec.weight));
  }
  // A static pool's count is its replicas: no weight orders it among pools, and of the limits only
  // a node count (room for replacements) means anything.
  if (IsStatic(pool)) {
    if (pool.spec.weight) {
      findings.Add("spec.weight", "may not be set on static NodePools (spec.replicas is set)");
    }
    for (const std::string& limit : pool.spec.limited_resources) {
      if (limit != "nodes") {
        findings.Add(fmt::format("spec.limits.{}", limit),
                     "only limits.nodes is supported on static NodePools (spec.replicas is set)");
      }
    }
  }
  return findings.Take();
}

std::vector<std::string> ValidateNodeClaim(const NodeClaim& claim) {
  Findings findings;
  ValidateName(claim.metadata, findings);
  ValidateClaimSpec(claim.spec, "spec", RequirementsOf::kNodeClaim, findings);
  return findings.Take();
}

// ---- NodeOverlay --------------------------------------------------------------------------------

std::vector<std::string> ValidateNodeOverlay(const NodeOverlay& overlay) {
  Findings findings;
  ValidateName(overlay.metadata, findings);
  const NodeOverlay::Spec& spec = overlay.spec;
  if (spec.weight && (*spec.weight < kMinOverlayWeight || *spec.weight > kMaxOverlayWeight)) {
    findings.Add("spec.weight", fmt::format("must be between {} and {}, got {}", kMinOverlayWeight,
                                            kMaxOverlayWeight, *spec.weight));
  }
  ValidateRequirements(spec.requirements, "spec.requirements", RequirementsOf::kNodeOverlay,
                       findings);
  if (spec.price && spec.price_adjustment) {
    findings.Add("spec", "cannot set both price and priceAdjustment");
  }
  if (spec.price) {
    if (std::string problem = OverlayPriceProblem(*spec.price); !problem.empty()) {
      findings.Add("spec.price", problem);
    }
  }
  if (spec.price_adjustment) {
    if (std::string problem = OverlayPriceAdjustmentProblem(*spec.price_adjustment);
        !problem.empty()) {
      findings.Add("spec.priceAdjustment", problem);
    }
  }
  return findings.Take();
}

// ---- CapacityBuffer -----------------------------------------------------------------------------

std::vector<std::string> ValidateCapacityBuffer(const CapacityBuffer& buffer) {
  Findings findings;
  ValidateName(buffer.metadata, findings);
  const CapacityBuffer::Spec& spec = buffer.spec;
  if (spec.provisioning_strategy != kActiveCapacityStrategy) {
    findings.Add("spec.provisioningStrategy",
                 fmt::format("unsupported strategy \"{}\": Karpenter provisions only \"{}\"",
                             spec.provisioning_strategy, kActiveCapacityStrategy));
  }
  if (spec.pod_template_ref && spec.scalable_ref) {
    findings.Add("spec", "set podTemplateRef or scalableRef, not both");
  }
  if (!spec.pod_template_ref && !spec.scalable_ref) {
    findings.Add("spec", "set podTemplateRef or scalableRef: the pod the buffer keeps room for");
  }
  if (spec.pod_template_ref && !spec.replicas && spec.limited_resources.empty()) {
    findings.Add("spec",
                 "with podTemplateRef, set replicas or limits: how many copies to keep room for");
  }
  if (spec.percentage && !spec.scalable_ref) {
    findings.Add("spec.percentage", "needs scalableRef: a share of that workload's replicas");
  }
  if (const std::optional<ScalableReference>& ref = spec.scalable_ref) {
    if (ref->api_group != "" && ref->api_group != "apps") {
      findings.Add(
          "spec.scalableRef.apiGroup",
          fmt::format("unsupported group \"{}\": only \"apps\" workloads", ref->api_group));
    }
    if (ref->kind != "Deployment" && ref->kind != "StatefulSet" && ref->kind != "ReplicaSet") {
      findings.Add(
          "spec.scalableRef.kind",
          fmt::format("unsupported kind \"{}\": Deployment, StatefulSet or ReplicaSet", ref->kind));
    }
  }
  return findings.Take();
}

// ---- EC2NodeClass -------------------------------------------------------------------------------

namespace {

void ValidateSelectorTags(const Labels& tags, std::string_view path, Findings& findings) {
  if (tags.size() > kMaxSelectorTags) {
    findings.Add(path,
                 fmt::format("too many tags: {} (at most {})", tags.size(), kMaxSelectorTags));
  }
  for (const auto& [key, value] : tags) {
    if (key.empty() || value.empty()) {
      findings.Add(fmt::format("{}[{}]", path, key), "tag keys and values may not be empty");
    }
  }
}

bool IsResourceId(std::string_view id, std::string_view prefix) {
  if (!id.starts_with(prefix) || id.size() == prefix.size()) return false;
  const std::string_view rest = id.substr(prefix.size());
  return std::all_of(rest.begin(), rest.end(), IsLowerAlnum);
}

// Subnet and security group terms: tags, or an id alone, or (security groups) a name alone.
void ValidateSelectorTerms(const std::vector<SelectorTerm>& terms, std::string_view path,
                           std::string_view id_prefix, bool has_name, Findings& findings) {
  if (terms.empty()) findings.Add(path, "must have at least one term");
  if (terms.size() > kMaxSelectorTerms) {
    findings.Add(path,
                 fmt::format("too many terms: {} (at most {})", terms.size(), kMaxSelectorTerms));
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    const SelectorTerm& term = terms[i];
    const std::string item = fmt::format("{}[{}]", path, i);
    const bool tags = !term.tags.empty();
    const bool id = !term.id.empty();
    const bool name = has_name && !term.name.empty();
    if (!tags && !id && !name) {
      findings.Add(item, has_name ? "expected one of tags, id, name" : "expected one of tags, id");
    }
    if (id && (tags || name)) findings.Add(item, "id must be the only field of its term");
    if (name && tags && !id) findings.Add(item, "name must be the only field of its term");
    if (id && !IsResourceId(term.id, id_prefix)) {
      findings.Add(item + ".id", fmt::format("invalid id \"{}\": must look like \"{}0123abcd\"",
                                             term.id, id_prefix));
    }
    ValidateSelectorTags(term.tags, item + ".tags", findings);
  }
}

// "v20240807", "v1.10.0": a 'v' and dot-separated numbers.
bool IsPinnedVersion(std::string_view version) {
  if (version.size() < 2 || version[0] != 'v') return false;
  version.remove_prefix(1);
  while (true) {
    if (ConsumeDigits(version) == 0) return false;
    if (version.empty()) return true;
    if (version[0] != '.') return false;
    version.remove_prefix(1);
  }
}

// The amiFamily an alias stands for, after checking its syntax; empty when invalid.
std::string_view ValidateAlias(std::string_view alias, std::string_view path, Findings& findings) {
  if (alias.size() > kMaxAliasLength) {
    findings.Add(path,
                 fmt::format("alias \"{}\" is longer than {} characters", alias, kMaxAliasLength));
    return {};
  }
  const size_t at = alias.find('@');
  const std::string_view family = alias.substr(0, at);
  if (at == std::string_view::npos || family.empty() || at + 1 == alias.size() ||
      !std::all_of(family.begin(), family.end(), IsAlnum)) {
    findings.Add(path, fmt::format("invalid alias \"{}\": must be family@version", alias));
    return {};
  }
  const std::string_view version = alias.substr(at + 1);
  if (std::optional<std::string_view> ami_family = AmiFamilyOfAlias(family)) {
    if (version == "latest") return *ami_family;
    if (family.starts_with("windows")) {
      findings.Add(path, fmt::format("invalid alias \"{}\": Windows families only support "
                                     "@latest",
                                     alias));
    } else if (!IsPinnedVersion(version)) {
      findings.Add(path, fmt::format("invalid alias \"{}\": version must be \"latest\" or pinned "
                                     "such as \"v20240807\"",
                                     alias));
    } else {
      return *ami_family;
    }
    return {};
  }
  findings.Add(path, fmt::format("invalid alias \"{}\": unknown family \"{}\" (use al2, al2023, "
                                 "bottlerocket, windows2019, windows2022 or windows2025)",
                                 alias, family));
  return {};
}

// Returns the amiFamily of the alias term, if there is a valid one.
std::string_view ValidateAmiSelectorTerms(const std::vector<AmiSelectorTerm>& terms,
                                          Findings& findings) {
  constexpr std::string_view kPath = "spec.amiSelectorTerms";
  if (terms.empty()) findings.Add(kPath, "must have at least one term");
  if (terms.size() > kMaxSelectorTerms) {
    findings.Add(kPath,
                 fmt::format("too many terms: {} (at most {})", terms.size(), kMaxSelectorTerms));
  }
  std::string_view alias_family;
  for (size_t i = 0; i < terms.size(); ++i) {
    const AmiSelectorTerm& term = terms[i];
    const std::string item = fmt::format("{}[{}]", kPath, i);
    const bool tags = !term.tags.empty();
    const bool others =
        tags || !term.name.empty() || !term.owner.empty() || !term.ssm_parameter.empty();
    if (!term.alias.empty()) {
      if (!term.id.empty() || others) {
        findings.Add(item, "alias must be the only field of its term");
      }
      if (terms.size() != 1) findings.Add(item, "an alias term must be the only term");
      alias_family = ValidateAlias(term.alias, item + ".alias", findings);
    } else if (!term.id.empty()) {
      if (others) findings.Add(item, "id must be the only field of its term");
      if (!IsResourceId(term.id, "ami-")) {
        findings.Add(item + ".id",
                     fmt::format("invalid id \"{}\": must look like \"ami-0123abcd\"", term.id));
      }
    } else if (!tags && term.name.empty() && term.ssm_parameter.empty()) {
      findings.Add(item, "expected one of alias, tags, id, name, ssmParameter");
    }
    ValidateSelectorTags(term.tags, item + ".tags", findings);
  }
  return alias_family;
}

void ValidateAmiFamily(const EC2NodeClassSpec& spec, std::string_view alias_family, bool has_alias,
                       Findings& findings) {
  constexpr std::string_view kPath = "spec.amiFamily";
  if (spec.ami_family.empty()) {
    if (!has_alias) findings.Add(kPath, "required when amiSelectorTerms has no alias");
    return;
  }
  if (!OneOf(spec.ami_family, kAmiFamilies)) {
    findings.Add(kPath, fmt::format("unknown AMI family \"{}\" (use {})", spec.ami_family,
                                    JoinQuoted(kAmiFamilies)));
    return;
  }
  if (!alias_family.empty() && spec.ami_family != alias_family && spec.ami_family != "Custom") {
    findings.Add(kPath, fmt::format("must be \"{}\" or \"Custom\" with an alias of that family, "
                                    "got \"{}\"",
                                    alias_family, spec.ami_family));
  }
}

void ValidateTags(const Labels& tags, Findings& findings) {
  for (const auto& [key, value] : tags) {
    const std::string path = fmt::format("spec.tags[{}]", key);
    if (key.empty()) {
      findings.Add("spec.tags", "tag keys may not be empty");
    } else if (key.starts_with(kRestrictedTagPrefix) || OneOf(key, kRestrictedTags)) {
      findings.Add(path, fmt::format("tag \"{}\" is restricted (Karpenter sets it)", key));
    }
  }
}

// "5%", "12.5%", "100%" or a quantity ("100Mi").
bool IsEvictionThreshold(std::string_view value) {
  if (value.ends_with('%')) {
    std::string_view number = value.substr(0, value.size() - 1);
    const size_t whole = ConsumeDigits(number);
    size_t fraction = 0;
    if (!number.empty() && number[0] == '.') {
      number.remove_prefix(1);
      fraction = ConsumeDigits(number);
      if (fraction == 0) return false;
    }
    if (!number.empty() || whole == 0 || fraction > 2) return false;
    double percent = 0;
    const std::string_view text = value.substr(0, value.size() - 1);
    std::from_chars(text.data(), text.data() + text.size(), percent);
    return percent <= 100.0;
  }
  return Quantity::Parse(value).ok();
}

void ValidateSignalKeys(const Labels& map, std::string_view path, Findings& findings) {
  for (const auto& [key, value] : map) {
    if (!OneOf(key, kEvictionSignals)) {
      findings.Add(fmt::format("{}[{}]", path, key),
                   fmt::format("unknown eviction signal (use {})", JoinQuoted(kEvictionSignals)));
    }
  }
}

void ValidateThresholds(const Labels& map, std::string_view path, Findings& findings) {
  ValidateSignalKeys(map, path, findings);
  for (const auto& [key, value] : map) {
    if (!IsEvictionThreshold(value)) {
      findings.Add(
          fmt::format("{}[{}]", path, key),
          fmt::format("invalid threshold \"{}\": must be a percentage or a quantity", value));
    }
  }
}

void ValidateReserved(const Labels& map, std::string_view path, Findings& findings) {
  for (const auto& [key, value] : map) {
    const std::string item = fmt::format("{}[{}]", path, key);
    if (!OneOf(key, kReservedResources)) {
      findings.Add(item, fmt::format("unknown resource (use {})", JoinQuoted(kReservedResources)));
    }
    Result<Quantity> quantity = Quantity::Parse(value);
    if (!quantity.ok()) {
      findings.Add(item,
                   fmt::format("invalid quantity \"{}\": {}", value, quantity.error().message));
    } else if (*quantity < Quantity()) {
      findings.Add(item, fmt::format("may not be negative, got \"{}\"", value));
    }
  }
}

// Every key of `from` must also be a key of `to`.
void ValidateMatchingKeys(const Labels& from, const Labels& to, std::string_view from_path,
                          std::string_view to_name, Findings& findings) {
  for (const auto& [key, value] : from) {
    if (!to.contains(key)) {
      findings.Add(fmt::format("{}[{}]", from_path, key), fmt::format("no matching {}", to_name));
    }
  }
}

void ValidatePercent(const std::optional<int32_t>& value, std::string_view path,
                     Findings& findings) {
  if (value && (*value < 0 || *value > 100)) {
    findings.Add(path, fmt::format("must be between 0 and 100, got {}", *value));
  }
}

void ValidateKubelet(const KubeletConfiguration& kubelet, Findings& findings) {
  constexpr std::string_view kPath = "spec.kubelet";
  const std::pair<std::string_view, const std::optional<int32_t>*> non_negative[] = {
      {"maxPods", &kubelet.max_pods}, {"podsPerCore", &kubelet.pods_per_core}};
  for (const auto& [name, value] : non_negative) {
    if (*value && **value < 0) {
      findings.Add(fmt::format("{}.{}", kPath, name),
                   fmt::format("may not be negative, got {}", **value));
    }
  }
  ValidateReserved(kubelet.system_reserved, "spec.kubelet.systemReserved", findings);
  ValidateReserved(kubelet.kube_reserved, "spec.kubelet.kubeReserved", findings);
  ValidateThresholds(kubelet.eviction_hard, "spec.kubelet.evictionHard", findings);
  ValidateThresholds(kubelet.eviction_soft, "spec.kubelet.evictionSoft", findings);
  ValidateSignalKeys(kubelet.eviction_soft_grace_period, "spec.kubelet.evictionSoftGracePeriod",
                     findings);
  for (const auto& [key, value] : kubelet.eviction_soft_grace_period) {
    if (Result<Duration> period = Duration::Parse(value, /*allow_never=*/false); !period.ok()) {
      findings.Add(fmt::format("spec.kubelet.evictionSoftGracePeriod[{}]", key),
                   fmt::format("invalid duration \"{}\": {}", value, period.error().message));
    }
  }
  ValidateMatchingKeys(kubelet.eviction_soft, kubelet.eviction_soft_grace_period,
                       "spec.kubelet.evictionSoft", "evictionSoftGracePeriod", findings);
  ValidateMatchingKeys(kubelet.eviction_soft_grace_period, kubelet.eviction_soft,
                       "spec.kubelet.evictionSoftGracePeriod", "evictionSoft", findings);
  ValidatePercent(kubelet.image_gc_high_threshold_percent,
                  "spec.kubelet.imageGCHighThresholdPercent", findings);
  ValidatePercent(kubelet.image_gc_low_threshold_percent, "spec.kubelet.imageGCLowThresholdPercent",
                  findings);
  if (kubelet.image_gc_high_threshold_percent && kubelet.image_gc_low_threshold_percent &&
      *kubelet.image_gc_high_threshold_percent <= *kubelet.image_gc_low_threshold_percent) {
    findings.Add("spec.kubelet.imageGCHighThresholdPercent",
                 fmt::format("must be greater than imageGCLowThresholdPercent ({} <= {})",
                             *kubelet.image_gc_high_threshold_percent,
                             *kubelet.image_gc_low_threshold_percent));
  }
}

void ValidateBlockDeviceMappings(const std::vector<BlockDeviceMapping>& mappings,
                                 Findings& findings) {
  constexpr std::string_view kPath = "spec.blockDeviceMappings";
  if (mappings.size() > kMaxBlockDeviceMappings) {
    findings.Add(kPath, fmt::format("too many mappings: {} (at most {})", mappings.size(),
                                    kMaxBlockDeviceMappings));
  }
  const auto roots = std::count_if(mappings.begin(), mappings.end(),
                                   [](const BlockDeviceMapping& m) { return m.root_volume; });
  if (roots > 1) {
    findings.Add(kPath, fmt::format("at most one mapping may set rootVolume, got {}", roots));
  }
  for (size_t i = 0; i < mappings.size(); ++i) {
    if (!mappings[i].ebs) continue;
    const BlockDevice& ebs = *mappings[i].ebs;
    const std::string item = fmt::format("{}[{}].ebs", kPath, i);
    if (!ebs.volume_type.empty() && !OneOf(ebs.volume_type, kVolumeTypes)) {
      findings.Add(item + ".volumeType", fmt::format("unknown volume type \"{}\" (use {})",
                                                     ebs.volume_type, JoinQuoted(kVolumeTypes)));
    }
    if (!ebs.volume_size && ebs.snapshot_id.empty()) {
      findings.Add(item, "snapshotID or volumeSize must be set");
    }
  }
}

void ValidateEnum(std::string_view value, std::string_view path,
                  std::initializer_list<std::string_view> allowed, Findings& findings) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return;
  std::string names;
  for (const std::string_view name : allowed) {
    if (!names.empty()) names += ", ";
    names += fmt::format("\"{}\"", name);
  }
  findings.Add(path, fmt::format("unknown value \"{}\" (use {})", value, names));
}

void ValidateMetadataOptions(const MetadataOptions& options, Findings& findings) {
  ValidateEnum(options.http_endpoint, "spec.metadataOptions.httpEndpoint", {"enabled", "disabled"},
               findings);
  ValidateEnum(options.http_protocol_ipv6, "spec.metadataOptions.httpProtocolIPv6",
               {"enabled", "disabled"}, findings);
  ValidateEnum(options.http_tokens, "spec.metadataOptions.httpTokens", {"required", "optional"},
               findings);
  if (options.http_put_response_hop_limit < kMinHopLimit ||
      options.http_put_response_hop_limit > kMaxHopLimit) {
    findings.Add("spec.metadataOptions.httpPutResponseHopLimit",
                 fmt::format("must be between {} and {}, got {}", kMinHopLimit, kMaxHopLimit,
                             options.http_put_response_hop_limit));
  }
}

// Capacity reservation terms: an id alone, or tags and/or instanceMatchCriteria (with ownerID
// narrowing them), as upstream's CRD rules.
void ValidateCapacityReservationTerms(const std::vector<CapacityReservationSelectorTerm>& terms,
                                      Findings& findings) {
  constexpr std::string_view kPath = "spec.capacityReservationSelectorTerms";
  if (terms.size() > kMaxSelectorTerms) {
    findings.Add(kPath,
                 fmt::format("too many terms: {} (at most {})", terms.size(), kMaxSelectorTerms));
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    const CapacityReservationSelectorTerm& term = terms[i];
    const std::string item = fmt::format("{}[{}]", kPath, i);
    const bool tags = !term.tags.empty();
    const bool id = !term.id.empty();
    const bool criteria = !term.instance_match_criteria.empty();
    if (!tags && !id && !criteria) {
      findings.Add(item, "expected one of tags, id, instanceMatchCriteria");
    }
    if (id && (tags || criteria || !term.owner_id.empty())) {
      findings.Add(item, "id must be the only field of its term");
    }
    if (id && !IsResourceId(term.id, "cr-")) {
      findings.Add(item + ".id",
                   fmt::format("invalid id \"{}\": must look like \"cr-0123abcd\"", term.id));
    }
    if (!term.owner_id.empty() &&
        (term.owner_id.size() != 12 || !std::all_of(term.owner_id.begin(), term.owner_id.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; }))) {
      findings.Add(
          item + ".ownerID",
          fmt::format("invalid ownerID \"{}\": must be a 12-digit AWS account ID", term.owner_id));
    }
    if (criteria) {
      ValidateEnum(term.instance_match_criteria, item + ".instanceMatchCriteria",
                   {"open", "targeted"}, findings);
    }
    ValidateSelectorTags(term.tags, item + ".tags", findings);
  }
}

}  // namespace

std::vector<std::string> ValidateEC2NodeClass(const EC2NodeClass& node_class) {
  Findings findings;
  const EC2NodeClassSpec& spec = node_class.spec;
  ValidateName(node_class.metadata, findings);
  ValidateSelectorTerms(spec.subnet_selector_terms, "spec.subnetSelectorTerms", "subnet-",
                        /*has_name=*/false, findings);
  ValidateSelectorTerms(spec.security_group_selector_terms, "spec.securityGroupSelectorTerms",
                        "sg-", /*has_name=*/true, findings);
  const std::string_view alias_family = ValidateAmiSelectorTerms(spec.ami_selector_terms, findings);
  const bool has_alias =
      std::any_of(spec.ami_selector_terms.begin(), spec.ami_selector_terms.end(),
                  [](const AmiSelectorTerm& term) { return !term.alias.empty(); });
  ValidateAmiFamily(spec, alias_family, has_alias, findings);
  if (spec.role.empty() == spec.instance_profile.empty()) {
    findings.Add("spec", "must specify exactly one of role, instanceProfile");
  }
  ValidateTags(spec.tags, findings);
  if (spec.kubelet) ValidateKubelet(*spec.kubelet, findings);
  ValidateBlockDeviceMappings(spec.block_device_mappings, findings);
  if (!spec.instance_store_policy.empty()) {
    ValidateEnum(spec.instance_store_policy, "spec.instanceStorePolicy", {"RAID0"}, findings);
    if (node_class.EffectiveAmiFamily().starts_with("Windows")) {
      // The Windows bootstrap has no way to put ephemeral storage on the instance store, so the
      // nodes would not have the storage the scheduler planned with.
      findings.Add("spec.instanceStorePolicy",
                   "RAID0 is not supported by the Windows AMI families (their bootstrap cannot "
                   "move ephemeral storage to the instance store)");
    }
  }
  ValidateMetadataOptions(spec.metadata_options, findings);
  ValidateCapacityReservationTerms(spec.capacity_reservation_selector_terms, findings);
  return findings.Take();
}

}  // namespace karpenter::api
