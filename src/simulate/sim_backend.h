#pragma once
// The simulated cloud as `karpenter controller --cloud-provider sim`'s cloud: "instances" of the
// catalog the options name (--catalog, the AWS settings that shape it) whose Nodes a thread beside
// the controller creates when each has booted, with a client of its own as kubelets have, for kwok
// to play their kubelets on a test cluster. With --interruption-queue, the controller's
// interruption controller reads the queue and acts on those instances' NodeClaims.

#include <memory>

#include "common/clock.h"
#include "common/result.h"
#include "kube/http/config.h"
#include "operator/cloud_backend.h"
#include "operator/options.h"

namespace karpenter::simulate {

Result<std::unique_ptr<op::CloudBackend>> NewSimBackend(const op::Options& options,
                                                        const kube::http::Config& config,
                                                        const Clock& clock);

}  // namespace karpenter::simulate
