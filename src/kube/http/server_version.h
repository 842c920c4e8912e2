#pragma once
// The Kubernetes version of the API server (GET /version), as "<major>.<minor>" ("1.31"): the
// AWS provider picks the EKS-optimized AMIs of that version.

#include <string>
#include <string_view>

#include "common/result.h"
#include "kube/http/config.h"

namespace karpenter::kube::http {

// "1.31" from /version's {"major": "1", "minor": "31+"} (EKS and GKE add a "+"); the error names
// the server and what was wrong.
Result<std::string> ServerVersion(const Config& config);
// The same from /version's JSON text.
Result<std::string> ParseServerVersion(std::string_view body);

}  // namespace karpenter::kube::http
