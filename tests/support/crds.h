#pragma once
// Puts the project's CustomResourceDefinitions (deploy/crds/*.yaml) into the test cluster, for the
// integration tests that create NodePools, NodeClaims or EC2NodeClasses.

#include <string>
#include <vector>

#include "common/document.h"
#include "common/result.h"
#include "kube/client.h"

namespace karpenter::support {

// Creates each CRD of `source_dir`/deploy/crds, or replaces it when the cluster already has one of
// that name, and waits until the API server reports every one Established (and serving the new
// schema, when it replaced one). Safe to call again: unchanged CRDs are left as they are.
Status InstallCrds(kube::Client& client, const std::string& source_dir);

// Reads and parses a YAML or JSON file (a `kind: List` gives its items); errors name the file.
Result<std::vector<Document>> ReadDocuments(const std::string& path);

}  // namespace karpenter::support
