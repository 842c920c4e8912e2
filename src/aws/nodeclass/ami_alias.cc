#include "aws/nodeclass/ami_alias.h"

#include <string>
#include <utility>

#include "api/labels.h"

namespace karpenter::aws {
namespace {

using api::NodeSelectorOperator;
using api::NodeSelectorRequirement;
using Requirements = std::vector<NodeSelectorRequirement>;

constexpr std::string_view kLatest = "latest";

NodeSelectorRequirement Exists(std::string_view key) {
  return NodeSelectorRequirement{.key = std::string(key),
                                 .op = NodeSelectorOperator::kExists,
                                 .values = {},
                                 .min_values = std::nullopt};
}

NodeSelectorRequirement DoesNotExist(std::string_view key) {
  return NodeSelectorRequirement{.key = std::string(key),
                                 .op = NodeSelectorOperator::kDoesNotExist,
                                 .values = {},
                                 .min_values = std::nullopt};
}

NodeSelectorRequirement In(std::string_view key, std::string value) {
  return NodeSelectorRequirement{.key = std::string(key),
                                 .op = NodeSelectorOperator::kIn,
                                 .values = {std::move(value)},
                                 .min_values = std::nullopt};
}

// Plain instances: no GPU and no accelerator.
Requirements Standard() {
  return {DoesNotExist(api::kLabelInstanceGpuCount),
          DoesNotExist(api::kLabelInstanceAcceleratorCount)};
}
Requirements Nvidia() { return {Exists(api::kLabelInstanceGpuCount)}; }
Requirements Neuron() { return {Exists(api::kLabelInstanceAcceleratorCount)}; }

std::vector<AliasParameter> Al2023(const std::string& k8s, const std::string& version) {
  const std::string prefix = "/aws/service/eks/optimized-ami/" + k8s + "/amazon-linux-2023/";
  struct Kind {
    const char* arch;
    const char* variant;
    Requirements requirements;
  };
  const std::vector<Kind> kinds = {{"x86_64", "standard", Standard()},
                                   {"arm64", "standard", Standard()},
                                   {"x86_64", "nvidia", Nvidia()},
                                   {"arm64", "nvidia", Nvidia()},
                                   {"x86_64", "neuron", Neuron()}};
  std::vector<AliasParameter> parameters;
  for (const Kind& kind : kinds) {
    std::string name = prefix + kind.arch + "/" + kind.variant + "/";
    if (version == kLatest) {
      name += "recommended";
    } else {
      name += "amazon-eks-node-al2023-";
      name += kind.arch;
      name += "-";
      name += kind.variant;
      name += "-";
      name += k8s;
      name += "-";
      name += version;
    }
    name += "/image_id";
    parameters.push_back(AliasParameter{
        .name = std::move(name), .architecture = kind.arch, .variants = {kind.requirements}});
  }
  return parameters;
}

std::vector<AliasParameter> Al2(const std::string& k8s, const std::string& version) {
  const std::string prefix = "/aws/service/eks/optimized-ami/" + k8s + "/";
  struct Kind {
    const char* directory;  // under the Kubernetes version
    const char* image;      // the image name's stem, for pinned releases
    const char* arch;
    std::vector<Requirements> variants;
  };
  const std::vector<Kind> kinds = {
      {"amazon-linux-2", "amazon-eks-node-", "x86_64", {Standard()}},
      {"amazon-linux-2-arm64", "amazon-eks-arm64-node-", "arm64", {Standard()}},
      {"amazon-linux-2-gpu", "amazon-eks-gpu-node-", "x86_64", {Nvidia(), Neuron()}}};
  std::vector<AliasParameter> parameters;
  for (const Kind& kind : kinds) {
    std::string name = prefix + kind.directory + "/";
    if (version == kLatest) {
      name += "recommended";
    } else {
      name += kind.image;
      name += k8s;
      name += "-";
      name += version;
    }
    name += "/image_id";
    parameters.push_back(AliasParameter{
        .name = std::move(name), .architecture = kind.arch, .variants = kind.variants});
  }
  return parameters;
}

std::vector<AliasParameter> Bottlerocket(const std::string& k8s, const std::string& version) {
  // Bottlerocket's parameters spell releases without the "v" ("1.26.0").
  const std::string release =
      version.starts_with('v') && version != kLatest ? version.substr(1) : version;
  const std::string prefix = "/aws/service/bottlerocket/aws-k8s-" + k8s;
  struct Kind {
    const char* flavour;  // suffix of the variant's directory
    const char* arch;
    std::vector<Requirements> variants;
  };
  // The standard x86_64 image also carries the Neuron driver.
  const std::vector<Kind> kinds = {{"", "x86_64", {Standard(), Neuron()}},
                                   {"", "arm64", {Standard()}},
                                   {"-nvidia", "x86_64", {Nvidia()}},
                                   {"-nvidia", "arm64", {Nvidia()}}};
  std::vector<AliasParameter> parameters;
  for (const Kind& kind : kinds) {
    std::string name = prefix;
    name += kind.flavour;
    name += "/";
    name += kind.arch;
    name += "/";
    name += release;
    name += "/image_id";
    parameters.push_back(AliasParameter{
        .name = std::move(name), .architecture = kind.arch, .variants = kind.variants});
  }
  return parameters;
}

std::vector<AliasParameter> Windows(const std::string& k8s, std::string_view year,
                                    std::string_view build) {
  std::string name = "/aws/service/ami-windows-latest/Windows_Server-";
  name += year;
  name += "-English-Core-EKS_Optimized-" + k8s + "/image_id";
  return {AliasParameter{.name = std::move(name),
                         .architecture = "x86_64",
                         .variants = {{In(api::kLabelOs, "windows"),
                                       In(api::kLabelWindowsBuild, std::string(build))}}}};
}

}  // namespace

Result<AmiAlias> ParseAmiAlias(std::string_view alias) {
  const size_t at = alias.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == alias.size()) {
    return Error{"alias \"" + std::string(alias) + "\": expected <family>@<version>"};
  }
  return AmiAlias{.family = std::string(alias.substr(0, at)),
                  .version = std::string(alias.substr(at + 1))};
}

std::vector<AliasParameter> AliasParameters(const AmiAlias& alias,
                                            std::string_view kubernetes_version) {
  const std::string k8s(kubernetes_version);
  if (alias.family == "al2023") return Al2023(k8s, alias.version);
  if (alias.family == "al2") return Al2(k8s, alias.version);
  if (alias.family == "bottlerocket") return Bottlerocket(k8s, alias.version);
  if (alias.version != kLatest) return {};
  if (alias.family == "windows2019") return Windows(k8s, "2019", "10.0.17763");
  if (alias.family == "windows2022") return Windows(k8s, "2022", "10.0.20348");
  if (alias.family == "windows2025") return Windows(k8s, "2025", "10.0.26100");
  return {};
}

api::NodeSelectorRequirement ArchitectureRequirement(std::string_view ec2_architecture) {
  std::string value(ec2_architecture);
  if (ec2_architecture == "x86_64") value = "amd64";
  return In(api::kLabelArch, std::move(value));
}

}  // namespace karpenter::aws
