#pragma once
// The EKS managed node groups of a simulated cluster (Nodes labelled eks.amazonaws.com/nodegroup):
// creating a group's Nodes at the start, and resizing a group the way an operator retiring it
// would — `batch` nodes at a time are cordoned and drained through the Eviction API (so
// PodDisruptionBudgets hold; a refused eviction is retried every 5 s), and a drained Node's
// instance is terminated; or, settling as `karpenter migrate apply` does, one group after another
// and each batch only once the pods the last one displaced are placed (timeline.h). Growing a
// group adds Nodes like its existing ones, spread over zones.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cloud/instance_type.h"
#include "common/clock.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"
#include "simulate/timeline.h"

namespace karpenter::simulate {

// Something a node group did, for the report's timeline.
using NodeGroupEventSink = std::function<void(std::string event, std::string node)>;

class NodeGroups {
 public:
  NodeGroups(kube::Client& client, controllers::ClusterCache& cluster, const Clock& clock,
             const std::vector<cloud::InstanceType>& catalog, std::string region,
             NodeGroupEventSink on_event);

  // Creates the Nodes of a group (Ready, the labels EKS gives them); errors name the group.
  Status Create(const NodeGroupSpec& spec);
  // Resizes a group that has Nodes; shrinking starts drains that Run() carries on.
  Status Scale(const ScaleNodeGroup& scale);
  // Cordons the next nodes to drain, evicts their pods, terminates drained nodes; returns how
  // many objects it changed.
  Result<size_t> Run();
  // When Run() next has something to do (an eviction to retry), if anything.
  std::optional<TimePoint> NextWake() const;

 private:
  struct Resize {
    int size = 0;
    int batch = 1;
    bool settle = false;
    uint64_t order = 0;  // among the settling resizes: which goes first
    std::set<std::string> draining;
    // Settling: whether a batch has started, and the pods pending when it did (uids), which do
    // not hold the next back.
    bool started = false;
    std::set<std::string, std::less<>> pending_before;
  };

  // Whether a pod is pending that was not when the batch started.
  bool NewlyPending(const Resize& resize) const;
  // The uids of the pods waiting for a node.
  std::set<std::string, std::less<>> Pending() const;

  // The group's Nodes that are not being deleted, by name.
  std::vector<std::string> Members(std::string_view group) const;
  Status AddNode(std::string_view group, const kube::Object& like, std::string_view zone);

  kube::Client& client_;
  controllers::ClusterCache& cluster_;
  const Clock& clock_;
  const std::vector<cloud::InstanceType>& catalog_;
  const std::string region_;
  NodeGroupEventSink on_event_;
  std::map<std::string, Resize, std::less<>> resizes_;
  uint64_t settle_order_ = 0;
  std::map<std::string, int, std::less<>> created_;  // Nodes created per group, for names
  std::optional<TimePoint> retry_at_;
};

}  // namespace karpenter::simulate
