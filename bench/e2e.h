#pragma once
// `karpenter-bench e2e`: pods to Running on a real API server, end to end — the kube-scheduler,
// our controller (a child process with the simulated cloud) and kwok.

#include <memory>
#include <string>

#include "common/result.h"
#include "kube/client.h"

namespace karpenter::bench {

struct EndToEndArgs {
  int pods = 1000;
  std::string kubeconfig;
  std::string karpenter_binary;  // empty: `karpenter` beside this executable
  std::string source_dir;        // where deploy/crds is; empty: this build's source tree
  int timeout_seconds = 600;
};

// The path of `name` in this executable's folder (where the build puts `karpenter`).
std::string BesideThisExecutable(const std::string& name);

// A client of the test cluster `kubeconfig` names, with the CRDs of `source_dir` (this build's
// source tree when empty) installed.
Result<std::unique_ptr<kube::Client>> TestClusterWithCrds(const std::string& kubeconfig,
                                                          const std::string& source_dir);

// Prints {"pods", "seconds", "nodes", "controllerPeakRssMb", "controllerCpuSeconds"}; returns the
// exit code.
int RunEndToEnd(const EndToEndArgs& args);

}  // namespace karpenter::bench
