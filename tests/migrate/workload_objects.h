#pragma once
// Deployments as the migration tests need them: pause pods selected by app=<name>, with a pod spec
// and labels of the test's choosing, and requests where the test needs the pods to take room.

#include <string_view>

#include "kube/object.h"

namespace karpenter::migrate::testing {

inline kube::Object Deployment(std::string_view namespace_, std::string_view name, int replicas,
                               kube::Object pod_spec = kube::Object::object(),
                               kube::Object labels = kube::Object::object()) {
  pod_spec["containers"] = {{{"name", "main"}, {"image", "registry.k8s.io/pause:3.10"}}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", namespace_}, {"labels", std::move(labels)}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", name}}}}},
            {"template", {{"metadata", {{"labels", {{"app", name}}}}}, {"spec", pod_spec}}}}}};
}

// `deployment` with its container requesting `cpu` and `memory`.
inline kube::Object Requesting(kube::Object deployment, std::string_view cpu,
                               std::string_view memory) {
  deployment["spec"]["template"]["spec"]["containers"][0]["resources"] = {
      {"requests", {{"cpu", cpu}, {"memory", memory}}}};
  return deployment;
}

}  // namespace karpenter::migrate::testing
