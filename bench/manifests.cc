#include "manifests.h"

#include <fmt/format.h>

namespace karpenter::bench {

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
