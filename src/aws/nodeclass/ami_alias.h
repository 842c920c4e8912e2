#pragma once
// AMI aliases of amiSelectorTerms ("al2023@latest", "bottlerocket@v1.26.0"): which public SSM
// parameters name the EKS-optimized AMIs of a family and version for every architecture and
// variant (standard, NVIDIA, Neuron), and the node requirements each of those AMIs carries.

#include <string>
#include <string_view>
#include <vector>

#include "api/node_selector.h"
#include "common/result.h"

namespace karpenter::aws {

struct AmiAlias {
  std::string family;   // "al2023", "al2", "bottlerocket", "windows2019", "windows2022", …
  std::string version;  // "latest" or a release ("v20240807", "v1.26.0")
};

// Splits "<family>@<version>"; the error names the alias and what is wrong with it.
Result<AmiAlias> ParseAmiAlias(std::string_view alias);

// One SSM parameter an alias resolves through, and what the AMI it names is for.
struct AliasParameter {
  std::string name;          // "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/…/image_id"
  std::string architecture;  // as EC2 spells it: "x86_64" or "arm64"
  // One requirement set per variant the AMI serves (an AL2 GPU AMI serves NVIDIA and Neuron
  // instances): GPU/accelerator requirements and, for Windows, the OS and build. The architecture
  // requirement is not included: it comes from the image (ArchitectureRequirement).
  std::vector<std::vector<api::NodeSelectorRequirement>> variants;
};

// Every parameter that may name an AMI of `alias` for Kubernetes `kubernetes_version` ("1.31"),
// published or not (AWS does not publish every variant for every release). Empty for an unknown
// family; Windows families only know "latest".
std::vector<AliasParameter> AliasParameters(const AmiAlias& alias,
                                            std::string_view kubernetes_version);

// kubernetes.io/arch In [amd64|arm64] for EC2's "x86_64" / "arm64"; the value is EC2's spelling
// for any other architecture.
api::NodeSelectorRequirement ArchitectureRequirement(std::string_view ec2_architecture);

}  // namespace karpenter::aws
