// Decoders for core and workload objects: Pod, Node, PodDisruptionBudget, Deployment, ReplicaSet,
// StatefulSet, DaemonSet, Job, PersistentVolume, PersistentVolumeClaim, StorageClass.

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/decode_internal.h"

namespace karpenter::api::decode_internal {
namespace {

constexpr std::pair<std::string_view, TolerationOperator> kTolerationOperators[] = {
    {"Equal", TolerationOperator::kEqual},
    {"Exists", TolerationOperator::kExists},
    {"", TolerationOperator::kEqual},
};

constexpr std::pair<std::string_view, UnsatisfiableConstraintAction> kUnsatisfiableActions[] = {
    {"DoNotSchedule", UnsatisfiableConstraintAction::kDoNotSchedule},
    {"ScheduleAnyway", UnsatisfiableConstraintAction::kScheduleAnyway},
};

constexpr std::pair<std::string_view, NodeInclusionPolicy> kInclusionPolicies[] = {
    {"Honor", NodeInclusionPolicy::kHonor},
    {"Ignore", NodeInclusionPolicy::kIgnore},
};

constexpr std::pair<std::string_view, std::string_view> kProtocols[] = {
    {"TCP", "TCP"}, {"UDP", "UDP"}, {"SCTP", "SCTP"}};

constexpr std::pair<std::string_view, std::string_view> kBindingModes[] = {
    {"Immediate", "Immediate"}, {"WaitForFirstConsumer", "WaitForFirstConsumer"}};

constexpr std::string_view kDefaultClassAnnotations[] = {
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
};

ContainerPort DecodeContainerPort(const Reader& port) {
  ContainerPort out;
  if (!port.Object()) return out;
  if (Reader number = port["containerPort"]; number.Required()) {
    out.container_port = static_cast<int32_t>(number.Int(1, 65535).value_or(0));
  }
  out.host_port = static_cast<int32_t>(port["hostPort"].Int(0, 65535).value_or(0));
  if (Reader protocol = port["protocol"]; protocol.present()) {
    out.protocol = std::string(protocol.Enum("protocol", kProtocols).value_or("TCP"));
  }
  out.host_ip = port["hostIP"].StringOr();
  return out;
}

Container DecodeContainer(const Reader& container) {
  Container out;
  if (!container.Object()) return out;
  out.name = container["name"].StringOr();
  if (Reader resources = container["resources"]; resources.Object()) {
    out.requests = resources["requests"].Resources();
    out.limits = resources["limits"].Resources();
  }
  out.ports = container["ports"].List<ContainerPort>(DecodeContainerPort);
  out.restart_always = container["restartPolicy"].StringOr() == "Always";
  return out;
}

Toleration DecodeToleration(const Reader& toleration) {
  Toleration out;
  if (!toleration.Object()) return out;
  out.key = toleration["key"].StringOr();
  out.op = toleration["operator"]
               .Enum("operator", kTolerationOperators)
               .value_or(TolerationOperator::kEqual);
  out.value = toleration["value"].StringOr();
  // An empty effect, like a missing one, tolerates every effect.
  if (Reader effect = toleration["effect"]; effect.present()) {
    if (std::optional<std::string> text = effect.String(); text && !text->empty()) {
      out.effect = DecodeTaintEffect(effect);
    }
  }
  out.toleration_seconds = toleration["tolerationSeconds"].Int();
  return out;
}

PreferredSchedulingTerm DecodePreferredSchedulingTerm(const Reader& preferred) {
  PreferredSchedulingTerm out;
  if (!preferred.Object()) return out;
  out.weight = static_cast<int>(preferred["weight"].Int(0, 100).value_or(0));
  out.preference = DecodeNodeSelectorTerm(preferred["preference"]);
  return out;
}

NodeAffinity DecodeNodeAffinity(const Reader& affinity) {
  NodeAffinity out;
  if (Reader required = affinity["requiredDuringSchedulingIgnoredDuringExecution"];
      required.Object()) {
    out.required = required["nodeSelectorTerms"].List<NodeSelectorTerm>(DecodeNodeSelectorTerm);
  }
  out.preferred =
      affinity["preferredDuringSchedulingIgnoredDuringExecution"].List<PreferredSchedulingTerm>(
          DecodePreferredSchedulingTerm);
  return out;
}

PodAffinityTerm DecodePodAffinityTerm(const Reader& term) {
  PodAffinityTerm out;
  if (!term.Object()) return out;
  out.label_selector = DecodeOptionalLabelSelector(term["labelSelector"]);
  out.namespaces = term["namespaces"].StringList();
  out.namespace_selector = DecodeOptionalLabelSelector(term["namespaceSelector"]);
  out.topology_key = term["topologyKey"].StringOr();
  out.match_label_keys = term["matchLabelKeys"].StringList();
  return out;
}

WeightedPodAffinityTerm DecodeWeightedPodAffinityTerm(const Reader& weighted) {
  WeightedPodAffinityTerm out;
  if (!weighted.Object()) return out;
  out.weight = static_cast<int>(weighted["weight"].Int(0, 100).value_or(0));
  out.term = DecodePodAffinityTerm(weighted["podAffinityTerm"]);
  return out;
}

PodAffinity DecodePodAffinity(const Reader& affinity) {
  PodAffinity out;
  out.required = affinity["requiredDuringSchedulingIgnoredDuringExecution"].List<PodAffinityTerm>(
      DecodePodAffinityTerm);
  out.preferred =
      affinity["preferredDuringSchedulingIgnoredDuringExecution"].List<WeightedPodAffinityTerm>(
          DecodeWeightedPodAffinityTerm);
  return out;
}

Affinity DecodeAffinity(const Reader& affinity) {
  Affinity out;
  if (Reader node = affinity["nodeAffinity"]; node.Object()) {
    out.node_affinity = DecodeNodeAffinity(node);
  }
  if (Reader pod = affinity["podAffinity"]; pod.Object()) out.pod_affinity = DecodePodAffinity(pod);
  if (Reader anti = affinity["podAntiAffinity"]; anti.Object()) {
    out.pod_anti_affinity = DecodePodAffinity(anti);
  }
  return out;
}

TopologySpreadConstraint DecodeTopologySpreadConstraint(const Reader& constraint) {
  TopologySpreadConstraint out;
  if (!constraint.Object()) return out;
  if (Reader skew = constraint["maxSkew"]; skew.Required()) {
    out.max_skew = static_cast<int32_t>(skew.Int(1, INT32_MAX).value_or(1));
  }
  if (Reader key = constraint["topologyKey"]; key.Required()) out.topology_key = key.StringOr();
  if (Reader action = constraint["whenUnsatisfiable"]; action.Required()) {
    out.when_unsatisfiable = action.Enum("whenUnsatisfiable action", kUnsatisfiableActions)
                                 .value_or(UnsatisfiableConstraintAction::kDoNotSchedule);
  }
  out.label_selector = DecodeOptionalLabelSelector(constraint["labelSelector"]);
  if (Reader domains = constraint["minDomains"]; domains.present()) {
    out.min_domains = static_cast<int32_t>(domains.Int(1, INT32_MAX).value_or(1));
  }
  if (Reader policy = constraint["nodeAffinityPolicy"]; policy.present()) {
    out.node_affinity_policy = policy.Enum("node inclusion policy", kInclusionPolicies)
                                   .value_or(NodeInclusionPolicy::kHonor);
  }
  if (Reader policy = constraint["nodeTaintsPolicy"]; policy.present()) {
    out.node_taints_policy = policy.Enum("node inclusion policy", kInclusionPolicies)
                                 .value_or(NodeInclusionPolicy::kIgnore);
  }
  out.match_label_keys = constraint["matchLabelKeys"].StringList();
  return out;
}

Volume DecodeVolume(const Reader& volume) {
  Volume out;
  if (!volume.Object()) return out;
  out.name = volume["name"].StringOr();
  if (Reader claim = volume["persistentVolumeClaim"]; claim.Object()) {
    if (Reader name = claim["claimName"]; name.Required()) {
      out.persistent_volume_claim = name.StringOr();
    }
  }
  if (Reader ephemeral = volume["ephemeral"]; ephemeral.Object()) {
    out.ephemeral = true;
    out.ephemeral_storage_class =
        ephemeral["volumeClaimTemplate"]["spec"]["storageClassName"].StringOr();
  }
  return out;
}

// Pod and Node conditions share their shape.
template <class C>
C DecodeStatusCondition(const Reader& condition) {
  C out;
  if (!condition.Object()) return out;
  out.type = condition["type"].StringOr();
  out.status = condition["status"].StringOr();
  out.reason = condition["reason"].StringOr();
  out.last_transition_time = condition["lastTransitionTime"].StringOr();
  return out;
}

// The metadata and spec of a PersistentVolumeClaim (an object, or a StatefulSet's template).
PersistentVolumeClaim DecodeClaim(const Reader& claim) {
  PersistentVolumeClaim out;
  if (!claim.Object()) return out;
  out.metadata = DecodeObjectMeta(claim["metadata"]);
  if (Reader spec = claim["spec"]; spec.Object()) {
    if (Reader storage_class = spec["storageClassName"]; storage_class.present()) {
      out.storage_class_name = storage_class.StringOr();
    }
    out.volume_name = spec["volumeName"].StringOr();
    out.requests = spec["resources"]["requests"].Resources();
  }
  return out;
}

// What Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs share: metadata, selector and
// the pod template (required).
Workload DecodeWorkload(const Reader& object, WorkloadKind kind) {
  Workload out;
  out.kind = kind;
  out.metadata = DecodeObjectMeta(object["metadata"]);
  const Reader spec = object["spec"];
  if (!spec.Required() || !spec.Object()) return out;
  out.selector = DecodeOptionalLabelSelector(spec["selector"]);
  if (Reader pod_template = spec["template"]; pod_template.Required() && pod_template.Object()) {
    out.template_.metadata = DecodeObjectMeta(pod_template["metadata"]);
    out.template_.spec = DecodePodSpec(pod_template["spec"]);
  }
  return out;
}

// A replica count (spec.replicas, a Job's parallelism or completions) that plans and simulations
// can model; nullopt, with a problem, when it is not one.
std::optional<int32_t> ModelledReplicas(const Reader& field) {
  const std::optional<int64_t> replicas = field.Int(0, INT32_MAX);
  if (!replicas) return std::nullopt;
  if (*replicas > kMaxModelledReplicas) {
    field.Error(fmt::format("{} replicas are more than karpenter models (at most {} per workload)",
                            *replicas, kMaxModelledReplicas));
    return std::nullopt;
  }
  return static_cast<int32_t>(*replicas);
}

void DecodeReplicated(const Reader& object, Problems& problems, Manifest& out, WorkloadKind kind) {
  Workload workload = DecodeWorkload(object, kind);
  const Reader spec = object["spec"];
  workload.replicas = ModelledReplicas(spec["replicas"]).value_or(1);
  if (kind == WorkloadKind::kStatefulSet) {
    workload.volume_claim_templates =
        spec["volumeClaimTemplates"].List<PersistentVolumeClaim>(DecodeClaim);
  }
  Accept(std::move(workload), problems, out.workloads);
}

}  // namespace

PodSpec DecodePodSpec(const Reader& spec) {
  PodSpec out;
  if (!spec.Object()) return out;
  out.init_containers = spec["initContainers"].List<Container>(DecodeContainer);
  out.containers = spec["containers"].List<Container>(DecodeContainer);
  out.overhead = spec["overhead"].Resources();
  out.node_selector = spec["nodeSelector"].LabelMap();
  if (Reader affinity = spec["affinity"]; affinity.Object()) {
    out.affinity = DecodeAffinity(affinity);
  }
  out.tolerations = spec["tolerations"].List<Toleration>(DecodeToleration);
  out.topology_spread_constraints =
      spec["topologySpreadConstraints"].List<TopologySpreadConstraint>(
          DecodeTopologySpreadConstraint);
  out.priority = spec["priority"].Int32();
  out.priority_class_name = spec["priorityClassName"].StringOr();
  out.preemption_policy = spec["preemptionPolicy"].StringOr();
  out.node_name = spec["nodeName"].StringOr();
  out.scheduler_name = spec["schedulerName"].StringOr();
  out.volumes = spec["volumes"].List<Volume>(DecodeVolume);
  out.termination_grace_period_seconds = spec["terminationGracePeriodSeconds"].Int(0);
  return out;
}

void DecodePod(const Reader& object, Problems& problems, Manifest& out) {
  Pod pod;
  pod.metadata = DecodeObjectMeta(object["metadata"]);
  pod.spec = DecodePodSpec(object["spec"]);
  if (Reader status = object["status"]; status.Object()) {
    pod.status.phase = status["phase"].StringOr();
    pod.status.conditions =
        status["conditions"].List<PodCondition>(DecodeStatusCondition<PodCondition>);
    pod.status.nominated_node_name = status["nominatedNodeName"].StringOr();
  }
  Accept(std::move(pod), problems, out.pods);
}

void DecodeNode(const Reader& object, Problems& problems, Manifest& out) {
  Node node;
  node.metadata = DecodeObjectMeta(object["metadata"]);
  if (Reader spec = object["spec"]; spec.Object()) {
    node.spec.provider_id = spec["providerID"].StringOr();
    node.spec.taints = spec["taints"].List<Taint>(DecodeTaint);
    node.spec.unschedulable = spec["unschedulable"].Bool().value_or(false);
  }
  if (Reader status = object["status"]; status.Object()) {
    node.status.capacity = status["capacity"].Resources();
    node.status.allocatable = status["allocatable"].Resources();
    node.status.conditions =
        status["conditions"].List<NodeCondition>(DecodeStatusCondition<NodeCondition>);
  }
  Accept(std::move(node), problems, out.nodes);
}

void DecodePodDisruptionBudget(const Reader& object, Problems& problems, Manifest& out) {
  PodDisruptionBudget pdb;
  pdb.metadata = DecodeObjectMeta(object["metadata"]);
  if (Reader spec = object["spec"]; spec.Object()) {
    pdb.selector = DecodeOptionalLabelSelector(spec["selector"]);
    pdb.min_available = spec["minAvailable"].StringOr();
    pdb.max_unavailable = spec["maxUnavailable"].StringOr();
  }
  Accept(std::move(pdb), problems, out.pdbs);
}

void DecodeDeployment(const Reader& object, Problems& problems, Manifest& out) {
  DecodeReplicated(object, problems, out, WorkloadKind::kDeployment);
}

void DecodeReplicaSet(const Reader& object, Problems& problems, Manifest& out) {
  DecodeReplicated(object, problems, out, WorkloadKind::kReplicaSet);
}

void DecodeStatefulSet(const Reader& object, Problems& problems, Manifest& out) {
  DecodeReplicated(object, problems, out, WorkloadKind::kStatefulSet);
}

void DecodeDaemonSet(const Reader& object, Problems& problems, Manifest& out) {
  Accept(DecodeWorkload(object, WorkloadKind::kDaemonSet), problems, out.workloads);
}

void DecodeJob(const Reader& object, Problems& problems, Manifest& out) {
  Workload job = DecodeWorkload(object, WorkloadKind::kJob);
  const Reader spec = object["spec"];
  int32_t replicas = ModelledReplicas(spec["parallelism"]).value_or(1);
  // Many completions are fine: at most `parallelism` pods run at once.
  if (std::optional<int64_t> completions = spec["completions"].Int(0, INT32_MAX)) {
    replicas = static_cast<int32_t>(std::min<int64_t>(replicas, *completions));
  }
  job.replicas = replicas;
  Accept(std::move(job), problems, out.workloads);
}

void DecodePersistentVolume(const Reader& object, Problems& problems, Manifest& out) {
  PersistentVolume volume;
  volume.metadata = DecodeObjectMeta(object["metadata"]);
  if (Reader spec = object["spec"]; spec.Object()) {
    volume.storage_class_name = spec["storageClassName"].StringOr();
    volume.node_affinity =
        spec["nodeAffinity"]["required"]["nodeSelectorTerms"].List<NodeSelectorTerm>(
            DecodeNodeSelectorTerm);
    if (Reader claim = spec["claimRef"]; claim.Object()) {
      volume.claim_namespace = claim["namespace"].StringOr();
      volume.claim_name = claim["name"].StringOr();
    }
  }
  Accept(std::move(volume), problems, out.persistent_volumes);
}

void DecodePersistentVolumeClaim(const Reader& object, Problems& problems, Manifest& out) {
  Accept(DecodeClaim(object), problems, out.persistent_volume_claims);
}

void DecodeStorageClass(const Reader& object, Problems& problems, Manifest& out) {
  StorageClass storage_class;
  storage_class.metadata = DecodeObjectMeta(object["metadata"]);
  storage_class.provisioner = object["provisioner"].StringOr();
  if (Reader mode = object["volumeBindingMode"]; mode.present()) {
    storage_class.volume_binding_mode =
        std::string(mode.Enum("volume binding mode", kBindingModes).value_or("Immediate"));
  }
  object["allowedTopologies"].Each([&](const Reader& topology) {
    NodeSelectorTerm term;
    topology["matchLabelExpressions"].Each([&](const Reader& expression) {
      NodeSelectorRequirement requirement;
      if (!expression.Object()) return;
      if (Reader key = expression["key"]; key.Required()) requirement.key = key.StringOr();
      requirement.op = NodeSelectorOperator::kIn;
      requirement.values = expression["values"].StringList();
      term.match_expressions.push_back(std::move(requirement));
    });
    storage_class.allowed_topologies.push_back(std::move(term));
  });
  for (const std::string_view annotation : kDefaultClassAnnotations) {
    const auto it = storage_class.metadata.annotations.find(annotation);
    if (it != storage_class.metadata.annotations.end() && it->second == "true") {
      storage_class.is_default = true;
    }
  }
  Accept(std::move(storage_class), problems, out.storage_classes);
}

void DecodePodTemplate(const Reader& object, Problems& problems, Manifest& out) {
  PodTemplateObject pod_template;
  pod_template.metadata = DecodeObjectMeta(object["metadata"]);
  if (Reader spec = object["template"]; spec.Required() && spec.Object()) {
    pod_template.template_.metadata = DecodeObjectMeta(spec["metadata"]);
    pod_template.template_.spec = DecodePodSpec(spec["spec"]);
  }
  Accept(std::move(pod_template), problems, out.pod_templates);
}

}  // namespace karpenter::api::decode_internal
