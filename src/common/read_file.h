#pragma once
// Reads a whole file (kubeconfigs, AWS shared config, token files), with an error that names the
// file and the operating system's reason ("cannot read /x/k.pem: No such file or directory").

#include <string>

#include "common/result.h"

namespace karpenter {

Result<std::string> ReadFile(const std::string& path);

// The token in `path` without surrounding whitespace; an error (naming the file, never the
// token) when it cannot be read or is empty. Token files (service-account and web identity tokens)
// are rotated in place, so callers read them again rather than keep the text.
Result<std::string> ReadTokenFile(const std::string& path);

}  // namespace karpenter
