#pragma once
// The NodeClassResolver options for moto's seeded account (moto_fixture.h), shared by the tests
// that resolve node classes there.

#include <string>

#include "aws/nodeclass/node_class_resolver.h"
#include "common/json.h"

namespace karpenter::aws::testing {

// For `cluster`, in the seed's region, aliases resolving for the seed's Kubernetes version.
inline NodeClassResolver::Options SeededResolverOptions(const Json& seed,
                                                        const std::string& cluster) {
  return NodeClassResolver::Options{
      .cluster_name = cluster,
      .region = seed["region"].get<std::string>(),
      .kubernetes_version = [version = seed["kubernetes_version"].get<std::string>()] {
        return version;
      }};
}

}  // namespace karpenter::aws::testing
