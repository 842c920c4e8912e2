#pragma once
// The IAM calls the AWS provider makes: the instance profiles it creates for EC2NodeClasses that
// name a role (get, create with tags, attach and detach the role, tag, delete); and the role reads
// of `karpenter migrate`. IAM speaks the Query protocol; its errors carry IAM's code as the reason
// ("NoSuchEntity", "EntityAlreadyExists", "DeleteConflict", "LimitExceeded", …).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aws/sdk/service_client.h"
#include "common/result.h"

namespace karpenter::aws {

using IamTags = std::map<std::string, std::string>;

struct IamRole {
  std::string name;
  std::string arn;
  std::string path;
  std::string role_id;
};

struct InstanceProfile {
  std::string name;
  std::string id;  // "AIPA…"
  std::string arn;
  std::string path;  // "/" by default
  std::vector<IamRole> roles;
  IamTags tags;
};

// Not thread-safe, as its ServiceClient is not.
class IamApi {
 public:
  // `client` is the iam ServiceClient (AwsClients::iam()) and must outlive this.
  explicit IamApi(ServiceClient& client) : client_(client) {}

  // The role called `name`; nullopt when IAM has none (NoSuchEntity).
  Result<std::optional<IamRole>> GetRole(const std::string& name);
  // The profile called `name` with its roles and tags; nullopt when IAM has none (NoSuchEntity).
  Result<std::optional<InstanceProfile>> GetInstanceProfile(const std::string& name);
  // `path` empty means "/". An existing profile of that name is an Error with reason
  // "EntityAlreadyExists".
  Result<InstanceProfile> CreateInstanceProfile(const std::string& name, const std::string& path,
                                                const IamTags& tags);
  Status AddRoleToInstanceProfile(const std::string& profile, const std::string& role);
  Status RemoveRoleFromInstanceProfile(const std::string& profile, const std::string& role);
  // IAM refuses (reason "DeleteConflict") while a role is still attached.
  Status DeleteInstanceProfile(const std::string& name);
  // Adds or overwrites `tags` on the profile.
  Status TagInstanceProfile(const std::string& name, const IamTags& tags);

 private:
  ServiceClient& client_;
};

}  // namespace karpenter::aws
