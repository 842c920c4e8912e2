#include "aws/sdk/imds_credentials.h"

#include <string>

#include "aws/sdk/credentials_document.h"

namespace karpenter::aws {

Result<Credentials> ImdsCredentialsProvider::Get() {
  constexpr std::string_view kRoles = "/latest/meta-data/iam/security-credentials/";
  Result<std::string> roles = client_.Get(kRoles);
  if (!roles.ok()) {
    if (roles.error().status == 404) {
      return Error{"no IAM role is attached to this instance", 404, std::string(kNotConfigured)};
    }
    return roles.error();
  }
  // One role per instance profile; the listing is that name on a line.
  const std::string role = roles->substr(0, roles->find_first_of("\r\n"));
  if (role.empty()) return Error{"IMDS listed no IAM role"};
  ASSIGN_OR_RETURN(std::string document, client_.Get(std::string(kRoles) + role));
  return ParseCredentialsDocument(document, "IMDS credentials of role " + role);
}

}  // namespace karpenter::aws
