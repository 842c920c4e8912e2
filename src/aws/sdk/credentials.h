#pragma once
// AWS credentials: an access key pair, with a session token and an expiry when temporary.

#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"

namespace karpenter::aws {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;            // empty for long-term keys
  std::optional<TimePoint> expiration;  // set for temporary credentials
};

// What messages and logs may show of credentials: the last four characters of the key ID
// ("****MPLE"), and whether and when they expire. Never the secret or the session token.
std::string RedactedKeyId(std::string_view access_key_id);
std::string Redacted(const Credentials& credentials);

}  // namespace karpenter::aws
