#pragma once
// The validation rules the Karpenter CRDs apply to NodePools, NodeClaims and EC2NodeClasses (see
// the reference, section 1). Each problem reads "<field path>: <message>", the path relative to the
// object ("spec.template.spec.requirements[2].values: ..."); an empty list means valid.
//
// A few rules restrict how a value is spelled rather than the value itself (durations, EBS volume
// sizes); decoding checks those on the text as written, with the functions below.

#include <string>
#include <string_view>
#include <vector>

#include "api/capacity_buffer.h"
#include "api/ec2nodeclass.h"
#include "api/nodeclaim.h"
#include "api/nodeoverlay.h"
#include "api/nodepool.h"
#include "common/result.h"

namespace karpenter::api {

std::vector<std::string> ValidateNodePool(const NodePool& pool);
std::vector<std::string> ValidateNodeClaim(const NodeClaim& claim);
std::vector<std::string> ValidateEC2NodeClass(const EC2NodeClass& node_class);
std::vector<std::string> ValidateNodeOverlay(const NodeOverlay& overlay);
std::vector<std::string> ValidateCapacityBuffer(const CapacityBuffer& buffer);

enum class DurationSyntax {
  kGo,      // any Go duration: "1.5h", "300ms", "-1m"
  kExpiry,  // whole s/m/h units or "Never": "720h", "1h30m", "90s" (expireAfter, consolidateAfter)
  kGracePeriod,   // whole s/m/h units (terminationGracePeriod)
  kBudgetWindow,  // whole hours and/or minutes, optionally followed by "0s": "8h", "1h30m"
};
Status CheckDurationSyntax(std::string_view text, DurationSyntax syntax);

// An EBS volume size: a whole number of Gi (1-59000), G (1-64000), Ti (1-58) or T (1-64).
Status CheckVolumeSizeSyntax(std::string_view text);

// Label syntax: a qualified name ("[dns-subdomain/]name", the name 1-63 characters of
// [A-Za-z0-9-_.] starting and ending alphanumeric) and a label value (empty, or up to 63 such
// characters).
bool IsQualifiedName(std::string_view key);
bool IsLabelValue(std::string_view value);
bool IsDnsSubdomain(std::string_view name);
// `text` for a message: printable ASCII as it is, any other byte as \xNN (a key that is not UTF-8
// stays readable, and JSON output stays valid).
std::string PrintableText(std::string_view text);
// Why `key` is not a label key, or `value` not a label value, as a message; empty when it is.
std::string LabelKeyProblem(std::string_view key);
std::string LabelValueProblem(std::string_view value);

// Why `key` may not appear in NodePool requirements or template labels (a domain Kubernetes or
// Karpenter reserves); empty when it may.
std::string RestrictedLabelReason(std::string_view key);

}  // namespace karpenter::api
