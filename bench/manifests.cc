#include "manifests.h"

#include <fmt/format.h>

namespace karpenter::bench {

std::string ClusterYaml(std::string_view name, std::string_view disruption,
                        std::string_view capacity_type, std::string_view more_requirements) {
  return fmt::format(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: default}}
spec:
  template:
    spec:
      requirements:
        - {{key: kubernetes.io/arch, operator: In, values: [amd64]}}
        - {{key: kubernetes.io/os, operator: In, values: [linux]}}
        - {{key: karpenter.sh/capacity-type, operator: In, values: [{2}]}}
{3}      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
  limits: {{cpu: 100000}}
  disruption: {{{1}}}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: default}}
spec:
  role: KarpenterNodeRole-{0}
  amiSelectorTerms: [{{alias: al2023@latest}}]
  subnetSelectorTerms: [{{tags: {{karpenter.sh/discovery: {0}}}}}]
  securityGroupSelectorTerms: [{{tags: {{karpenter.sh/discovery: {0}}}}}]
---
apiVersion: v1
kind: Namespace
metadata: {{name: {0}}}
)",
                     name, disruption, capacity_type, more_requirements);
}

std::string DeploymentYaml(std::string_view name, std::string_view namespace_, int replicas,
                           std::string_view cpu, std::string_view memory, std::string_view extra) {
  return fmt::format(R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {0}, namespace: {1}}}
spec:
  replicas: {2}
  selector: {{matchLabels: {{app: {0}}}}}
  template:
    metadata: {{labels: {{app: {0}}}}}
    spec:
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources: {{requests: {{cpu: "{3}", memory: "{4}"}}}}
{5})",
                     name, namespace_, replicas, cpu, memory, extra);
}

}  // namespace karpenter::bench
