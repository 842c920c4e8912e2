#include "cli/builtin_example.h"

#include <string>

namespace karpenter::cli {

std::string_view SeedNodePoolManifests() {
  return R"(# The seed guide's default NodePool and EC2NodeClass, for a cluster named "demo".
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: kubernetes.io/os, operator: In, values: [linux]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["2"]}
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 720h
  limits: {cpu: 1000}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
)";
}

std::string BuiltinPlanExample() {
  std::string text(SeedNodePoolManifests());
  text.append(R"(---
# A web front end spread across zones.
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx
          resources: {requests: {cpu: 500m, memory: 1Gi}}
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: DoNotSchedule
          labelSelector: {matchLabels: {app: web}}
---
# An API tier, one replica per node.
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 4
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api
          image: api
          resources: {requests: {cpu: "1", memory: 2Gi}}
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: kubernetes.io/hostname
              labelSelector: {matchLabels: {app: api}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: api, namespace: shop}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: api}}
---
# A memory-hungry cache.
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: cache, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      containers:
        - name: redis
          image: redis
          resources: {requests: {cpu: "2", memory: 12Gi}}
---
# A batch job.
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: batch}
spec:
  parallelism: 5
  completions: 10
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: report
          image: report
          resources: {requests: {cpu: 250m, memory: 512Mi}}
---
# An arm64-only tool the default NodePool cannot serve (amd64 only).
apiVersion: v1
kind: Pod
metadata: {name: arm-tool, namespace: tools}
spec:
  nodeSelector: {kubernetes.io/arch: arm64}
  containers:
    - name: tool
      image: tool
      resources: {requests: {cpu: 250m, memory: 256Mi}}
---
# A node agent on every node.
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-exporter, namespace: monitoring}
spec:
  selector: {matchLabels: {app: node-exporter}}
  template:
    metadata: {labels: {app: node-exporter}}
    spec:
      containers:
        - name: exporter
          image: node-exporter
          resources: {requests: {cpu: 100m, memory: 128Mi}}
)");
  return text;
}

}  // namespace karpenter::cli
