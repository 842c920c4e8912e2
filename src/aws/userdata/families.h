#pragma once
// Internal to the user data renderers: one renderer and one reader per AMI family, and the
// helpers they share (kubelet flags, taint specs, shell and PowerShell quoting).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/taint.h"
#include "aws/userdata/mime.h"
#include "aws/userdata/node_bootstrap.h"
#include "common/result.h"

namespace karpenter::aws::userdata {

// "EC2NodeClass <name>: spec.userData" (or just "spec.userData" without a name).
std::string UserDataField(const NodeBootstrap& bootstrap);
// The max pods to configure: bootstrap.max_pods, else kubelet.maxPods.
std::optional<int32_t> MaxPods(const NodeBootstrap& bootstrap);
// The cluster DNS address: kubelet.clusterDNS[0], else the 10th address of the service CIDR
// (10.100.0.0/16 -> 10.100.0.10; fd00::/108 -> fd00::a), else "".
std::string ClusterDnsIp(const NodeBootstrap& bootstrap);

// key=value:Effect, or key:Effect without a value.
std::string TaintSpec(const api::Taint& taint);
Result<api::Taint> ParseTaintSpec(std::string_view spec);
// "a=1,b=2" for sorted labels.
std::string LabelSpec(const api::Labels& labels);

// The kubelet flags for AL2 and Windows: --node-labels, --register-with-taints, --max-pods and
// the kubelet configuration (reserved resources, eviction, image GC, CFS quota, pods per core).
std::vector<std::string> KubeletFlags(const NodeBootstrap& bootstrap);
// Applies kubelet flags (--node-labels merge, --register-with-taints and --max-pods replace) to
// `registration`; other flags are ignored.
Status ApplyKubeletFlags(const std::vector<std::string>& flags, NodeRegistration& registration);
// Splits on whitespace (kubelet extra arguments are word-split, not shell-parsed).
std::vector<std::string> SplitWords(std::string_view text);

// Single-quoted text for a POSIX shell (a quote becomes '\'') and for PowerShell (it becomes '').
std::string ShellQuote(std::string_view text);
std::string PowerShellQuote(std::string_view text);
// The words of a shell command line (quotes, backslashes, line continuations, comments); the
// operators ; & | and line breaks become words of their own (";" for a line break).
Result<std::vector<std::string>> ShellWords(std::string_view line);

// The user's data as MIME parts for cloud-init: a MIME document's parts, else one part whose
// Content-Type fits the text (a NodeConfig, cloud-config or shell script). Empty data: no parts.
Result<std::vector<MimePart>> UserMimeParts(const NodeBootstrap& bootstrap);
// True when `text` is a YAML document of kind NodeConfig.
bool IsNodeConfig(std::string_view text);
// Same words, PowerShell rules (single quotes with '' inside, double quotes with ` escapes).
std::vector<std::string> PowerShellWords(std::string_view line);

Result<std::string> RenderAl2023(const NodeBootstrap& bootstrap);
Result<std::string> RenderAl2(const NodeBootstrap& bootstrap);
Result<std::string> RenderBottlerocket(const NodeBootstrap& bootstrap);
Result<std::string> RenderWindows(const NodeBootstrap& bootstrap);

// Readers: each applies what its format says to `registration`, in boot order.
// NodeConfig documents: kubelet config fields go to `registration`; kubelet flags are appended to
// `flags`, for the caller to apply after every NodeConfig (flags win over config).
Status ReadNodeConfig(std::string_view yaml, NodeRegistration& registration,
                      std::vector<std::string>& flags);
Status ReadShellScript(std::string_view script, NodeRegistration& registration);
Status ReadBottlerocket(std::string_view toml, NodeRegistration& registration);
Status ReadPowerShell(std::string_view script, NodeRegistration& registration);

inline constexpr std::string_view kBoundary = "KARPENTER-CPP-USERDATA-BOUNDARY";
inline constexpr std::string_view kNodeConfigMediaType = "application/node.eks.aws";

}  // namespace karpenter::aws::userdata
