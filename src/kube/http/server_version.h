#pragma once
// The Kubernetes version of the API server (GET /version), as "<major>.<minor>" ("1.31"): the
// AWS provider picks the EKS-optimized AMIs of that version, so after a control-plane upgrade
// aliases resolve to the new version's AMIs and the nodes drift (RefreshingServerVersion).

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"
#include "kube/http/config.h"

namespace karpenter::kube::http {

// "1.31" from /version's {"major": "1", "minor": "31+"} (EKS and GKE add a "+"); the error names
// the server and what was wrong.
Result<std::string> ServerVersion(const Config& config);
// The same from /version's JSON text.
Result<std::string> ParseServerVersion(std::string_view body);

// The version last read, read again by `read` (ServerVersion of the cluster's Config) once `every`
// has passed: an upgraded control plane shows within `every`. A failed read keeps the version
// before it and is tried again a minute later (or at `every`, if sooner). Thread-safe.
class RefreshingServerVersion {
 public:
  RefreshingServerVersion(std::string first, std::function<Result<std::string>()> read,
                          const Clock& clock, std::chrono::nanoseconds every);

  std::string Get();

 private:
  const std::function<Result<std::string>()> read_;
  const Clock& clock_;
  const std::chrono::nanoseconds every_;
  Mutex mutex_;
  std::string version_ GUARDED_BY(mutex_);
  MonoTime next_read_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::kube::http
