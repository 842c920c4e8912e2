#include "aws/sdk/credentials.h"

namespace karpenter::aws {

std::string RedactedKeyId(std::string_view access_key_id) {
  // Short IDs are not real keys; showing four of five characters would show nearly all.
  constexpr size_t kShown = 4;
  if (access_key_id.size() <= 2 * kShown) return "****";
  return "****" + std::string(access_key_id.substr(access_key_id.size() - kShown));
}

std::string Redacted(const Credentials& credentials) {
  std::string text = "access key " + RedactedKeyId(credentials.access_key_id);
  if (credentials.expiration.has_value()) {
    text += " (expires " + FormatTime(*credentials.expiration) + ")";
  }
  return text;
}

}  // namespace karpenter::aws
