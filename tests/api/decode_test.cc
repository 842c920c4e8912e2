#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "api/defaults.h"
#include "api/manifest.h"
#include "support/param_name.h"

namespace karpenter::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Quantity Q(std::string_view text) { return *Quantity::Parse(text); }

// Decodes text that must decode without problems.
Manifest DecodeClean(std::string_view text) {
  DecodeOutcome outcome = DecodeManifest(text, "test.yaml");
  EXPECT_THAT(outcome.errors, IsEmpty());
  return std::move(outcome.manifest);
}

constexpr std::string_view kPod = R"(
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  labels: {app: web, tier: 1}
  ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, uid: u-1, controller: true}
spec:
  initContainers:
    - name: setup
      resources: {requests: {cpu: "2"}}
    - name: proxy
      restartPolicy: Always
      resources: {requests: {cpu: 100m, memory: 64Mi}}
  containers:
    - name: app
      resources:
        requests: {cpu: 500m, memory: 1Gi}
        limits: {cpu: 1, memory: 2Gi, nvidia.com/gpu: 1}
      ports:
        - {containerPort: 8080, hostPort: 80, protocol: UDP, hostIP: 10.0.0.1}
        - containerPort: 9090
  overhead: {cpu: 50m}
  nodeSelector: {kubernetes.io/os: linux}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: [4]}
          - matchFields:
              - {key: metadata.name, operator: In, values: [node-a]}
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 20
          preference:
            matchExpressions:
              - {key: topology.kubernetes.io/zone, operator: In, values: [us-west-2a]}
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: cache}}
          topologyKey: topology.kubernetes.io/zone
          namespaces: [shared]
          matchLabelKeys: [pod-template-hash]
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            labelSelector:
              matchExpressions:
                - {key: app, operator: In, values: [web]}
            namespaceSelector: {}
            topologyKey: kubernetes.io/hostname
  tolerations:
    - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}
    - {operator: Exists}
    - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
    - {key: spot, value: "true", effect: ""}
  topologySpreadConstraints:
    - maxSkew: 2
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
      labelSelector: {matchLabels: {app: web}}
      minDomains: 3
      nodeAffinityPolicy: Ignore
      nodeTaintsPolicy: Honor
      matchLabelKeys: [pod-template-hash]
  priority: 1000
  priorityClassName: high
  preemptionPolicy: Never
  nodeName: ""
  schedulerName: default-scheduler
  terminationGracePeriodSeconds: 45
  volumes:
    - name: data
      persistentVolumeClaim: {claimName: data-web-0}
    - name: scratch
      ephemeral:
        volumeClaimTemplate:
          spec: {storageClassName: fast, resources: {requests: {storage: 1Gi}}}
    - name: config
      configMap: {name: web-config}
status:
  phase: Pending
  nominatedNodeName: ip-10-0-0-1
  conditions:
    - {type: PodScheduled, status: "False", reason: Unschedulable, lastTransitionTime: "2024-01-01T00:00:00Z"}
)";

TEST(DecodePodTest, DecodesEveryModelledField) {
  const Manifest manifest = DecodeClean(kPod);
  ASSERT_EQ(manifest.pods.size(), 1u);
  const Pod& pod = manifest.pods[0];
  EXPECT_EQ(pod.metadata.name, "web-0");
  EXPECT_EQ(pod.metadata.namespace_, "default");
  EXPECT_EQ(pod.metadata.labels.at("tier"), "1");
  ASSERT_EQ(pod.metadata.owner_references.size(), 1u);
  EXPECT_TRUE(pod.metadata.owner_references[0].controller);
  EXPECT_EQ(pod.metadata.owner_references[0].kind, "ReplicaSet");

  const PodSpec& spec = pod.spec;
  ASSERT_EQ(spec.init_containers.size(), 2u);
  EXPECT_FALSE(spec.init_containers[0].restart_always);
  EXPECT_TRUE(spec.init_containers[1].restart_always);
  ASSERT_EQ(spec.containers.size(), 1u);
  const Container& app = spec.containers[0];
  EXPECT_EQ(app.requests.cpu(), Q("500m"));
  EXPECT_EQ(app.requests.memory(), Q("1Gi"));
  EXPECT_EQ(app.limits.cpu(), Q("1"));
  // Defaulting: a limit without a request requests the limit.
  EXPECT_EQ(app.requests.Get("nvidia.com/gpu"), Q("1"));
  ASSERT_EQ(app.ports.size(), 2u);
  EXPECT_EQ(app.ports[0].container_port, 8080);
  EXPECT_EQ(app.ports[0].host_port, 80);
  EXPECT_EQ(app.ports[0].protocol, "UDP");
  EXPECT_EQ(app.ports[0].host_ip, "10.0.0.1");
  EXPECT_EQ(app.ports[1].protocol, "TCP");
  EXPECT_EQ(spec.overhead.cpu(), Q("50m"));
  EXPECT_EQ(spec.node_selector.at("kubernetes.io/os"), "linux");

  ASSERT_TRUE(spec.affinity.has_value());
  ASSERT_TRUE(spec.affinity->node_affinity.has_value());
  const NodeAffinity& node_affinity = *spec.affinity->node_affinity;
  ASSERT_TRUE(node_affinity.required.has_value());
  ASSERT_EQ(node_affinity.required->size(), 2u);
  const NodeSelectorRequirement& cpu = (*node_affinity.required)[0].match_expressions[0];
  EXPECT_EQ(cpu.op, NodeSelectorOperator::kGt);
  EXPECT_THAT(cpu.values, ElementsAre("4"));
  EXPECT_EQ((*node_affinity.required)[1].match_fields[0].key, "metadata.name");
  ASSERT_EQ(node_affinity.preferred.size(), 1u);
  EXPECT_EQ(node_affinity.preferred[0].weight, 20);
  ASSERT_TRUE(spec.affinity->pod_affinity.has_value());
  const PodAffinityTerm& cache = spec.affinity->pod_affinity->required.at(0);
  EXPECT_EQ(cache.topology_key, "topology.kubernetes.io/zone");
  EXPECT_THAT(cache.namespaces, ElementsAre("shared"));
  EXPECT_THAT(cache.match_label_keys, ElementsAre("pod-template-hash"));
  ASSERT_TRUE(cache.label_selector.has_value());
  EXPECT_EQ(cache.label_selector->match_labels.at("app"), "cache");
  ASSERT_TRUE(spec.affinity->pod_anti_affinity.has_value());
  const WeightedPodAffinityTerm& spread = spec.affinity->pod_anti_affinity->preferred.at(0);
  EXPECT_EQ(spread.weight, 100);
  EXPECT_EQ(spread.term.label_selector->match_expressions.at(0).op, SelectorOperator::kIn);
  ASSERT_TRUE(spread.term.namespace_selector.has_value());
  EXPECT_TRUE(spread.term.namespace_selector->empty());

  ASSERT_EQ(spec.tolerations.size(), 4u);
  EXPECT_EQ(spec.tolerations[0].effect, TaintEffect::kNoSchedule);
  EXPECT_EQ(spec.tolerations[1].op, TolerationOperator::kExists);
  EXPECT_EQ(spec.tolerations[1].key, "");
  EXPECT_EQ(spec.tolerations[2].toleration_seconds, 300);
  EXPECT_EQ(spec.tolerations[3].effect, std::nullopt);
  EXPECT_EQ(spec.tolerations[3].value, "true");

  ASSERT_EQ(spec.topology_spread_constraints.size(), 1u);
  const TopologySpreadConstraint& tsc = spec.topology_spread_constraints[0];
  EXPECT_EQ(tsc.max_skew, 2);
  EXPECT_EQ(tsc.when_unsatisfiable, UnsatisfiableConstraintAction::kScheduleAnyway);
  EXPECT_EQ(tsc.min_domains, 3);
  EXPECT_EQ(tsc.node_affinity_policy, NodeInclusionPolicy::kIgnore);
  EXPECT_EQ(tsc.node_taints_policy, NodeInclusionPolicy::kHonor);
  EXPECT_THAT(tsc.match_label_keys, ElementsAre("pod-template-hash"));

  EXPECT_EQ(spec.priority, 1000);
  EXPECT_EQ(spec.priority_class_name, "high");
  EXPECT_EQ(spec.preemption_policy, "Never");
  EXPECT_EQ(spec.node_name, "");
  EXPECT_EQ(spec.scheduler_name, "default-scheduler");
  EXPECT_EQ(spec.termination_grace_period_seconds, 45);
  ASSERT_EQ(spec.volumes.size(), 3u);
  EXPECT_EQ(spec.volumes[0].persistent_volume_claim, "data-web-0");
  EXPECT_TRUE(spec.volumes[1].ephemeral);
  EXPECT_EQ(spec.volumes[1].ephemeral_storage_class, "fast");
  EXPECT_EQ(spec.volumes[2].persistent_volume_claim, "");
  EXPECT_FALSE(spec.volumes[2].ephemeral);

  EXPECT_EQ(pod.status.phase, "Pending");
  EXPECT_EQ(pod.status.nominated_node_name, "ip-10-0-0-1");
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].reason, "Unschedulable");
  EXPECT_EQ(pod.status.conditions[0].status, "False");
}

TEST(DecodeNodeTest, DecodesSpecAndStatus) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-1
  labels: {karpenter.sh/nodepool: general, karpenter.sh/initialized: "true"}
spec:
  providerID: aws:///us-west-2a/i-0abc
  unschedulable: true
  taints:
    - {key: karpenter.sh/disrupted, effect: NoSchedule}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "58"}
  allocatable: {cpu: 3920m, memory: 15Gi, pods: "58"}
  conditions:
    - {type: Ready, status: "True", reason: KubeletReady}
)");
  ASSERT_EQ(manifest.nodes.size(), 1u);
  const Node& node = manifest.nodes[0];
  EXPECT_EQ(node.metadata.namespace_, "");
  EXPECT_EQ(node.spec.provider_id, "aws:///us-west-2a/i-0abc");
  EXPECT_TRUE(node.spec.unschedulable);
  ASSERT_EQ(node.spec.taints.size(), 1u);
  EXPECT_EQ(node.spec.taints[0].key, "karpenter.sh/disrupted");
  EXPECT_EQ(node.status.capacity.pods(), Q("58"));
  EXPECT_EQ(node.status.allocatable.cpu(), Q("3920m"));
  ASSERT_EQ(node.status.conditions.size(), 1u);
  EXPECT_EQ(node.status.conditions[0].type, "Ready");
}

TEST(DecodeWorkloadTest, ReplicatedWorkloads) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, resources: {requests: {cpu: 250m}}}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-abc, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template: {spec: {containers: [{name: app}]}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 0
  selector: {matchLabels: {app: db}}
  template: {spec: {containers: [{name: db}]}}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec:
        storageClassName: gp3
        resources: {requests: {storage: 100Gi}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: agent, resources: {limits: {memory: 200Mi}}}]
)");
  ASSERT_EQ(manifest.workloads.size(), 4u);
  const Workload& deployment = manifest.workloads[0];
  EXPECT_EQ(deployment.kind, WorkloadKind::kDeployment);
  EXPECT_EQ(deployment.metadata.namespace_, "shop");
  EXPECT_EQ(deployment.replicas, 3);
  ASSERT_TRUE(deployment.selector.has_value());
  EXPECT_EQ(deployment.selector->match_labels.at("app"), "web");
  EXPECT_EQ(deployment.template_.metadata.labels.at("app"), "web");
  EXPECT_EQ(deployment.template_.metadata.namespace_, "shop");
  EXPECT_EQ(deployment.template_.spec.containers.at(0).requests.cpu(), Q("250m"));

  EXPECT_EQ(manifest.workloads[1].kind, WorkloadKind::kReplicaSet);
  EXPECT_EQ(manifest.workloads[1].replicas, 1);

  const Workload& stateful = manifest.workloads[2];
  EXPECT_EQ(stateful.kind, WorkloadKind::kStatefulSet);
  EXPECT_EQ(stateful.replicas, 0);
  EXPECT_EQ(stateful.metadata.namespace_, "default");
  ASSERT_EQ(stateful.volume_claim_templates.size(), 1u);
  EXPECT_EQ(stateful.volume_claim_templates[0].metadata.name, "data");
  EXPECT_EQ(stateful.volume_claim_templates[0].storage_class_name, "gp3");
  EXPECT_EQ(stateful.volume_claim_templates[0].requests.Get("storage"), Q("100Gi"));

  const Workload& daemon = manifest.workloads[3];
  EXPECT_EQ(daemon.kind, WorkloadKind::kDaemonSet);
  EXPECT_EQ(daemon.template_.spec.tolerations.size(), 1u);
  EXPECT_EQ(daemon.template_.spec.containers.at(0).requests.memory(), Q("200Mi"));
}

struct JobCase {
  std::string spec;
  int32_t replicas;
};

class DecodeJobTest : public testing::TestWithParam<JobCase> {};

TEST_P(DecodeJobTest, ReplicasAreParallelismCappedByCompletions) {
  const std::string text = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: batch}\nspec:\n" +
                           GetParam().spec + "\n  template: {spec: {containers: [{name: work}]}}\n";
  const Manifest manifest = DecodeClean(text);
  ASSERT_EQ(manifest.workloads.size(), 1u);
  EXPECT_EQ(manifest.workloads[0].kind, WorkloadKind::kJob);
  EXPECT_EQ(manifest.workloads[0].replicas, GetParam().replicas);
}

INSTANTIATE_TEST_SUITE_P(Jobs, DecodeJobTest,
                         testing::Values(JobCase{"  backoffLimit: 2", 1},
                                         JobCase{"  parallelism: 5", 5},
                                         JobCase{"  parallelism: 5\n  completions: 3", 3},
                                         JobCase{"  completions: 10", 1},
                                         JobCase{"  parallelism: 0\n  completions: 4", 0},
                                         JobCase{"  parallelism: 5\n  completions: 2000000", 5}),
                         ::karpenter::ReadableParamName());

TEST(DecodePdbTest, IntOrStringFields) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db}
spec:
  maxUnavailable: 25%
)");
  ASSERT_EQ(manifest.pdbs.size(), 2u);
  EXPECT_EQ(manifest.pdbs[0].min_available, "2");
  EXPECT_EQ(manifest.pdbs[0].max_unavailable, "");
  ASSERT_TRUE(manifest.pdbs[0].selector.has_value());
  EXPECT_EQ(manifest.pdbs[1].max_unavailable, "25%");
  EXPECT_EQ(manifest.pdbs[1].metadata.namespace_, "default");
  EXPECT_FALSE(manifest.pdbs[1].selector.has_value());
}

TEST(DecodeStorageTest, VolumesClaimsAndClasses) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  storageClassName: gp3
  claimRef: {namespace: shop, name: data-db-0}
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: topology.kubernetes.io/zone, operator: In, values: [us-west-2b]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-db-0, namespace: shop}
spec:
  volumeName: pv-1
  resources: {requests: {storage: 10Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: no-class}
spec:
  storageClassName: ""
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
  - matchLabelExpressions:
      - key: topology.kubernetes.io/zone
        values: [us-west-2a, us-west-2b]
)");
  ASSERT_EQ(manifest.persistent_volumes.size(), 1u);
  const PersistentVolume& volume = manifest.persistent_volumes[0];
  EXPECT_EQ(volume.storage_class_name, "gp3");
  EXPECT_EQ(volume.claim_namespace, "shop");
  EXPECT_EQ(volume.claim_name, "data-db-0");
  ASSERT_EQ(volume.node_affinity.size(), 1u);
  EXPECT_THAT(volume.node_affinity[0].match_expressions[0].values, ElementsAre("us-west-2b"));

  ASSERT_EQ(manifest.persistent_volume_claims.size(), 2u);
  const PersistentVolumeClaim& bound = manifest.persistent_volume_claims[0];
  EXPECT_EQ(bound.storage_class_name, std::nullopt);
  EXPECT_EQ(bound.volume_name, "pv-1");
  EXPECT_EQ(bound.requests.Get("storage"), Q("10Gi"));
  EXPECT_EQ(manifest.persistent_volume_claims[1].storage_class_name, "");
  EXPECT_EQ(manifest.persistent_volume_claims[1].metadata.namespace_, "default");

  ASSERT_EQ(manifest.storage_classes.size(), 1u);
  const StorageClass& storage_class = manifest.storage_classes[0];
  EXPECT_EQ(storage_class.provisioner, "ebs.csi.aws.com");
  EXPECT_EQ(storage_class.volume_binding_mode, "WaitForFirstConsumer");
  EXPECT_TRUE(storage_class.is_default);
  ASSERT_EQ(storage_class.allowed_topologies.size(), 1u);
  const NodeSelectorRequirement& zone = storage_class.allowed_topologies[0].match_expressions[0];
  EXPECT_EQ(zone.op, NodeSelectorOperator::kIn);
  EXPECT_THAT(zone.values, ElementsAre("us-west-2a", "us-west-2b"));
}

constexpr std::string_view kMinimalPool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: [2]}
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)";

TEST(DecodeNodePoolTest, AppliesDefaults) {
  const Manifest manifest = DecodeClean(kMinimalPool);
  ASSERT_EQ(manifest.node_pools.size(), 1u);
  const NodePool& pool = manifest.node_pools[0];
  EXPECT_EQ(pool.spec.template_.spec.expire_after, kDefaultExpireAfter);
  EXPECT_EQ(pool.spec.template_.spec.expire_after->value(), std::chrono::hours(720));
  EXPECT_EQ(pool.spec.disruption.consolidation_policy,
            ConsolidationPolicy::kWhenEmptyOrUnderutilized);
  EXPECT_EQ(pool.spec.disruption.consolidate_after, Duration());
  ASSERT_EQ(pool.spec.disruption.budgets.size(), 1u);
  EXPECT_EQ(pool.spec.disruption.budgets[0].nodes, "10%");
  EXPECT_TRUE(pool.spec.limited_resources.empty());
  EXPECT_FALSE(pool.spec.weight.has_value());
  EXPECT_THAT(pool.spec.template_.spec.requirements[0].values, ElementsAre("2"));
}

TEST(DecodeNodePoolTest, DecodesEveryField) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: full}
spec:
  weight: 10
  limits: {cpu: 1000, memory: 1000Gi}
  template:
    metadata:
      labels: {team: a}
      annotations: {note: x}
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: Exists, minValues: 3}
      taints: [{key: a, value: b, effect: NoExecute}]
      startupTaints: [{key: c, effect: PreferNoSchedule}]
      expireAfter: Never
      terminationGracePeriod: 1h30m
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 90s
    budgets:
      - {nodes: "0", schedule: "0 0 * * *", duration: 2h, reasons: [Drifted, Empty]}
status:
  nodes: 4
  resources: {cpu: "16"}
  conditions: [{type: Ready, status: "True", reason: Ready, message: ok, observedGeneration: 2}]
)");
  ASSERT_EQ(manifest.node_pools.size(), 1u);
  const NodePool& pool = manifest.node_pools[0];
  EXPECT_EQ(pool.spec.weight, 10);
  EXPECT_EQ(pool.spec.limited_resources, (std::vector<std::string>{"cpu", "memory"}));
  EXPECT_EQ(pool.spec.limits.cpu(), Q("1000"));
  EXPECT_EQ(pool.spec.template_.metadata.labels.at("team"), "a");
  EXPECT_EQ(pool.spec.template_.metadata.annotations.at("note"), "x");
  const NodeClaimSpec& spec = pool.spec.template_.spec;
  EXPECT_EQ(spec.requirements[0].min_values, 3);
  EXPECT_EQ(spec.taints, (std::vector<Taint>{{"a", "b", TaintEffect::kNoExecute}}));
  EXPECT_EQ(spec.startup_taints, (std::vector<Taint>{{"c", "", TaintEffect::kPreferNoSchedule}}));
  ASSERT_TRUE(spec.expire_after.has_value());
  EXPECT_TRUE(spec.expire_after->never());
  EXPECT_EQ(spec.termination_grace_period->value(), std::chrono::minutes(90));
  EXPECT_EQ(spec.node_class_ref,
            (NodeClassReference{"karpenter.k8s.aws", "EC2NodeClass", "default"}));
  EXPECT_EQ(pool.spec.disruption.consolidation_policy, ConsolidationPolicy::kWhenEmpty);
  EXPECT_EQ(pool.spec.disruption.consolidate_after.value(), std::chrono::seconds(90));
  ASSERT_EQ(pool.spec.disruption.budgets.size(), 1u);
  const Budget& budget = pool.spec.disruption.budgets[0];
  EXPECT_EQ(budget.nodes, "0");
  EXPECT_EQ(budget.schedule, "0 0 * * *");
  EXPECT_EQ(budget.duration->value(), std::chrono::hours(2));
  EXPECT_THAT(budget.reasons, ElementsAre(DisruptionReason::kDrifted, DisruptionReason::kEmpty));
  EXPECT_EQ(pool.status.nodes, 4);
  EXPECT_EQ(pool.status.resources.cpu(), Q("16"));
  ASSERT_EQ(pool.status.conditions.size(), 1u);
  EXPECT_EQ(pool.status.conditions[0].observed_generation, 2);
}

TEST(DecodeNodeClaimTest, DecodesSpecAndStatus) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: default-abcde, labels: {karpenter.sh/nodepool: default}}
spec:
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}]
  resources: {requests: {cpu: 1, pods: 3}}
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
status:
  providerID: aws:///us-west-2a/i-1
  imageID: ami-1
  nodeName: node-1
  capacity: {cpu: "2"}
  allocatable: {cpu: 1900m}
  lastPodEventTime: "2024-01-01T00:00:00Z"
  conditions: [{type: Launched, status: "True"}]
)");
  ASSERT_EQ(manifest.node_claims.size(), 1u);
  const NodeClaim& claim = manifest.node_claims[0];
  EXPECT_EQ(claim.spec.resource_requests.cpu(), Q("1"));
  EXPECT_EQ(claim.spec.resource_requests.pods(), Q("3"));
  EXPECT_EQ(claim.spec.expire_after, kDefaultExpireAfter);
  EXPECT_EQ(claim.status.provider_id, "aws:///us-west-2a/i-1");
  EXPECT_EQ(claim.status.image_id, "ami-1");
  EXPECT_EQ(claim.status.node_name, "node-1");
  EXPECT_EQ(claim.status.allocatable.cpu(), Q("1900m"));
  EXPECT_EQ(claim.status.last_pod_event_time, "2024-01-01T00:00:00Z");
  EXPECT_EQ(claim.status.conditions.at(0).type, "Launched");
}

TEST(DecodeEC2NodeClassTest, DecodesSpecStatusAndDefaults) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-${CLUSTER_NAME}
  amiSelectorTerms: [{alias: al2023@v20240807}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: "${CLUSTER_NAME}"}}, {id: subnet-0abc}]
  securityGroupSelectorTerms: [{name: nodes}]
  tags: {team: "${TEAM}"}
  kubelet: {maxPods: 20, cpuCFSQuota: false, clusterDNS: [10.0.0.10], systemReserved: {cpu: 1}}
  blockDeviceMappings:
    - {deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 1Ti, volumeType: gp3, iops: 3000}}
  metadataOptions: {httpPutResponseHopLimit: 2}
  associatePublicIPAddress: true
status:
  instanceProfile: profile-1
  subnets: [{id: subnet-0abc, zone: us-west-2a, zoneID: usw2-az1}]
  securityGroups: [{id: sg-1, name: nodes}]
  amis:
    - id: ami-1
      name: al2023
      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
)");
  ASSERT_EQ(manifest.node_classes.size(), 1u);
  const EC2NodeClass& node_class = manifest.node_classes[0];
  const EC2NodeClassSpec& spec = node_class.spec;
  EXPECT_EQ(spec.role, "KarpenterNodeRole-${CLUSTER_NAME}");
  EXPECT_EQ(spec.ami_selector_terms.at(0).alias, "al2023@v20240807");
  EXPECT_EQ(node_class.EffectiveAmiFamily(), "AL2023");
  EXPECT_EQ(spec.subnet_selector_terms.at(0).tags.at("karpenter.sh/discovery"), "${CLUSTER_NAME}");
  EXPECT_EQ(spec.subnet_selector_terms.at(1).id, "subnet-0abc");
  EXPECT_EQ(spec.security_group_selector_terms.at(0).name, "nodes");
  ASSERT_TRUE(spec.kubelet.has_value());
  EXPECT_EQ(spec.kubelet->max_pods, 20);
  EXPECT_EQ(spec.kubelet->cpu_cfs_quota, false);
  EXPECT_THAT(spec.kubelet->cluster_dns, ElementsAre("10.0.0.10"));
  EXPECT_EQ(spec.kubelet->system_reserved.at("cpu"), "1");
  ASSERT_EQ(spec.block_device_mappings.size(), 1u);
  const BlockDeviceMapping& root = spec.block_device_mappings[0];
  EXPECT_TRUE(root.root_volume);
  ASSERT_TRUE(root.ebs.has_value());
  EXPECT_EQ(root.ebs->volume_size, Q("1Ti"));
  EXPECT_EQ(root.ebs->iops, 3000);
  EXPECT_EQ(spec.associate_public_ip_address, true);
  EXPECT_EQ(spec.detailed_monitoring, std::nullopt);
  // Unset metadata options keep their defaults.
  EXPECT_EQ(spec.metadata_options.http_endpoint, "enabled");
  EXPECT_EQ(spec.metadata_options.http_protocol_ipv6, "disabled");
  EXPECT_EQ(spec.metadata_options.http_put_response_hop_limit, 2);
  EXPECT_EQ(spec.metadata_options.http_tokens, "required");
  EXPECT_EQ(node_class.status.instance_profile, "profile-1");
  ASSERT_EQ(node_class.status.subnets.size(), 1u);
  EXPECT_EQ(node_class.status.subnets[0].zone_id, "usw2-az1");
  EXPECT_EQ(node_class.status.security_groups.at(0).name, "nodes");
  EXPECT_EQ(node_class.status.amis.at(0).requirements.at(0).key, "kubernetes.io/arch");
}

TEST(DecodeManifestTest, ScalarsFollowTheCoreSchema) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: v1
kind: Pod
metadata:
  name: scalars
  labels:
    plain-bool: true
    quoted-bool: "false"
    version: 1.10
    quoted-version: "1.10"
    octal-looking: 0755
    hex: 0x1F
    word: yes
    tilde: ~
spec:
  containers:
    - name: app
      resources: {requests: {cpu: 0.5, memory: 1e3}}
)");
  ASSERT_EQ(manifest.pods.size(), 1u);
  const Labels& labels = manifest.pods[0].metadata.labels;
  EXPECT_EQ(labels.at("plain-bool"), "true");
  EXPECT_EQ(labels.at("quoted-bool"), "false");
  EXPECT_EQ(labels.at("version"), "1.1");
  EXPECT_EQ(labels.at("quoted-version"), "1.10");
  EXPECT_EQ(labels.at("octal-looking"), "755");
  EXPECT_EQ(labels.at("hex"), "31");
  EXPECT_EQ(labels.at("word"), "yes");
  EXPECT_FALSE(labels.contains("tilde"));  // null: unset
  EXPECT_EQ(manifest.pods[0].spec.containers[0].requests.cpu(), Q("500m"));
  EXPECT_EQ(manifest.pods[0].spec.containers[0].requests.memory(), Q("1000"));
}

TEST(DecodeManifestTest, MultiDocumentYaml) {
  const DecodeOutcome outcome = DecodeManifest(R"(# leading comment
---
apiVersion: v1
kind: Pod
metadata: {name: a}
---
# an empty document
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: other}
...
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: other}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
---
apiVersion: example.com/v1
kind: NodePool
metadata: {name: lookalike}
)",
                                               "multi.yaml");
  EXPECT_THAT(outcome.errors, IsEmpty());
  ASSERT_EQ(outcome.manifest.pods.size(), 2u);
  EXPECT_EQ(outcome.manifest.pods[0].metadata.name, "a");
  EXPECT_EQ(outcome.manifest.pods[1].metadata.namespace_, "other");
  EXPECT_THAT(outcome.manifest.ignored,
              ElementsAre("ConfigMap/other/settings", "ClusterRole/reader", "NodePool/lookalike"));
  EXPECT_THAT(outcome.manifest.node_pools, IsEmpty());
}

TEST(DecodeManifestTest, JsonObjectArrayAndList) {
  const Manifest object = DecodeClean(
      R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo"},
          "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": 2}}}]}})");
  ASSERT_EQ(object.pods.size(), 1u);
  EXPECT_EQ(object.pods[0].spec.containers[0].requests.cpu(), Q("2"));

  const Manifest array = DecodeClean(R"([
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
  ])");
  EXPECT_EQ(array.pods.size(), 1u);
  EXPECT_EQ(array.nodes.size(), 1u);

  // A typed list as the API returns it: items without kind and apiVersion.
  const Manifest list = DecodeClean(R"({"apiVersion": "v1", "kind": "PodList", "items": [
    {"metadata": {"name": "a", "namespace": "x"}}, {"metadata": {"name": "b"}}]})");
  ASSERT_EQ(list.pods.size(), 2u);
  EXPECT_EQ(list.pods[0].metadata.namespace_, "x");
}

TEST(DecodeManifestTest, YamlList) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Node
    metadata: {name: n1}
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: d}
    spec: {template: {spec: {containers: [{name: c}]}}}
)");
  EXPECT_EQ(manifest.nodes.size(), 1u);
  EXPECT_EQ(manifest.workloads.size(), 1u);
}

TEST(DecodeManifestTest, FlowStyleYamlThatIsNotJson) {
  const Manifest manifest = DecodeClean("{apiVersion: v1, kind: Node, metadata: {name: n1}}");
  EXPECT_EQ(manifest.nodes.size(), 1u);
}

TEST(DecodeManifestTest, UnknownFieldsAreIgnored) {
  const Manifest manifest = DecodeClean(R"(
apiVersion: v1
kind: Pod
metadata: {name: a, managedFields: [{manager: kubectl}]}
spec:
  dnsPolicy: ClusterFirst
  containers: [{name: c, image: nginx, env: [{name: A, value: b}]}]
surprise: {anything: [1, 2, 3]}
)");
  EXPECT_EQ(manifest.pods.size(), 1u);
}

TEST(DecodeManifestTest, ErrorsNameFileObjectAndField) {
  const DecodeOutcome outcome = DecodeManifest(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
        - {key: a.example.com/x, operator: In, values: [a]}
        - {key: b.example.com/x, operator: Exists}
        - {key: c.example.com/x, operator: Gtt, values: [1]}
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  priority: high
  containers:
    - name: app
      resources: {requests: {cpu: lots}}
      ports: [{containerPort: 70000}]
  tolerations: [{key: a, effect: Sometimes}]
---
apiVersion: v1
kind: Pod
metadata: {name: fine}
)",
                                               "pools.yaml");
  EXPECT_THAT(
      outcome.errors,
      ElementsAre(
          R"(pools.yaml: NodePool/default: spec.template.spec.requirements[2].operator: unknown operator "Gtt")",
          R"(pools.yaml: Pod/shop/web: spec.containers[0].resources.requests[cpu]: invalid quantity "lots": )" +
              Quantity::Parse("lots").error().message,
          "pools.yaml: Pod/shop/web: spec.containers[0].ports[0].containerPort: 70000 is out of "
          "range [1, 65535]",
          R"(pools.yaml: Pod/shop/web: spec.tolerations[0].effect: unknown effect "Sometimes")",
          "pools.yaml: Pod/shop/web: spec.priority: expected an integer, got a string"));
  // Objects with problems are left out; the others are kept.
  EXPECT_THAT(outcome.manifest.node_pools, IsEmpty());
  ASSERT_EQ(outcome.manifest.pods.size(), 1u);
  EXPECT_EQ(outcome.manifest.pods[0].metadata.name, "fine");
}

// The API server refuses labels that are not labels; so do we, naming the field, and a key that
// is not even UTF-8 is shown byte by byte.
TEST(DecodeManifestTest, LabelsAreCheckedAsTheApiServerChecksThem) {
  const DecodeOutcome outcome = DecodeManifest(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {\"caf\xc3\xa9\xff\": x}\n"
      "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n  labels: {app: \"-web\"}\n"
      "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: c}\nspec:\n"
      "  selector: {matchLabels: {\"a b\": x}}\n"
      "  template: {spec: {nodeSelector: {\"example.com/\": x}, containers: [{name: c}]}}\n"
      "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: fine\n"
      "  labels: {example.com/app: web, empty: \"\"}\n",
      "labels.yaml");
  EXPECT_THAT(
      outcome.errors,
      ElementsAre(
          R"(labels.yaml: Pod/default/a: metadata.labels[caf\xc3\xa9\xff]: invalid label key )"
          R"("caf\xc3\xa9\xff": must be a qualified name such as "example.com/name")",
          R"(labels.yaml: Pod/default/b: metadata.labels[app]: invalid label value "-web": at )"
          "most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric",
          R"(labels.yaml: Deployment/default/c: spec.selector.matchLabels[a b]: invalid label )"
          R"(key "a b": must be a qualified name such as "example.com/name")",
          R"(labels.yaml: Deployment/default/c: spec.template.spec.nodeSelector[example.com/]: )"
          R"(invalid label key "example.com/": must be a qualified name such as )"
          R"("example.com/name")"));
  ASSERT_EQ(outcome.manifest.pods.size(), 1u);
  EXPECT_EQ(outcome.manifest.pods[0].metadata.labels.size(), 2u);
}

// Plans and simulations model every pod: a workload of more than they can is refused, by name.
TEST(DecodeManifestTest, ReplicasBeyondWhatIsModelledAreRefused) {
  const DecodeOutcome outcome = DecodeManifest(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: huge}
spec: {replicas: 100000000, template: {spec: {containers: [{name: c}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: wide}
spec: {parallelism: 100001, template: {spec: {containers: [{name: c}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: big}
spec: {replicas: 100000, template: {spec: {containers: [{name: c}]}}}
)",
                                               "huge.yaml");
  EXPECT_THAT(outcome.errors,
              ElementsAre("huge.yaml: Deployment/default/huge: spec.replicas: 100000000 replicas "
                          "are more than karpenter models (at most 100000 per workload)",
                          "huge.yaml: Job/default/wide: spec.parallelism: 100001 replicas are "
                          "more than karpenter models (at most 100000 per workload)"));
  ASSERT_EQ(outcome.manifest.workloads.size(), 1u);
  EXPECT_EQ(outcome.manifest.workloads[0].replicas, 100000);
}

TEST(DecodeManifestTest, DocumentLevelErrors) {
  const DecodeOutcome outcome = DecodeManifest(R"(apiVersion: v1
kind: Pod
metadata: {name: a}
---
- just
- a list
---
apiVersion: v1
metadata: {name: kindless}
---
kind: Pod
metadata: {name: versionless}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: old}
---
apiVersion: v1
kind: Pod
metadata: {namespace: x}
)",
                                               "docs.yaml");
  EXPECT_THAT(outcome.errors,
              ElementsAre("docs.yaml:5: expected an object (a Kubernetes resource)",
                          "docs.yaml:8: kind: required",
                          "docs.yaml: Pod/default/versionless: apiVersion: required",
                          "docs.yaml: PodDisruptionBudget/default/old: apiVersion: unsupported "
                          "version \"policy/v1beta1\" (want policy/v1)",
                          "docs.yaml: Pod at line 18: metadata.name: required"));
  EXPECT_EQ(outcome.manifest.pods.size(), 1u);
}

TEST(DecodeManifestTest, SyntaxErrorsNameSourceAndLine) {
  const DecodeOutcome yaml =
      DecodeManifest("apiVersion: v1\nkind: Pod\nmetadata:\n  name: [a\n", "bad.yaml");
  ASSERT_EQ(yaml.errors.size(), 1u);
  EXPECT_THAT(yaml.errors[0], testing::StartsWith("bad.yaml:"));
  EXPECT_THAT(yaml.errors[0], HasSubstr("YAML syntax error"));

  const DecodeOutcome json =
      DecodeManifest("{\n  \"kind\": \"Pod\",\n  \"metadata\": }\n", "bad.json");
  ASSERT_EQ(json.errors.size(), 1u);
  EXPECT_THAT(json.errors[0], testing::StartsWith("bad.json:3:"));
  EXPECT_THAT(json.errors[0], HasSubstr("JSON syntax error"));

  const DecodeOutcome duplicate = DecodeManifest("kind: Pod\nkind: Node\n", "dup.yaml");
  EXPECT_THAT(duplicate.errors, ElementsAre(R"(dup.yaml:2:1: duplicate key "kind")"));
}

TEST(DecodeManifestTest, WrongTypesAreReportedNotThrown) {
  const DecodeOutcome outcome = DecodeManifest(R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: types, labels: [a, b]}
spec:
  role: {not: a string}
  amiSelectorTerms: {alias: al2023@latest}
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
  kubelet: {maxPods: 1.5, cpuCFSQuota: "true"}
  metadataOptions: {httpPutResponseHopLimit: 99999999999}
)",
                                               "types.yaml");
  EXPECT_THAT(
      outcome.errors,
      ElementsAre(
          "types.yaml: EC2NodeClass/types: metadata.labels: expected an object, got a list",
          "types.yaml: EC2NodeClass/types: spec.amiSelectorTerms: expected a list, got an object",
          "types.yaml: EC2NodeClass/types: spec.role: expected a string, got an object",
          "types.yaml: EC2NodeClass/types: spec.kubelet.maxPods: expected an integer, got a number",
          "types.yaml: EC2NodeClass/types: spec.kubelet.cpuCFSQuota: expected a boolean, got a "
          "string",
          "types.yaml: EC2NodeClass/types: spec.metadataOptions.httpPutResponseHopLimit: "
          "99999999999 is out of range [-2147483648, 2147483647]"));
  EXPECT_THAT(outcome.manifest.node_classes, IsEmpty());
}

TEST(DecodeManifestTest, LoadManifestFileReportsUnreadableFiles) {
  const DecodeOutcome outcome = LoadManifestFile("/nonexistent/pools.yaml");
  ASSERT_EQ(outcome.errors.size(), 1u);
  EXPECT_THAT(outcome.errors[0], testing::StartsWith("/nonexistent/pools.yaml: cannot read:"));
}

TEST(DecodeManifestTest, LoadManifestFileUsesThePathAsSource) {
  const DecodeOutcome outcome = LoadManifestFile(
      std::string(KARPENTER_TESTDATA) + "/validation/invalid/nodepool-unknown-operator.yaml");
  ASSERT_EQ(outcome.errors.size(), 1u);
  EXPECT_THAT(outcome.errors[0], HasSubstr("nodepool-unknown-operator.yaml: NodePool/broken: "));
}

TEST(ManifestTest, AppendMovesEverything) {
  Manifest a = DecodeClean(kPod);
  Manifest b = DecodeClean(kMinimalPool);
  b.ignored.push_back("ConfigMap/x/y");
  a.Append(std::move(b));
  EXPECT_EQ(a.pods.size(), 1u);
  EXPECT_EQ(a.node_pools.size(), 1u);
  EXPECT_THAT(a.ignored, ElementsAre("ConfigMap/x/y"));
  EXPECT_TRUE(b.node_pools.empty());  // NOLINT(bugprone-use-after-move): Append empties it.
}

}  // namespace
}  // namespace karpenter::api
