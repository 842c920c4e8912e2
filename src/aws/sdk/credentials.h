#pragma once
// AWS credentials: an access key pair, with a session token and an expiry when temporary.

#include <optional>
#include <string>

#include "common/clock.h"

namespace karpenter::aws {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;            // empty for long-term keys
  std::optional<TimePoint> expiration;  // set for temporary credentials
};

}  // namespace karpenter::aws
