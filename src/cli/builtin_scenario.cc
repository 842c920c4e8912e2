#include "cli/builtin_scenario.h"

#include <fmt/format.h>

#include <string_view>

#include "cli/builtin_example.h"

namespace karpenter::cli {
namespace {

// The application workloads: namespace, name, kind, replicas, CPU and memory per pod, and the
// PodDisruptionBudget (empty: none).
struct App {
  std::string_view namespace_;
  std::string_view name;
  std::string_view kind;
  int replicas;
  std::string_view cpu;
  std::string_view memory;
  std::string_view budget;  // "maxUnavailable: 1", "minAvailable: 50%", …
};

constexpr App kApps[] = {
    {"shop", "storefront", "Deployment", 6, "500m", "1Gi", "maxUnavailable: 1"},
    {"shop", "cart", "Deployment", 4, "500m", "768Mi", "maxUnavailable: 1"},
    {"shop", "checkout", "Deployment", 4, "750m", "1Gi", "minAvailable: 3"},
    {"shop", "catalog", "Deployment", 3, "1", "2Gi", "maxUnavailable: 1"},
    {"shop", "search", "Deployment", 3, "1500m", "3Gi", "maxUnavailable: 1"},
    {"shop", "recommendations", "Deployment", 2, "1", "2Gi", "maxUnavailable: 1"},
    {"shop", "images", "Deployment", 3, "250m", "512Mi", ""},
    {"shop", "sessions", "StatefulSet", 3, "500m", "2Gi", "maxUnavailable: 1"},
    {"payments", "gateway", "Deployment", 3, "500m", "1Gi", "minAvailable: 2"},
    {"payments", "ledger", "StatefulSet", 3, "1", "4Gi", "maxUnavailable: 1"},
    {"payments", "fraud", "Deployment", 2, "1500m", "3Gi", "maxUnavailable: 1"},
    {"payments", "notifier", "Deployment", 2, "250m", "256Mi", ""},
    {"accounts", "auth", "Deployment", 3, "500m", "512Mi", "minAvailable: 2"},
    {"accounts", "profile", "Deployment", 2, "250m", "512Mi", "maxUnavailable: 1"},
    {"accounts", "email", "Deployment", 2, "250m", "256Mi", ""},
    {"data", "kafka", "StatefulSet", 3, "1", "4Gi", "maxUnavailable: 1"},
    {"data", "zookeeper", "StatefulSet", 3, "250m", "1Gi", "maxUnavailable: 1"},
    {"data", "redis", "StatefulSet", 3, "500m", "2Gi", "maxUnavailable: 1"},
    {"data", "etl", "Deployment", 2, "1", "2Gi", ""},
    {"data", "reports", "Deployment", 1, "500m", "1Gi", ""},
    {"data", "scheduler", "Deployment", 1, "250m", "512Mi", ""},
    {"platform", "ingress-nginx", "Deployment", 3, "500m", "512Mi", "maxUnavailable: 1"},
    {"platform", "cert-manager", "Deployment", 1, "100m", "256Mi", ""},
    {"platform", "external-dns", "Deployment", 1, "100m", "128Mi", ""},
    {"platform", "prometheus", "StatefulSet", 2, "1", "4Gi", "maxUnavailable: 1"},
    {"platform", "grafana", "Deployment", 1, "250m", "512Mi", ""},
    {"platform", "alertmanager", "StatefulSet", 2, "100m", "256Mi", "maxUnavailable: 1"},
    {"platform", "loki", "StatefulSet", 2, "500m", "2Gi", "maxUnavailable: 1"},
    {"platform", "argocd-server", "Deployment", 2, "250m", "512Mi", "maxUnavailable: 1"},
    {"platform", "argocd-repo", "Deployment", 2, "500m", "1Gi", ""},
    {"ml", "feature-store", "Deployment", 2, "1", "4Gi", "maxUnavailable: 1"},
    {"ml", "inference", "Deployment", 4, "1500m", "3Gi", "minAvailable: 75%"},
    {"ml", "batch-scoring", "Job", 3, "1", "2Gi", ""},
    {"web", "blog", "Deployment", 2, "250m", "256Mi", ""},
    {"web", "docs", "Deployment", 2, "100m", "128Mi", ""},
    {"web", "status-page", "Deployment", 2, "100m", "128Mi", "minAvailable: 1"},
};

std::string AppManifest(const App& app) {
  const bool job = app.kind == "Job";
  std::string text = fmt::format(
      R"(---
apiVersion: {api}
kind: {kind}
metadata: {{name: {name}, namespace: {ns}}}
spec:
  {count}: {replicas}
{service}  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
{restart}      containers:
        - name: {name}
          image: registry.example.com/{ns}/{name}:1.0
          resources: {{requests: {{cpu: "{cpu}", memory: {memory}}}}}
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: ScheduleAnyway
          labelSelector: {{matchLabels: {{app: {name}}}}}
)",
      fmt::arg("api", job ? "batch/v1" : "apps/v1"), fmt::arg("kind", app.kind),
      fmt::arg("name", app.name), fmt::arg("ns", app.namespace_),
      fmt::arg("count", job ? "parallelism" : "replicas"), fmt::arg("replicas", app.replicas),
      fmt::arg("service",
               app.kind == "StatefulSet" ? fmt::format("  serviceName: {}\n", app.name) : ""),
      fmt::arg("restart", job ? "      restartPolicy: Never\n" : ""), fmt::arg("cpu", app.cpu),
      fmt::arg("memory", app.memory));
  if (!app.budget.empty()) {
    text.append(fmt::format(R"(---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {name}, namespace: {ns}}}
spec:
  {budget}
  selector: {{matchLabels: {{app: {name}}}}}
)",
                            fmt::arg("name", app.name), fmt::arg("ns", app.namespace_),
                            fmt::arg("budget", app.budget)));
  }
  return text;
}

// After the seed's NodePool and EC2NodeClass (builtin_example.h): the Karpenter controller pinned
// to the system node group (seed step 5), the critical add-ons pinned there too (step 7), and the
// node agents every node runs.
constexpr std::string_view kPlatform = R"(
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: karpenter, namespace: karpenter}
spec:
  replicas: 2
  selector: {matchLabels: {app.kubernetes.io/name: karpenter}}
  template:
    metadata: {labels: {app.kubernetes.io/name: karpenter}}
    spec:
      priorityClassName: system-cluster-critical
      containers:
        - name: controller
          image: karpenter-cpp/controller
          resources: {requests: {cpu: "1", memory: 1Gi}, limits: {cpu: "1", memory: 1Gi}}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: karpenter.sh/nodepool, operator: DoesNotExist}
                  - {key: eks.amazonaws.com/nodegroup, operator: In, values: [system]}
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: kubernetes.io/hostname
              labelSelector: {matchLabels: {app.kubernetes.io/name: karpenter}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: karpenter, namespace: karpenter}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app.kubernetes.io/name: karpenter}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: coredns, namespace: kube-system}
spec:
  replicas: 2
  selector: {matchLabels: {k8s-app: kube-dns}}
  template:
    metadata: {labels: {k8s-app: kube-dns}}
    spec:
      priorityClassName: system-cluster-critical
      containers:
        - name: coredns
          image: coredns
          resources: {requests: {cpu: 100m, memory: 70Mi}}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: eks.amazonaws.com/nodegroup, operator: In, values: [system]}
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: kubernetes.io/hostname
              labelSelector: {matchLabels: {k8s-app: kube-dns}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: coredns, namespace: kube-system}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {k8s-app: kube-dns}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: metrics-server, namespace: kube-system}
spec:
  replicas: 1
  selector: {matchLabels: {k8s-app: metrics-server}}
  template:
    metadata: {labels: {k8s-app: metrics-server}}
    spec:
      priorityClassName: system-cluster-critical
      containers:
        - name: metrics-server
          image: metrics-server
          resources: {requests: {cpu: 100m, memory: 200Mi}}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: eks.amazonaws.com/nodegroup, operator: In, values: [system]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: aws-node, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: aws-node}}
  template:
    metadata: {labels: {k8s-app: aws-node}}
    spec:
      priorityClassName: system-node-critical
      tolerations: [{operator: Exists}]
      containers:
        - name: aws-node
          image: amazon-k8s-cni
          resources: {requests: {cpu: 25m}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: kube-proxy, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: kube-proxy}}
  template:
    metadata: {labels: {k8s-app: kube-proxy}}
    spec:
      priorityClassName: system-node-critical
      tolerations: [{operator: Exists}]
      containers:
        - name: kube-proxy
          image: kube-proxy
          resources: {requests: {cpu: 100m}}
)";

}  // namespace

std::string BuiltinScenarioManifests() {
  std::string text(SeedNodePoolManifests());
  text.append(kPlatform);
  for (const App& app : kApps) text.append(AppManifest(app));
  return text;
}

std::string BuiltinScenarioTimeline() {
  return R"yaml(# The seed guide's migration, steps 5 to 9.
nodeGroups:
  - {name: system, instanceType: m5.xlarge, size: 3, zones: [us-east-1a, us-east-1b, us-east-1c]}
  - {name: general, instanceType: m5.2xlarge, size: 6, zones: [us-east-1a, us-east-1b, us-east-1c]}
  - {name: compute, instanceType: m5.xlarge, size: 6, zones: [us-east-1a, us-east-1b, us-east-1c]}
actions:
  - {at: 0s, note: "Karpenter installed with the default NodePool and EC2NodeClass (steps 5-6)"}
  - {at: 0s, note: "Cluster Autoscaler scaled to 0 replicas (step 8)"}
  - {at: 1m, scaleNodeGroup: {name: compute, size: 0, batch: 2}}
  - {at: 1m, scaleNodeGroup: {name: general, size: 0, batch: 2}}
  - {at: 1m, scaleNodeGroup: {name: system, size: 2, batch: 1}}
)yaml";
}

}  // namespace karpenter::cli
