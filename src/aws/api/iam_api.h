#pragma once
// The IAM calls the AWS provider makes: the instance profiles it creates for EC2NodeClasses that
// name a role (get, create with tags, attach and detach the role, tag, delete); and the roles of
// `karpenter migrate` (read; created with their policies, and deleted on rollback). IAM speaks the
// Query protocol; its errors carry IAM's code as the reason
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
  IamTags tags;  // GetRole's and CreateRole's answers carry them; a profile's roles do not
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

  // An existing role of that name is an Error with reason "EntityAlreadyExists".
  Result<IamRole> CreateRole(const std::string& name, const std::string& trust_policy,
                             const IamTags& tags);
  // Both are no-ops for a policy the role already has.
  Status AttachRolePolicy(const std::string& role, const std::string& policy_arn);
  Status PutRolePolicy(const std::string& role, const std::string& policy_name,
                       const std::string& document);
  // The ARNs of the managed policies attached to the role, and the names of its inline policies
  // (every page).
  Result<std::vector<std::string>> ListAttachedRolePolicies(const std::string& role);
  Result<std::vector<std::string>> ListRolePolicies(const std::string& role);
  Status DetachRolePolicy(const std::string& role, const std::string& policy_arn);
  Status DeleteRolePolicy(const std::string& role, const std::string& policy_name);
  // IAM refuses (reason "DeleteConflict") while the role has policies or instance profiles.
  Status DeleteRole(const std::string& name);

 private:
  // The items of `list` in each page of `action`'s answer for `role` (their `field`, or their text
  // when `field` is empty).
  Result<std::vector<std::string>> ListOfRole(const std::string& action, const std::string& role,
                                              const std::string& list, const std::string& field);

  ServiceClient& client_;
};

}  // namespace karpenter::aws
