#pragma once
// Reads a whole file for the kubeconfig and credential loaders, with an error that names the
// file and the operating system's reason ("cannot read /x/k.pem: No such file or directory").

#include <string>

#include "common/result.h"

namespace karpenter::kube::http {

Result<std::string> ReadFile(const std::string& path);

}  // namespace karpenter::kube::http
