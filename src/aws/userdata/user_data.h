#pragma once
// EC2 user data for a node: rendered per AMI family from a NodeBootstrap and merged with the
// EC2NodeClass's spec.userData, and read back into what the node will register with.

#include <string>
#include <string_view>
#include <vector>

#include "api/taint.h"
#include "aws/userdata/node_bootstrap.h"
#include "common/result.h"

namespace karpenter::aws {

// The user data (plain text; the launch template wants it base64-encoded, see base64.h):
// - AL2023: a MIME multipart document; the user's parts (a MIME document's parts, or a bare
//   NodeConfig / shell script / cloud-config as one part) come first, then our NodeConfig.
// - AL2: a MIME multipart document; the user's parts first, then a shell script that runs
//   /etc/eks/bootstrap.sh.
// - Bottlerocket: TOML; the user's settings kept, ours win for the keys we set.
// - Windows2019/2022/2025: a <powershell> block running the user's script, then
//   Start-EKSBootstrap.ps1.
// - Custom: spec.userData unchanged.
// The same input always gives the same bytes (labels and taints sorted), so launch template
// hashes are stable. Errors name spec.userData (and the EC2NodeClass) and the reason.
Result<std::string> RenderUserData(const NodeBootstrap& bootstrap);

// The taints a node of this bootstrap registers with: bootstrap.taints plus, for every family but
// Custom, karpenter.sh/unregistered:NoExecute; sorted, without duplicates.
std::vector<api::Taint> RegistrationTaints(const NodeBootstrap& bootstrap);

// What a machine booted with `user_data` (plain text) registers with, for any format
// RenderUserData makes: labels, taints and max pods from the NodeConfigs (later ones win, kubelet
// flags over kubelet config), the bootstrap.sh or Start-EKSBootstrap.ps1 call's kubelet
// arguments, or Bottlerocket's settings.kubernetes. User data in none of these formats (Custom)
// gives an empty registration; malformed user data an Error.
Result<NodeRegistration> ParseNodeRegistration(std::string_view user_data);

}  // namespace karpenter::aws
