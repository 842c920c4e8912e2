#pragma once
// Base64 (RFC 4648, with padding): kubeconfig's *-data fields, EC2 user data, CA bundles.

#include <string>
#include <string_view>

#include "common/result.h"

namespace karpenter {

std::string EncodeBase64(std::string_view data);
// Whitespace is ignored; anything else outside the alphabet, or bad padding, is an Error.
Result<std::string> DecodeBase64(std::string_view text);

}  // namespace karpenter
