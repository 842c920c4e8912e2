#include "simulate/workload_controllers.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "api/labels.h"
#include "api/workload_pods.h"
#include "common/hash.h"
#include "scheduling/pod_constraints.h"

namespace karpenter::simulate {
namespace {

using kube::Object;
namespace resources = kube::resources;

constexpr std::string_view kPodTemplateHash = "pod-template-hash";

std::string MakeWorkloadKey(std::string_view kind, std::string_view namespace_,
                            std::string_view name) {
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
  if (owner->kind != "ReplicaSet") return MakeWorkloadKey(owner->kind, ns, owner->name);
  if (std::optional<Object> replica_set = replica_sets.Get(kube::Key(ns, owner->name))) {
    if (std::optional<std::string> deployment = DeploymentOf(*replica_set)) {
      return MakeWorkloadKey("Deployment", ns, *deployment);
    }
    return MakeWorkloadKey("ReplicaSet", ns, owner->name);
  }
  const auto hash = pod.metadata.labels.find(std::string(kPodTemplateHash));
  if (hash != pod.metadata.labels.end() && owner->name.size() > hash->second.size() + 1 &&
      owner->name.ends_with("-" + hash->second)) {
    const std::string_view replica_set = owner->name;
    return MakeWorkloadKey("Deployment", ns,
                           replica_set.substr(0, replica_set.size() - hash->second.size() - 1));
  }
  return MakeWorkloadKey("ReplicaSet", ns, owner->name);
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

// floor(log2(nanoseconds from `time` to `now`)): the ReplicaSet controller compares ages on this
// scale, so pods of about the same age are equals. -1 for a time not before `now`, -2 for none
// (the controller's zero time, which goes first).
int64_t LogAge(const std::optional<TimePoint>& time, TimePoint now) {
  if (!time) return -2;
  const int64_t nanoseconds =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - *time).count();
  return nanoseconds > 0 ? static_cast<int64_t>(std::floor(std::log2(nanoseconds))) : -1;
}

// The pods a ReplicaSet (and so a Deployment) deletes first when it has too many, in the order
// kube-controller-manager's ReplicaSet controller ranks them (ActivePodsWithRanks, with
// LogarithmicScaleDown on by default): unbound first; Pending before Running; not Ready before
// Ready; lower controller.kubernetes.io/pod-deletion-cost first; then pods sharing their Node
// with more pods of the same workload ("doubled up"), so a scale-down thins crowded nodes rather
// than emptying the newest ones; then the more recently Ready, and the newer, each on a log2
// scale of age; then by UID — random in a real cluster, a hash of it here, as the simulated
// store's UIDs count up. Two simplifications keep this a strict order for std::sort: within one
// log-age of readiness the newer comes first before the UID decides (the controller goes by UID
// unless the times are equal), and container restarts are not modelled.
void SortForScaleDown(std::vector<const api::Pod*>& pods, TimePoint now) {
  struct Key {
    const api::Pod* pod;
    bool bound;
    int phase;  // Pending 0, Unknown 1, Running 2
    bool ready;
    int32_t deletion_cost;
    size_t doubled_up;  // the workload's pods on the same Node
    int64_t ready_age, created_age;
    uint64_t shuffle;
  };
  std::map<std::string_view, size_t> on_node;
  for (const api::Pod* pod : pods) ++on_node[pod->spec.node_name];
  std::vector<Key> keys;
  keys.reserve(pods.size());
  for (const api::Pod* pod : pods) {
    std::optional<TimePoint> ready_since;
    bool ready = false;
    for (const api::PodCondition& condition : pod->status.conditions) {
      if (condition.type == "Ready" && condition.status == "True") {
        ready = true;
        ready_since = ParseTime(condition.last_transition_time);
      }
    }
    const std::string_view phase = pod->status.phase;
    keys.push_back({.pod = pod,
                    .bound = !pod->spec.node_name.empty(),
                    .phase = phase == "Running"   ? 2
                             : phase == "Unknown" ? 1
                                                  : 0,
                    .ready = ready,
                    .deletion_cost = api::PodDeletionCost(*pod),
                    .doubled_up = on_node[pod->spec.node_name],
                    .ready_age = LogAge(ready_since, now),
                    .created_age = LogAge(ParseTime(pod->metadata.creation_timestamp), now),
                    .shuffle = SplitMix64(Fnv1a64(pod->metadata.uid))});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.bound != b.bound) return !a.bound;
    if (a.phase != b.phase) return a.phase < b.phase;
    if (a.ready != b.ready) return !a.ready;
    if (a.deletion_cost != b.deletion_cost) return a.deletion_cost < b.deletion_cost;
    if (a.doubled_up != b.doubled_up) return a.doubled_up > b.doubled_up;
    if (a.ready && a.ready_age != b.ready_age) return a.ready_age < b.ready_age;
    if (a.created_age != b.created_age) return a.created_age < b.created_age;
    if (a.shuffle != b.shuffle) return a.shuffle < b.shuffle;
    return a.pod->metadata.name > b.pod->metadata.name;
  });
  for (size_t i = 0; i < keys.size(); ++i) pods[i] = keys[i].pod;
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

WorkloadControllers::WorkloadControllers(kube::Client& client, controllers::ClusterCache& cluster,
                                         const Clock& clock)
    : client_(client),
      cluster_(cluster),
      clock_(clock),
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
      WorkloadKey key = MakeWorkloadKey(kind, kube::Namespace(workload), kube::Name(workload));
      if (type == kube::WatchEventType::kDeleted) deleted_.insert(key);
      // A ReplicaSet's Deployment decides how many pods it has.
      if (std::optional<std::string> deployment = DeploymentOf(workload)) {
        dirty_.insert(MakeWorkloadKey("Deployment", kube::Namespace(workload), *deployment));
      }
      dirty_.insert(std::move(key));
    });
  }
  cluster_.nodes().AddHandler([this](kube::WatchEventType type, const Object& node) {
    std::string name(kube::Name(node));
    if (type == kube::WatchEventType::kDeleted) {
      dirty_nodes_.erase(name);
      gone_nodes_.insert(std::move(name));
    } else {
      dirty_nodes_.insert(std::move(name));
    }
  });
  cluster_.pods().AddHandler(
      [this](kube::WatchEventType, const Object& pod) { changed_pods_.insert(kube::Key(pod)); });
}

std::vector<kube::Informer*> WorkloadControllers::informers() {
  return {&deployments_, &replica_sets_, &stateful_sets_, &jobs_};
}

kube::Informer* WorkloadControllers::InformerOf(std::string_view kind) {
  if (kind == "Deployment") return &deployments_;
  if (kind == "ReplicaSet") return &replica_sets_;
  if (kind == "StatefulSet") return &stateful_sets_;
  if (kind == "Job") return &jobs_;
  return nullptr;
}

Status WorkloadControllers::DeletePod(const api::Pod& pod) {
  Status deleted = client_.Delete(resources::kPods, pod.metadata.namespace_, pod.metadata.name, {});
  if (!deleted.ok() && deleted.error().status != 404) return deleted;
  ++changes_;
  return {};
}

Status WorkloadControllers::CreatePod(const Object& pod) {
  ASSIGN_OR_RETURN(Object created, client_.Create(resources::kPods, pod, kube::WriteOptions{}));
  ++changes_;
  return {};
}

std::vector<std::shared_ptr<const api::Pod>> WorkloadControllers::LivePods(
    const WorkloadKey& key) const {
  std::vector<std::shared_ptr<const api::Pod>> live;
  const auto found = pods_of_.find(key);
  if (found == pods_of_.end()) return live;
  for (const std::string& pod_key : found->second) {
    std::shared_ptr<const api::Pod> pod = cluster_.decoded_pods().Get(pod_key);
    if (pod && pod->metadata.deletion_timestamp.empty() && !api::IsTerminal(*pod)) {
      live.push_back(std::move(pod));
    }
  }
  return live;
}

Status WorkloadControllers::TrackChangedPods() {
  Keys changed = std::move(changed_pods_);
  changed_pods_.clear();
  for (const std::string& pod_key : changed) {
    std::shared_ptr<const api::Pod> pod = cluster_.decoded_pods().Get(pod_key);
    auto owner = owners_.find(pod_key);
    if (pod == nullptr) {  // deleted
      if (owner == owners_.end()) continue;
      const Owned& owned = owner->second;
      // A DaemonSet's pods concern their Node; every other workload counts its pods.
      if (owned.workload.starts_with("DaemonSet/")) {
        if (!owned.node.empty()) dirty_nodes_.insert(owned.node);
      } else {
        dirty_.insert(owned.workload);
      }
      pods_of_[owned.workload].erase(pod_key);
      owners_.erase(owner);
      continue;
    }
    if (owner == owners_.end()) {
      WorkloadKey key = OwnerKey(*pod, replica_sets_);
      if (key.empty()) continue;
      pods_of_[key].insert(pod_key);
      owner = owners_.emplace(pod_key, Owned{std::move(key), {}}).first;
    }
    Owned& owned = owner->second;
    if (owned.workload.starts_with("DaemonSet/")) {
      owned.node = pod->spec.node_name;
      if (!owned.node.empty()) dirty_nodes_.insert(owned.node);
    } else {
      dirty_.insert(owned.workload);
    }
    // The pod garbage collector: bound to a Node that does not exist.
    if (!pod->spec.node_name.empty() && pod->metadata.deletion_timestamp.empty() &&
        !api::IsTerminal(*pod) && !cluster_.nodes().Contains(pod->spec.node_name)) {
      if (Status removed = DeletePod(*pod); !removed.ok()) return removed;
    }
  }
  return {};
}

Status WorkloadControllers::CollectPodsOfGoneNodes() {
  Keys gone = std::move(gone_nodes_);
  gone_nodes_.clear();
  for (const std::string& node : gone) {
    if (cluster_.nodes().Contains(node)) continue;  // came back under the same name
    std::vector<std::string> bound;
    cluster_.pods().VisitIndexed(controllers::kIndexPodsByNode, node,
                                 [&](const std::vector<const Object*>& pods) {
                                   for (const Object* pod : pods) bound.push_back(kube::Key(*pod));
                                 });
    for (const std::string& pod_key : bound) {
      std::shared_ptr<const api::Pod> pod = cluster_.decoded_pods().Get(pod_key);
      if (pod == nullptr || !pod->metadata.deletion_timestamp.empty() || api::IsTerminal(*pod)) {
        continue;
      }
      if (Status removed = DeletePod(*pod); !removed.ok()) return removed;
    }
  }
  return {};
}

// Deployments, ReplicaSets and Jobs: any names; StatefulSets: ordinals.
Status WorkloadControllers::Reconcile(const WorkloadKey& key) {
  const size_t first = key.find('/');
  const size_t second = key.find('/', first + 1);
  const std::string kind = key.substr(0, first);
  const std::string ns = key.substr(first + 1, second - first - 1);
  const std::string name = key.substr(second + 1);
  std::vector<std::shared_ptr<const api::Pod>> live = LivePods(key);
  kube::Informer* informer = InformerOf(kind);
  const std::optional<Object> workload =
      informer != nullptr ? informer->Get(kube::Key(ns, name)) : std::nullopt;
  const bool exists =
      workload || (kind == "DaemonSet" && cluster_.daemon_sets().Contains(kube::Key(ns, name)));
  if (!exists) {
    // Pods of workloads that were deleted go with them; those of workloads never seen stay.
    if (!deleted_.contains(key)) return {};
    for (const auto& pod : live) {
      if (Status removed = DeletePod(*pod); !removed.ok()) return removed;
    }
    return {};
  }
  if (!workload) return {};  // a DaemonSet: ReconcileDaemonSets places its pods
  if (!kube::DeletionTimestamp(*workload).empty()) return {};
  // A ReplicaSet a Deployment of the inputs owns is that Deployment's.
  if (kind == "ReplicaSet") {
    if (std::optional<std::string> deployment = DeploymentOf(*workload);
        deployment && deployments_.Contains(kube::Key(ns, *deployment))) {
      return {};
    }
  }
  std::vector<const api::Pod*> have;
  have.reserve(live.size());
  for (const auto& pod : live) have.push_back(pod.get());
  const int64_t want = Replicas(*workload, kind == "Job" ? "parallelism" : "replicas");
  if (kind == "StatefulSet") {
    std::set<std::string, std::less<>> ordinals;
    for (const api::Pod* pod : have) {
      const std::string_view pod_name = pod->metadata.name;
      const std::string_view suffix = pod_name.substr(name.size());
      const bool excess =
          !suffix.starts_with('-') || std::stoll("0" + std::string(suffix.substr(1))) >= want;
      if (excess) {
        if (Status removed = DeletePod(*pod); !removed.ok()) return removed;
      } else {
        ordinals.emplace(pod->metadata.name);
      }
    }
    for (int64_t i = 0; i < want; ++i) {
      const std::string pod_name = name + "-" + std::to_string(i);
      if (ordinals.contains(pod_name)) continue;
      Object pod = NewPod(*workload, "apps/v1", kind, name, kube::Uid(*workload));
      pod["metadata"]["name"] = pod_name;
      pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] = pod_name;
      if (Status created = CreatePod(pod); !created.ok()) return created;
    }
    return {};
  }
  if (static_cast<int64_t>(have.size()) > want) {
    SortForScaleDown(have, clock_.Now());
    for (size_t i = 0; i < have.size() - static_cast<size_t>(want); ++i) {
      if (Status removed = DeletePod(*have[i]); !removed.ok()) return removed;
    }
    return {};
  }
  std::string owner_kind = kind;
  std::string owner_name = name;
  std::string hash;
  if (kind == "Deployment") {
    hash = PodTemplateHashOf(have, ns, name);
    owner_kind = "ReplicaSet";
    owner_name = name + "-" + hash;
  }
  for (auto i = static_cast<int64_t>(have.size()); i < want; ++i) {
    Object pod = NewPod(*workload, kind == "Job" ? "batch/v1" : "apps/v1", owner_kind, owner_name,
                        kube::Uid(*workload));
    pod["metadata"]["generateName"] = owner_name + "-";
    if (!hash.empty()) pod["metadata"]["labels"][kPodTemplateHash] = hash;
    if (Status created = CreatePod(pod); !created.ok()) return created;
  }
  return {};
}

Status WorkloadControllers::ReconcileDaemonSets(
    const std::vector<Object>& daemon_sets,
    const std::vector<std::shared_ptr<const api::Node>>& nodes) {
  const std::vector<api::Toleration> added_tolerations = DaemonSetTolerations();
  for (const Object& object : daemon_sets) {
    std::optional<api::Workload> daemon_set = controllers::DecodeDaemonSet(object);
    if (!daemon_set || !kube::DeletionTimestamp(object).empty()) continue;
    api::Pod pod_template;
    pod_template.metadata = daemon_set->template_.metadata;
    pod_template.spec = daemon_set->template_.spec;
    const scheduling::PodConstraints constraints(pod_template, {});
    std::vector<api::Toleration> tolerations = pod_template.spec.tolerations;
    tolerations.insert(tolerations.end(), added_tolerations.begin(), added_tolerations.end());
    const WorkloadKey key =
        MakeWorkloadKey("DaemonSet", kube::Namespace(object), kube::Name(object));
    const std::vector<std::shared_ptr<const api::Pod>> live = LivePods(key);
    std::set<std::string_view> covered;
    for (const auto& pod : live) covered.insert(pod->spec.node_name);
    for (const auto& node : nodes) {
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
      if (Status created = CreatePod(pod); !created.ok()) return created;
    }
  }
  return {};
}

Result<size_t> WorkloadControllers::Run() {
  changes_ = 0;
  if (first_run_) {
    first_run_ = false;
    for (kube::Informer* informer : informers()) {
      const std::string_view kind = informer == &deployments_     ? "Deployment"
                                    : informer == &replica_sets_  ? "ReplicaSet"
                                    : informer == &stateful_sets_ ? "StatefulSet"
                                                                  : "Job";
      informer->ForEach([&](const Object& workload) {
        dirty_.insert(MakeWorkloadKey(kind, kube::Namespace(workload), kube::Name(workload)));
      });
    }
  }
  RETURN_IF_ERROR(TrackChangedPods());
  RETURN_IF_ERROR(CollectPodsOfGoneNodes());

  Keys dirty = std::move(dirty_);
  dirty_.clear();
  // DaemonSets whose object changed look at every Node; the others at the Nodes that changed.
  std::vector<Object> changed_daemon_sets;
  std::vector<Object> other_daemon_sets;
  cluster_.daemon_sets().ForEach([&](const Object& object) {
    const bool changed =
        dirty.contains(MakeWorkloadKey("DaemonSet", kube::Namespace(object), kube::Name(object)));
    (changed ? changed_daemon_sets : other_daemon_sets).push_back(object);
  });
  for (const WorkloadKey& key : dirty) {
    RETURN_IF_ERROR(Reconcile(key));
  }
  deleted_.clear();
  if (!changed_daemon_sets.empty()) {
    const Status reconciled =
        ReconcileDaemonSets(changed_daemon_sets, cluster_.decoded_nodes().All());
    if (!reconciled.ok()) return reconciled.error();
  }
  if (!other_daemon_sets.empty() && !dirty_nodes_.empty()) {
    std::vector<std::shared_ptr<const api::Node>> nodes;
    for (const std::string& name : dirty_nodes_) {
      if (std::shared_ptr<const api::Node> node = cluster_.decoded_nodes().Get(name)) {
        nodes.push_back(std::move(node));
      }
    }
    RETURN_IF_ERROR(ReconcileDaemonSets(other_daemon_sets, nodes));
  }
  dirty_nodes_.clear();
  return changes_;
}

}  // namespace karpenter::simulate
