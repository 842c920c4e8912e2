#include "migrate/node_pools.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "api/labels.h"

namespace karpenter::migrate {
namespace {

// What an EKS AMI type says about the nodes: the EC2NodeClass alias family, the architecture and
// the operating system. EKS spells them <FAMILY>_<ARCH>[_VARIANT] (AL2023_x86_64_STANDARD,
// AL2_ARM_64, BOTTLEROCKET_x86_64_NVIDIA, WINDOWS_CORE_2022_x86_64).
struct AmiType {
  std::string family;  // "" when Karpenter has no alias for it (CUSTOM)
  std::string arch;    // amd64 or arm64
  std::string os;      // linux or windows
};

AmiType ParseAmiType(std::string_view ami_type) {
  AmiType out;
  out.arch = ami_type.find("ARM_64") != std::string_view::npos ? "arm64" : "amd64";
  out.os = "linux";
  if (ami_type.starts_with("AL2023_")) {
    out.family = "al2023";
  } else if (ami_type.starts_with("AL2_")) {
    out.family = "al2";
  } else if (ami_type.starts_with("BOTTLEROCKET_")) {
    out.family = "bottlerocket";
  } else if (ami_type.starts_with("WINDOWS_")) {
    out.os = "windows";
    out.family = ami_type.find("2019") != std::string_view::npos ? "windows2019" : "windows2022";
  }
  return out;
}

// "m5.xlarge" → "m5".
std::string FamilyOf(std::string_view instance_type) {
  return std::string(instance_type.substr(0, instance_type.find('.')));
}

// Labels under these domains are the kubelet's, EKS's or Karpenter's to set: a NodePool may not.
bool ReservedLabel(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view domain = key.substr(0, slash);
  for (const std::string_view reserved :
       {"kubernetes.io", "k8s.io", "karpenter.sh", "karpenter.k8s.aws", "eks.amazonaws.com"}) {
    if (domain == reserved || (domain.size() > reserved.size() && domain.ends_with(reserved) &&
                               domain[domain.size() - reserved.size() - 1] == '.')) {
      return true;
    }
  }
  return false;
}

std::string TaintEffect(std::string_view eks_effect) {
  if (eks_effect == "NO_EXECUTE") return "NoExecute";
  if (eks_effect == "PREFER_NO_SCHEDULE") return "PreferNoSchedule";
  return "NoSchedule";
}

// A name Kubernetes takes (lowercase letters, digits, '-'), from a node group's.
std::string ObjectName(std::string_view name) {
  std::string out;
  for (const char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c)) != 0
               ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
               : '-';
  }
  while (!out.empty() && out.front() == '-') out.erase(out.begin());
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "node-group" : out.substr(0, 63);
}

// What makes node groups one NodePool: the same AMI family and OS, capacity type, labels and
// taints. Instance families and architectures are merged.
struct PoolKey {
  std::string family;
  std::string os;
  std::string capacity_type;
  std::map<std::string, std::string> labels;
  std::vector<std::tuple<std::string, std::string, std::string>> taints;
  bool operator<(const PoolKey& other) const {
    return std::tie(family, os, capacity_type, labels, taints) <
           std::tie(other.family, other.os, other.capacity_type, other.labels, other.taints);
  }
};

struct PoolParts {
  std::vector<std::string> node_groups;
  std::set<std::string> archs;
  std::set<std::string> instance_families;
  bool any_type = false;  // a node group without instance types (its launch template's)
};

Json Requirement(std::string_view key, std::string_view op, std::vector<std::string> values) {
  return {{"key", key}, {"operator", op}, {"values", std::move(values)}};
}

Json NodeClass(const NodePoolInputs& inputs, const std::string& name, const std::string& family) {
  const std::string version = family == "al2023" ? inputs.alias_version : "latest";
  const Json discovery = {{"tags", {{"karpenter.sh/discovery", inputs.cluster_name}}}};
  return {{"apiVersion", "karpenter.k8s.aws/v1"},
          {"kind", "EC2NodeClass"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"role", "KarpenterNodeRole-" + inputs.cluster_name},
            {"amiSelectorTerms", Json::array({{{"alias", family + "@" + version}}})},
            {"subnetSelectorTerms", Json::array({discovery})},
            {"securityGroupSelectorTerms", Json::array({discovery})}}}};
}

Json NodePool(const std::string& name, const std::string& node_class, const PoolKey& key,
              const PoolParts& parts) {
  Json requirements = Json::array();
  requirements.push_back(
      Requirement(api::kLabelArch, "In", {parts.archs.begin(), parts.archs.end()}));
  requirements.push_back(Requirement(api::kLabelOs, "In", {key.os}));
  requirements.push_back(Requirement(api::kLabelCapacityType, "In", {key.capacity_type}));
  if (parts.any_type || parts.instance_families.empty()) {
    // The seed's choice where the node groups name no types.
    requirements.push_back(Requirement(api::kLabelInstanceCategory, "In", {"c", "m", "r"}));
    requirements.push_back(Requirement(api::kLabelInstanceGeneration, "Gt", {"2"}));
  } else {
    requirements.push_back(
        Requirement(api::kLabelInstanceFamily, "In",
                    {parts.instance_families.begin(), parts.instance_families.end()}));
  }
  Json spec = {{"requirements", std::move(requirements)},
               {"nodeClassRef",
                {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", node_class}}},
               {"expireAfter", "720h"}};
  if (!key.taints.empty()) {
    Json taints = Json::array();
    for (const auto& [taint_key, value, effect] : key.taints) {
      Json taint = {{"key", taint_key}, {"effect", effect}};
      if (!value.empty()) taint["value"] = value;
      taints.push_back(std::move(taint));
    }
    spec["taints"] = std::move(taints);
  }
  Json template_ = {{"spec", std::move(spec)}};
  if (!key.labels.empty()) template_["metadata"] = {{"labels", key.labels}};
  return {{"apiVersion", "karpenter.sh/v1"},
          {"kind", "NodePool"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"template", std::move(template_)},
            {"limits", {{"cpu", 1000}}},
            {"disruption",
             {{"consolidationPolicy", "WhenEmptyOrUnderutilized"}, {"consolidateAfter", "1m"}}}}}};
}

}  // namespace

DerivedNodePools DeriveNodePools(const NodePoolInputs& inputs) {
  DerivedNodePools out;
  std::map<PoolKey, PoolParts> pools;
  std::vector<aws::EksNodegroup> groups = inputs.node_groups;
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const aws::EksNodegroup& group : groups) {
    const AmiType ami = ParseAmiType(group.ami_type);
    if (ami.family.empty()) {
      out.notes.push_back(fmt::format(
          "node group {}: AMI type {} has no EC2NodeClass alias; give an EC2NodeClass its AMIs "
          "(amiSelectorTerms) and a NodePool by hand",
          group.name, group.ami_type.empty() ? "(none)" : group.ami_type));
      continue;
    }
    if (group.capacity_type == "CAPACITY_BLOCK") {
      out.notes.push_back(fmt::format(
          "node group {}: Capacity Blocks are reserved capacity; select the reservation in an "
          "EC2NodeClass's capacityReservationSelectorTerms by hand",
          group.name));
      continue;
    }
    PoolKey key{ami.family, ami.os, group.capacity_type == "SPOT" ? "spot" : "on-demand", {}, {}};
    for (const auto& [label, value] : group.labels) {
      if (ReservedLabel(label)) {
        out.notes.push_back(fmt::format(
            "node group {}: label {} is not carried over (its domain is reserved for the "
            "kubelet, EKS or Karpenter)",
            group.name, label));
        continue;
      }
      key.labels.emplace(label, value);
    }
    for (const aws::EksTaint& taint : group.taints) {
      key.taints.emplace_back(taint.key, taint.value, TaintEffect(taint.effect));
    }
    std::sort(key.taints.begin(), key.taints.end());
    PoolParts& parts = pools[key];
    parts.node_groups.push_back(group.name);
    parts.archs.insert(ami.arch);
    if (group.instance_types.empty()) parts.any_type = true;
    for (const std::string& type : group.instance_types) {
      parts.instance_families.insert(FamilyOf(type));
    }
  }

  std::set<std::string> families;
  for (const auto& [key, parts] : pools) families.insert(key.family);
  // One AMI family: the seed's EC2NodeClass "default"; several: one per family.
  auto node_class_name = [&](const std::string& family) {
    return families.size() == 1 ? std::string("default") : family;
  };
  for (const std::string& family : families) {
    out.node_classes.push_back(NodeClass(inputs, node_class_name(family), family));
  }
  std::set<std::string> names;
  for (const auto& [key, parts] : pools) {
    // One NodePool: the seed's "default"; several: named after their first node group.
    std::string name = pools.size() == 1 ? "default" : ObjectName(parts.node_groups.front());
    for (int suffix = 2; names.contains(name); ++suffix) {
      name = fmt::format("{}-{}", ObjectName(parts.node_groups.front()), suffix);
    }
    names.insert(name);
    out.node_pools.push_back(NodePool(name, node_class_name(key.family), key, parts));
    out.node_groups.push_back(parts.node_groups);
  }
  return out;
}

std::string PinnedAliasVersion(std::string_view requested, std::string_view read) {
  if (!requested.empty()) return std::string(requested);
  return read.empty() ? "latest" : std::string(read);
}

}  // namespace karpenter::migrate
