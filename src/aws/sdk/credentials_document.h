#pragma once
// The JSON document in which the container credentials endpoint (ECS, EKS Pod Identity) and the
// instance metadata service hand out temporary credentials:
//   {"Code": "Success", "AccessKeyId": …, "SecretAccessKey": …, "Token": …, "Expiration": …}
// ("Code" only from IMDS).

#include <string_view>

#include "aws/sdk/credentials.h"
#include "common/result.h"

namespace karpenter::aws {

// `source` names the endpoint in errors. Errors never quote the body: it holds the secret.
Result<Credentials> ParseCredentialsDocument(std::string_view body, std::string_view source);

// The error a container endpoint answered with status `status`: its JSON {"code", "message"} when
// the body is that, else just the status. The code becomes the reason.
Error ParseCredentialsErrorDocument(int status, std::string_view body, std::string_view source);

}  // namespace karpenter::aws
