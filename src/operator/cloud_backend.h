#pragma once
// The cloud `karpenter controller` runs against, behind one interface so that the operator does
// not depend on any particular one: the AWS provider (operator/aws_backend.h) or the simulated
// cloud whose machines kwok plays (simulate/sim_backend.h). The command line chooses.

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "kube/client.h"
#include "kube/http/config.h"
#include "operator/manager.h"
#include "operator/options.h"

namespace karpenter::op {

class CloudBackend {
 public:
  virtual ~CloudBackend() = default;

  virtual cloud::CloudProvider& cloud() = 0;
  // Adds the backend's controllers to `manager` (which outlives them on its loop) and starts the
  // threads it needs beside it; the caller stops those threads (by destroying them) before the
  // manager, whose informers they read.
  virtual Result<std::vector<std::jthread>> Attach(kube::Client& client, Manager& manager,
                                                   const Logger& logger) = 0;
};

// Makes the backend for the options, the API server's configuration and the clock.
using CloudBackendFactory = std::function<Result<std::unique_ptr<CloudBackend>>(
    const Options& options, const kube::http::Config& config, const Clock& clock)>;

}  // namespace karpenter::op
