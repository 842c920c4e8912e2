#pragma once
// The AWS provider as the controller's cloud: EC2 capacity, the EC2NodeClass controller and the
// instance-type and price refresh on the controller loop, and interruption handling on its own
// thread.

#include <memory>

#include "common/clock.h"
#include "common/result.h"
#include "kube/http/config.h"
#include "operator/cloud_backend.h"
#include "operator/options.h"

namespace karpenter::op {

// The endpoint nodes join with comes from the options or EKS, the CA bundle from the options or
// the API server's configuration, the Kubernetes version (for the AMI aliases) from the API server.
Result<std::unique_ptr<CloudBackend>> NewAwsBackend(const Options& options,
                                                    const kube::http::Config& config,
                                                    const Clock& clock);

}  // namespace karpenter::op
