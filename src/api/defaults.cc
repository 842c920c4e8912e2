#include "api/defaults.h"

#include <string>

namespace karpenter::api {
namespace {

void DefaultNamespace(ObjectMeta& meta) {
  if (meta.namespace_.empty()) meta.namespace_ = std::string(kDefaultNamespace);
}

void DefaultRequests(Container& container) {
  container.limits.ForEach([&](std::string_view name, Quantity limit) {
    if (container.requests.Get(name).is_zero()) container.requests.Set(name, limit);
  });
}

}  // namespace

void ApplyDefaults(NodePool& pool) {
  if (!pool.spec.template_.spec.expire_after) {
    pool.spec.template_.spec.expire_after = kDefaultExpireAfter;
  }
  if (pool.spec.disruption.budgets.empty()) {
    Budget& budget = pool.spec.disruption.budgets.emplace_back();
    budget.nodes = std::string(kDefaultBudgetNodes);
  }
}

void ApplyDefaults(NodeClaim& claim) {
  if (!claim.spec.expire_after) claim.spec.expire_after = kDefaultExpireAfter;
}

void ApplyDefaults(EC2NodeClass& /*node_class*/) {}

void ApplyDefaults(PodSpec& spec) {
  for (Container& container : spec.init_containers) DefaultRequests(container);
  for (Container& container : spec.containers) DefaultRequests(container);
}

void ApplyDefaults(Pod& pod) {
  DefaultNamespace(pod.metadata);
  ApplyDefaults(pod.spec);
}

void ApplyDefaults(Workload& workload) {
  DefaultNamespace(workload.metadata);
  workload.template_.metadata.namespace_ = workload.metadata.namespace_;
  ApplyDefaults(workload.template_.spec);
  for (PersistentVolumeClaim& claim : workload.volume_claim_templates) {
    claim.metadata.namespace_ = workload.metadata.namespace_;
  }
}

void ApplyDefaults(PodTemplateObject& pod_template) {
  DefaultNamespace(pod_template.metadata);
  pod_template.template_.metadata.namespace_ = pod_template.metadata.namespace_;
  ApplyDefaults(pod_template.template_.spec);
}

void ApplyDefaults(CapacityBuffer& buffer) { DefaultNamespace(buffer.metadata); }

void ApplyDefaults(PodDisruptionBudget& pdb) { DefaultNamespace(pdb.metadata); }

void ApplyDefaults(PersistentVolumeClaim& claim) { DefaultNamespace(claim.metadata); }

}  // namespace karpenter::api
