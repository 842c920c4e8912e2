#include "controllers/state_metrics.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "api/labels.h"
#include "metrics/families.h"

namespace karpenter::controllers {
namespace {

using Labels = std::vector<prometheus::ClientMetric::Label>;

// The labels of a node's series, as upstream names them: one per well-known label (its name after
// the "/", in snake case: "karpenter.k8s.aws/instance-cpu" → instance_cpu; empty when the node
// lacks it), its name, phase and whether Karpenter manages it.
Labels NodeLabels(const api::Node& node) {
  const api::Labels& labels = node.metadata.labels;
  Labels out = {{"node_name", node.metadata.name}};
  for (std::string_view key : api::kWellKnownLabels) {
    out.push_back({ResourceTypeLabel(key.substr(key.find('/') + 1)),
                   std::string(api::LabelValue(labels, key))});
  }
  out.push_back({"phase", ""});  // Node.status.phase: unused by current Kubernetes
  out.push_back({"managed", labels.contains(std::string(api::kLabelNodePool)) ? "true" : "false"});
  return out;
}

Labels With(Labels labels, std::string name, std::string value) {
  labels.push_back({std::move(name), std::move(value)});
  return labels;
}

// Adds a series per resource of `resources` to `family`.
void AddResources(prometheus::MetricFamily& family, const Labels& labels,
                  const api::ResourceList& resources) {
  resources.ForEach([&](std::string_view resource, Quantity quantity) {
    metrics::AddSeries(family, With(labels, "resource_type", ResourceTypeLabel(resource)),
                       quantity.as_double());
  });
}

// A pod's limits as the kubelet enforces them: the containers' sum, or an init container's own
// where larger.
api::ResourceList EffectiveLimits(const api::PodSpec& spec) {
  api::ResourceList limits;
  for (const api::Container& container : spec.containers) limits += container.limits;
  for (const api::Container& container : spec.init_containers) limits.MaxWith(container.limits);
  return limits;
}

bool HasCondition(const api::Pod& pod, std::string_view type) {
  return std::any_of(
      pod.status.conditions.begin(), pod.status.conditions.end(),
      [&](const api::PodCondition& c) { return c.type == type && c.status == "True"; });
}

// Upstream's owner label: the API path of the pod's first owner.
std::string OwnerPath(const api::Pod& pod) {
  if (pod.metadata.owner_references.empty()) return "";
  const api::OwnerReference& owner = pod.metadata.owner_references.front();
  std::string kind = owner.kind;
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return "/apis/" + owner.api_version + "/namespaces/" + pod.metadata.namespace_ + "/" + kind +
         "s/" + owner.name;
}

double SecondsSince(const std::string& timestamp, TimePoint now) {
  const std::optional<TimePoint> at = ParseTime(timestamp);
  return at ? std::chrono::duration<double>(now - *at).count() : 0;
}

}  // namespace

std::string ResourceTypeLabel(std::string_view resource) {
  std::string label(resource);
  for (char& c : label) {
    c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return label;
}

StateMetrics::StateMetrics(const ClusterCache& cluster, const Clock& clock)
    : cluster_(cluster), clock_(clock) {}

std::vector<prometheus::MetricFamily> StateMetrics::Collect() const {
  using metrics::GaugeFamily;
  const TimePoint now = clock_.Now();
  auto allocatable = GaugeFamily("karpenter_nodes_allocatable",
                                 "What a node offers pods, per resource (CPU in cores).");
  auto pod_requests =
      GaugeFamily("karpenter_nodes_total_pod_requests",
                  "The requests of the pods bound to a node, DaemonSets' included.");
  auto pod_limits = GaugeFamily("karpenter_nodes_total_pod_limits",
                                "The limits of the pods bound to a node, DaemonSets' included.");
  auto daemon_requests = GaugeFamily("karpenter_nodes_total_daemon_requests",
                                     "The requests of the DaemonSet pods bound to a node.");
  auto daemon_limits = GaugeFamily("karpenter_nodes_total_daemon_limits",
                                   "The limits of the DaemonSet pods bound to a node.");
  auto overhead = GaugeFamily("karpenter_nodes_system_overhead",
                              "What a node keeps from pods: capacity minus allocatable.");
  auto lifetime = GaugeFamily("karpenter_nodes_current_lifetime_seconds",
                              "How long ago a node was created, in seconds.");
  auto utilization = GaugeFamily("karpenter_cluster_utilization_percent",
                                 "Pods' requests as a percentage of the nodes' allocatable.");
  auto node_count = GaugeFamily("karpenter_cluster_state_node_count",
                                "Nodes the controller knows of, launched NodeClaims included.");
  auto synced = GaugeFamily("karpenter_cluster_state_synced",
                            "1 when the controller's view of the cluster has caught up, else 0.");
  auto usage = GaugeFamily("karpenter_nodepools_usage",
                           "The capacity of a NodePool's nodes, per resource (its status).");
  auto limit =
      GaugeFamily("karpenter_nodepools_limit", "A NodePool's limit, per resource (its spec).");
  auto pods_state = GaugeFamily("karpenter_pods_state",
                                "1 per pod, its labels saying where and in what state it is.");
  auto unbound = GaugeFamily("karpenter_pods_unbound_time_seconds",
                             "How long a pod not yet bound to a node has existed, in seconds.");
  auto unstarted = GaugeFamily("karpenter_pods_unstarted_time_seconds",
                               "How long a pod not yet ready has existed, in seconds.");

  // Pods by node, with their sums.
  struct Sums {
    api::ResourceList requests, limits, daemon_requests, daemon_limits;
  };
  std::map<std::string, Sums, std::less<>> by_node;
  std::map<std::string, Labels, std::less<>> node_labels;
  const std::vector<std::shared_ptr<const api::Node>> nodes = cluster_.decoded_nodes().All();
  for (const auto& node : nodes) node_labels[node->metadata.name] = NodeLabels(*node);

  for (const auto& pod : cluster_.decoded_pods().All()) {
    const bool bound = !pod->spec.node_name.empty();
    const bool ready = HasCondition(*pod, "Ready");
    if (bound && !api::IsTerminal(*pod)) {
      Sums& sums = by_node[pod->spec.node_name];
      const api::ResourceList requests = api::EffectiveRequests(pod->spec);
      const api::ResourceList limits = EffectiveLimits(pod->spec);
      sums.requests += requests;
      sums.limits += limits;
      if (api::IsDaemonSetPod(*pod)) {
        sums.daemon_requests += requests;
        sums.daemon_limits += limits;
      }
    }
    auto node_label = [&](std::string_view name) -> std::string {
      const auto it = node_labels.find(pod->spec.node_name);
      if (it == node_labels.end()) return "";
      for (const auto& label : it->second) {
        if (label.name == name) return label.value;
      }
      return "";
    };
    metrics::AddSample(pods_state,
                       {{"name", pod->metadata.name},
                        {"namespace", pod->metadata.namespace_},
                        {"owner", OwnerPath(*pod)},
                        {"node", pod->spec.node_name},
                        {"nodepool", node_label("nodepool")},
                        {"zone", node_label("zone")},
                        {"arch", node_label("arch")},
                        {"capacity_type", node_label("capacity_type")},
                        {"instance_type", node_label("instance_type")},
                        {"phase", pod->status.phase},
                        {"scheduled", bound ? "true" : "false"},
                        {"ready", ready ? "true" : "false"}},
                       1);
    if (!bound && !api::IsTerminal(*pod)) {
      metrics::AddSample(unbound,
                         {{"name", pod->metadata.name}, {"namespace", pod->metadata.namespace_}},
                         SecondsSince(pod->metadata.creation_timestamp, now));
    }
    if (!ready && !api::IsTerminal(*pod)) {
      metrics::AddSample(unstarted,
                         {{"name", pod->metadata.name}, {"namespace", pod->metadata.namespace_}},
                         SecondsSince(pod->metadata.creation_timestamp, now));
    }
  }

  api::ResourceList total_requests;
  api::ResourceList total_allocatable;
  std::set<std::string, std::less<>> provider_ids;
  for (const auto& node : nodes) {
    const Labels& labels = node_labels[node->metadata.name];
    if (!node->spec.provider_id.empty()) provider_ids.insert(node->spec.provider_id);
    AddResources(allocatable, labels, node->status.allocatable);
    AddResources(overhead, labels, node->status.capacity - node->status.allocatable);
    const Sums& sums = by_node[node->metadata.name];
    AddResources(pod_requests, labels, sums.requests);
    AddResources(pod_limits, labels, sums.limits);
    AddResources(daemon_requests, labels, sums.daemon_requests);
    AddResources(daemon_limits, labels, sums.daemon_limits);
    metrics::AddSeries(lifetime, labels, SecondsSince(node->metadata.creation_timestamp, now));
    total_requests += sums.requests;
    total_allocatable += node->status.allocatable;
  }
  total_allocatable.ForEach([&](std::string_view name, Quantity q) {
    if (q.is_zero()) return;
    metrics::AddSample(utilization, {{"resource_type", ResourceTypeLabel(name)}},
                       100 * total_requests.Get(name).as_double() / q.as_double());
  });

  // Nodes and the launched NodeClaims whose Node has not registered yet, once each.
  size_t known = nodes.size();
  for (const auto& claim : cluster_.decoded_node_claims().All()) {
    if (claim->status.provider_id.empty() || !provider_ids.contains(claim->status.provider_id)) {
      ++known;
    }
  }
  metrics::AddSample(node_count, {}, static_cast<double>(known));
  metrics::AddSample(synced, {}, cluster_.synced() ? 1 : 0);

  cluster_.node_pools().ForEach([&](const kube::Object& object) {
    const std::optional<api::NodePool> pool = DecodeNodePool(object);
    if (!pool) return;
    const std::string& name = pool->metadata.name;
    pool->status.resources.ForEach([&](std::string_view resource, Quantity q) {
      metrics::AddSample(usage,
                         {{"nodepool", name}, {"resource_type", ResourceTypeLabel(resource)}},
                         q.as_double());
    });
    for (const std::string& resource : pool->spec.limited_resources) {
      metrics::AddSample(limit,
                         {{"nodepool", name}, {"resource_type", ResourceTypeLabel(resource)}},
                         pool->spec.limits.Get(resource).as_double());
    }
  });

  std::vector<prometheus::MetricFamily> families;
  for (prometheus::MetricFamily* family :
       {&allocatable, &pod_requests, &pod_limits, &daemon_requests, &daemon_limits, &overhead,
        &lifetime, &utilization, &node_count, &synced, &usage, &limit, &pods_state, &unbound,
        &unstarted}) {
    families.push_back(std::move(*family));
  }
  return families;
}

}  // namespace karpenter::controllers
