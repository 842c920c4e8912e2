#pragma once
// A kube::Client in front of the simulated cluster's store that counts what disruption does to
// running workload pods (DaemonSet pods, which go with their node, are not counted):
// - every eviction (the store refuses those a PodDisruptionBudget does not allow now), and
// - every deletion of a pod bound to a Node (forced termination after a grace period),
// and, through RecordLoss, pods lost with a Node whose instance was terminated under them.
// Deleting or losing a Ready pod that a PodDisruptionBudget protected at that moment
// (disruptionsAllowed 0) is a PDB violation. Karpenter and the node-group drains write through
// this client; workload controllers (scaling down is no disruption) use the store directly.

#include <cstddef>

#include "kube/forwarding_client.h"

namespace karpenter::simulate {

class DisruptionAudit final : public kube::ForwardingClient {
 public:
  explicit DisruptionAudit(kube::Client& store) : ForwardingClient(store) {}

  Status Delete(const kube::Resource& resource, std::string_view namespace_, std::string_view name,
                const kube::DeleteOptions& options) override;
  Status Evict(std::string_view namespace_, std::string_view pod_name,
               const kube::DeleteOptions& options) override;

  // A running pod lost with its Node (its instance terminated under it).
  void RecordLoss(const kube::Object& pod);

  size_t pods_disrupted() const { return pods_disrupted_; }
  size_t pdb_violations() const { return pdb_violations_; }

 private:
  // Whether a PodDisruptionBudget protects `pod` now (it is Ready and a budget selecting it
  // allows no disruption).
  bool Protected(const kube::Object& pod);
  // Running workload pods only: bound, not finished, not owned by a DaemonSet.
  static bool Counts(const kube::Object& pod);

  size_t pods_disrupted_ = 0;
  size_t pdb_violations_ = 0;
};

}  // namespace karpenter::simulate
