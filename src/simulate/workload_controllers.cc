#include "simulate/workload_controllers.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "api/labels.h"
#include "api/workload_pods.h"
#include "scheduling/pod_constraints.h"

namespace karpenter::simulate {
namespace {

using kube::Object;
namespace resources = kube::resources;

constexpr std::string_view kPodTemplateHash = "pod-template-hash";

std::string WorkloadKey(std::string_view kind, std::string_view namespace_, std::string_view name) {
  std::string key(kind);
  key.append("/").append(namespace_).append("/").append(name);
  return key;
}

// The controller owner of a ReplicaSet object, when it is a Deployment.
std::optional<std::string> DeploymentOf(const Object& replica_set) {
  const Object* owners = kube::Find(replica_set, {"metadata", "ownerReferences"});
  if (owners == nullptr || !owners->is_array()) return std::nullopt;
  for (const Object& owner : *owners) {
    if (owner.value("controller", false) && owner.value("kind", "") == "Deployment") {
      return owner.value("name", "");
    }
  }
  return std::nullopt;
}

// The workload that owns `pod`, as WorkloadKey; empty for pods without a controller.
std::string OwnerKey(const api::Pod& pod, const kube::Informer& replica_sets) {
  const api::OwnerReference* owner = api::ControllerOf(pod.metadata);
  if (owner == nullptr) return {};
  const std::string& ns = pod.metadata.namespace_;
  if (owner->kind != "ReplicaSet") return WorkloadKey(owner->kind, ns, owner->name);
  if (std::optional<Object> replica_set = replica_sets.Get(kube::Key(ns, owner->name))) {
    if (std::optional<std::string> deployment = DeploymentOf(*replica_set)) {
      return WorkloadKey("Deployment", ns, *deployment);
    }
    return WorkloadKey("ReplicaSet", ns, owner->name);
  }
  const auto hash = pod.metadata.labels.find(std::string(kPodTemplateHash));
  if (hash != pod.metadata.labels.end() && owner->name.size() > hash->second.size() + 1 &&
      owner->name.ends_with("-" + hash->second)) {
    const std::string_view replica_set = owner->name;
    return WorkloadKey("Deployment", ns,
                       replica_set.substr(0, replica_set.size() - hash->second.size() - 1));
  }
  return WorkloadKey("ReplicaSet", ns, owner->name);
}

int64_t Replicas(const Object& workload, std::string_view field) {
  const Object* value = kube::Find(workload, {"spec", field});
  return value != nullptr && value->is_number_integer()
             ? std::max<int64_t>(0, value->get<int64_t>())
             : 1;
}

// A pod of `workload`'s template, owned by `owner_kind`/`owner_name`.
Object NewPod(const Object& workload, std::string_view owner_api_version,
              std::string_view owner_kind, std::string_view owner_name,
              std::string_view owner_uid) {
  const Object& pod_template = workload["spec"].value("template", Object::object());
  const Object& template_meta = pod_template.value("metadata", Object::object());
  Object metadata = {{"namespace", kube::Namespace(workload)},
                     {"labels", template_meta.value("labels", Object::object())},
                     {"ownerReferences", Object::array({{{"apiVersion", owner_api_version},
                                                         {"kind", owner_kind},
                                                         {"name", owner_name},
                                                         {"uid", owner_uid},
                                                         {"controller", true},
                                                         {"blockOwnerDeletion", true}}})}};
  if (template_meta.contains("annotations")) metadata["annotations"] = template_meta["annotations"];
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", std::move(metadata)},
          {"spec", pod_template.value("spec", Object::object())}};
}

// Pending pods first, then the newest (by creation time, then name).
void SortForScaleDown(std::vector<const api::Pod*>& pods) {
  std::sort(pods.begin(), pods.end(), [](const api::Pod* a, const api::Pod* b) {
    const bool a_pending = a->spec.node_name.empty();
    const bool b_pending = b->spec.node_name.empty();
    if (a_pending != b_pending) return a_pending;
    if (a->metadata.creation_timestamp != b->metadata.creation_timestamp) {
      return a->metadata.creation_timestamp > b->metadata.creation_timestamp;
    }
    return a->metadata.name > b->metadata.name;
  });
}

// The pod-template-hash of a Deployment's pods (a snapshot's), or a new one.
std::string PodTemplateHashOf(const std::vector<const api::Pod*>& pods, std::string_view namespace_,
                              std::string_view name) {
  for (const api::Pod* pod : pods) {
    const auto hash = pod->metadata.labels.find(std::string(kPodTemplateHash));
    if (hash != pod->metadata.labels.end()) return hash->second;
  }
  return api::PodTemplateHash(namespace_, name);
}

// The tolerations the DaemonSet controller adds to every DaemonSet pod.
std::vector<api::Toleration> DaemonSetTolerations() {
  using api::TaintEffect;
  using api::TolerationOperator;
  std::vector<api::Toleration> tolerations;
  for (std::string_view key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    tolerations.push_back(
        {std::string(key), TolerationOperator::kExists, "", TaintEffect::kNoExecute, {}});
  }
  for (std::string_view key :
       {"node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/pid-pressure", "node.kubernetes.io/unschedulable",
        "node.kubernetes.io/network-unavailable"}) {
    tolerations.push_back(
        {std::string(key), TolerationOperator::kExists, "", TaintEffect::kNoSchedule, {}});
  }
  return tolerations;
}

}  // namespace

WorkloadControllers::WorkloadControllers(kube::Client& client, controllers::ClusterCache& cluster)
    : client_(client),
      cluster_(cluster),
      deployments_(client, resources::kDeployments),
      replica_sets_(client, resources::kReplicaSets),
      stateful_sets_(client, resources::kStatefulSets),
      jobs_(client, resources::kJobs) {
  const std::pair<kube::Informer*, std::string_view> kinds[] = {
      {&deployments_, "Deployment"},
      {&replica_sets_, "ReplicaSet"},
      {&stateful_sets_, "StatefulSet"},
      {&jobs_, "Job"},
      {&cluster_.daemon_sets(), "DaemonSet"}};
  for (const auto& entry : kinds) {
    const std::string_view kind = entry.second;
    entry.first->AddHandler([this, kind](kube::WatchEventType type, const Object& workload) {
      dirty_ = true;
      if (type == kube::WatchEventType::kDeleted) {
        deleted_.insert(WorkloadKey(kind, kube::Namespace(workload), kube::Name(workload)));
      }
    });
  }
  cluster_.nodes().AddHandler([this](kube::WatchEventType, const Object&) { dirty_ = true; });
  cluster_.pods().AddHandler([this](kube::WatchEventType type, const Object&) {
    if (type == kube::WatchEventType::kDeleted) dirty_ = true;
  });
}

std::vector<kube::Informer*> WorkloadControllers::informers() {
  return {&deployments_, &replica_sets_, &stateful_sets_, &jobs_};
}

Result<size_t> WorkloadControllers::Run() {
  if (!dirty_) return size_t{0};
  dirty_ = false;
  size_t changes = 0;
  const std::vector<std::shared_ptr<const api::Pod>> pods = cluster_.decoded_pods().All();
  std::set<std::string, std::less<>> nodes;
  cluster_.nodes().ForEach([&](const Object& node) { nodes.emplace(kube::Name(node)); });

  auto remove = [&](const api::Pod& pod) -> Status {
    Status deleted =
        client_.Delete(resources::kPods, pod.metadata.namespace_, pod.metadata.name, {});
    if (!deleted.ok() && deleted.error().status != 404) return deleted;
    ++changes;
    return {};
  };
  auto create = [&](const Object& pod) -> Status {
    Result<Object> created = client_.Create(resources::kPods, pod, kube::WriteOptions{});
    if (!created.ok()) return created.error();
    ++changes;
    return {};
  };

  // Pods by owner; the pod garbage collector's part first.
  std::map<std::string, std::vector<const api::Pod*>, std::less<>> owned;
  for (const auto& pod : pods) {
    if (!pod->metadata.deletion_timestamp.empty() || api::IsTerminal(*pod)) continue;
    if (!pod->spec.node_name.empty() && !nodes.contains(pod->spec.node_name)) {
      if (Status removed = remove(*pod); !removed.ok()) return removed.error();
      continue;
    }
    std::string key = OwnerKey(*pod, replica_sets_);
    if (!key.empty()) owned[std::move(key)].push_back(pod.get());
  }
  std::set<std::string, std::less<>> workloads;

  // Deployments, ReplicaSets and Jobs: any names; StatefulSets: ordinals.
  auto reconcile = [&](const Object& workload, std::string_view kind) -> Status {
    const std::string ns(kube::Namespace(workload));
    const std::string name(kube::Name(workload));
    std::string key = WorkloadKey(kind, ns, name);
    workloads.insert(key);
    if (!kube::DeletionTimestamp(workload).empty()) return {};
    std::vector<const api::Pod*>& have = owned[key];
    const int64_t want = Replicas(workload, kind == "Job" ? "parallelism" : "replicas");
    const bool stateful = kind == "StatefulSet";
    if (stateful) {
      std::set<std::string, std::less<>> ordinals;
      for (const api::Pod* pod : have) {
        const std::string_view pod_name = pod->metadata.name;
        const std::string_view suffix = pod_name.substr(name.size());
        const bool excess =
            !suffix.starts_with('-') || std::stoll("0" + std::string(suffix.substr(1))) >= want;
        if (excess) {
          if (Status removed = remove(*pod); !removed.ok()) return removed;
        } else {
          ordinals.emplace(pod->metadata.name);
        }
      }
      for (int64_t i = 0; i < want; ++i) {
        const std::string pod_name = name + "-" + std::to_string(i);
        if (ordinals.contains(pod_name)) continue;
        Object pod = NewPod(workload, "apps/v1", kind, name, kube::Uid(workload));
        pod["metadata"]["name"] = pod_name;
        pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] = pod_name;
        if (Status created = create(pod); !created.ok()) return created;
      }
      return {};
    }
    if (static_cast<int64_t>(have.size()) > want) {
      SortForScaleDown(have);
      for (size_t i = 0; i < have.size() - static_cast<size_t>(want); ++i) {
        if (Status removed = remove(*have[i]); !removed.ok()) return removed;
      }
      return {};
    }
    std::string owner_kind(kind);
    std::string owner_name = name;
    std::string hash;
    if (kind == "Deployment") {
      hash = PodTemplateHashOf(have, ns, name);
      owner_kind = "ReplicaSet";
      owner_name = name + "-" + hash;
    }
    for (auto i = static_cast<int64_t>(have.size()); i < want; ++i) {
      Object pod = NewPod(workload, kind == "Job" ? "batch/v1" : "apps/v1", owner_kind, owner_name,
                          kube::Uid(workload));
      pod["metadata"]["generateName"] = owner_name + "-";
      if (!hash.empty()) pod["metadata"]["labels"][kPodTemplateHash] = hash;
      if (Status created = create(pod); !created.ok()) return created;
    }
    return {};
  };
  Status status;
  const std::pair<kube::Informer*, std::string_view> kinds[] = {{&deployments_, "Deployment"},
                                                                {&replica_sets_, "ReplicaSet"},
                                                                {&stateful_sets_, "StatefulSet"},
                                                                {&jobs_, "Job"}};
  for (const auto& entry : kinds) {
    const std::string_view kind = entry.second;
    entry.first->ForEach([&](const Object& workload) {
      // A ReplicaSet a Deployment of the inputs owns is that Deployment's.
      if (kind == "ReplicaSet") {
        if (std::optional<std::string> deployment = DeploymentOf(workload);
            deployment && deployments_.Get(kube::Key(kube::Namespace(workload), *deployment))) {
          return;
        }
      }
      if (status.ok()) status = reconcile(workload, kind);
    });
    if (!status.ok()) return status.error();
  }

  // DaemonSets: one pod on every Node that takes it.
  const std::vector<std::shared_ptr<const api::Node>> all_nodes = cluster_.decoded_nodes().All();
  const std::vector<api::Toleration> added_tolerations = DaemonSetTolerations();
  cluster_.daemon_sets().ForEach([&](const Object& object) {
    const std::string key = WorkloadKey("DaemonSet", kube::Namespace(object), kube::Name(object));
    workloads.insert(key);
    std::optional<api::Workload> daemon_set = controllers::DecodeDaemonSet(object);
    if (!status.ok() || !daemon_set || !kube::DeletionTimestamp(object).empty()) return;
    api::Pod pod_template;
    pod_template.metadata = daemon_set->template_.metadata;
    pod_template.spec = daemon_set->template_.spec;
    const scheduling::PodConstraints constraints(pod_template, {});
    std::vector<api::Toleration> tolerations = pod_template.spec.tolerations;
    tolerations.insert(tolerations.end(), added_tolerations.begin(), added_tolerations.end());
    std::set<std::string_view> covered;
    for (const api::Pod* pod : owned[key]) covered.insert(pod->spec.node_name);
    for (const auto& node : all_nodes) {
      if (covered.contains(node->metadata.name) || !node->metadata.deletion_timestamp.empty()) {
        continue;
      }
      api::Labels labels = node->metadata.labels;
      labels.emplace(api::kLabelHostname, node->metadata.name);
      if (!constraints.requirements().Matches(labels) ||
          !api::ToleratesAll(tolerations, node->spec.taints)) {
        continue;
      }
      Object pod = NewPod(object, "apps/v1", "DaemonSet", kube::Name(object), kube::Uid(object));
      pod["metadata"]["generateName"] = std::string(kube::Name(object)) + "-";
      pod["spec"]["nodeName"] = node->metadata.name;
      status = create(pod);
      if (!status.ok()) return;
    }
  });
  if (!status.ok()) return status.error();

  // Pods of workloads that were deleted go with them.
  for (const std::string& key : deleted_) {
    if (workloads.contains(key)) continue;
    for (const api::Pod* pod : owned[key]) {
      if (Status removed = remove(*pod); !removed.ok()) return removed.error();
    }
  }
  deleted_.clear();
  return changes;
}

}  // namespace karpenter::simulate
