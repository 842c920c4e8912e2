#pragma once
// `karpenter controller` assembled: the Kubernetes client from the kubeconfig or the pod's
// service account, the cloud backend, the health endpoints, leader election, and the manager.
// Runs until `stop`, or until leadership is lost (the process then exits so that a restarted
// replica starts from fresh caches, as upstream does).

#include <stop_token>
#include <string>

#include "common/log.h"
#include "common/result.h"
#include "operator/cloud_backend.h"
#include "operator/options.h"

namespace karpenter::op {

// What karpenter_build_info says of this binary.
struct BuildInfo {
  std::string version;  // "0.1.0"
  std::string commit;   // "79dbbd0"
};

// `new_backend` makes the cloud (the command line chooses it from options.cloud_provider).
Status RunOperator(const Options& options, const BuildInfo& build, const Logger& logger,
                   const std::stop_token& stop, const CloudBackendFactory& new_backend);

}  // namespace karpenter::op
