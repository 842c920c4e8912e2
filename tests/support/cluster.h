#pragma once
// Support for the integration tests and the end-to-end benchmark: a client for a test cluster
// (scripts/testenv), applying manifest files, waiting for a condition, running `karpenter
// controller` as a child process, and removing what a run left behind. No test framework here:
// problems come back as errors.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "kube/client.h"

namespace karpenter::support {

// A client for the cluster of a kubeconfig file.
Result<std::unique_ptr<kube::Client>> ClusterClient(const std::string& kubeconfig);

// The resource serving `kind` (Pod, Deployment, NodePool, …); nullptr for kinds tests do not use.
const kube::Resource* ResourceForKind(std::string_view kind);

// Creates every object of a manifest file (replacing objects that already exist).
Status ApplyFile(kube::Client& client, const std::string& path);
Status Apply(kube::Client& client, const kube::Object& object);

// Polls `done` every `poll` until it returns true or `timeout` passes; returns its last answer.
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout,
             std::chrono::milliseconds poll = std::chrono::milliseconds(500));

// How charts/karpenter runs the controller, given to a test cluster by scripts/testenv/identity: a
// kubeconfig with a token of the chart's ServiceAccount, and the environment the rendered
// Deployment gives the controller's container.
struct ChartIdentity {
  std::string kubeconfig;
  std::vector<std::string> env;  // NAME=VALUE
};
// Reads DIR/`name` of the test cluster DIR (the script writes "identity" and "identity-denied"); an
// error says to run the script.
Result<ChartIdentity> ReadChartIdentity(const std::string& testenv_dir,
                                        const std::string& name = "identity");
// Sets `name` in an environment of NAME=VALUE entries, replacing its value if present (getenv reads
// the first entry of a name).
void SetVariable(std::vector<std::string>& env, std::string_view name, std::string_view value);

// `karpenter controller` with `args` (the binary at `binary`), its output going to `log_path`. With
// `env`, the process gets that environment and nothing else (as a container does); without, this
// process's.
class ControllerProcess {
 public:
  ControllerProcess(const std::string& binary, std::vector<std::string> args, std::string log_path,
                    std::optional<std::vector<std::string>> env = std::nullopt);
  ~ControllerProcess();  // stops it (SIGTERM, then SIGKILL)
  ControllerProcess(const ControllerProcess&) = delete;
  ControllerProcess& operator=(const ControllerProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool Running();
  // How it exited, as waitpid reports it, once Running() found it gone on its own.
  int exit_status() const { return exit_status_; }
  // SIGTERM and wait (SIGKILL after 20 s); returns the exit status as waitpid reports it.
  int Stop();
  // SIGKILL: a crash, no cleanup.
  void Kill();
  // The CPU seconds and peak RSS (MiB) the process used, read from /proc while it runs.
  double CpuSeconds() const;
  double PeakRssMb() const;
  std::string Log() const;

 private:
  pid_t pid_ = -1;
  int exit_status_ = 0;
  std::string log_path_;
};

// The arguments of a controller run as the chart runs it (with `identity.env` as its environment),
// from outside the cluster: the identity's kubeconfig where a pod would use its mounted token, the
// simulated cloud (kwok plays its machines' kubelets), and free health and metrics ports where the
// chart's would clash between replicas on one host. Everything else, leader election included,
// comes from the chart's environment.
std::vector<std::string> SimControllerArgs(const ChartIdentity& identity);
// Waits (up to `timeout`) until `controller` says it leads: with the chart's leader election on, a
// controller started after another one was killed waits for the Lease to expire first.
Status AwaitLeadership(const ControllerProcess& controller, std::chrono::milliseconds timeout);

// Deletes NodePools, NodeClaims (releasing their finalizers), EC2NodeClasses, the Nodes of the
// simulated cloud and of EC2 and the given namespaces, and waits (up to two minutes) until they are
// gone.
Status CleanUp(kube::Client& client, const std::vector<std::string>& namespaces);

}  // namespace karpenter::support
