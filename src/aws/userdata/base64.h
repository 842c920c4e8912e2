#pragma once
// Base64 (RFC 4648, with padding) for user data: launch templates carry it encoded.

#include <string>
#include <string_view>

#include "common/result.h"

namespace karpenter::aws {

std::string EncodeBase64(std::string_view data);
// Whitespace is ignored; anything else outside the alphabet, or bad padding, is an Error.
Result<std::string> DecodeBase64(std::string_view text);

}  // namespace karpenter::aws
