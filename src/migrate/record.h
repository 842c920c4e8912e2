#pragma once
// What `karpenter migrate apply` changed, kept in the ConfigMap karpenter-migration of the
// Karpenter namespace: written before each change (what was there, what it is about to create), so
// that an apply that stops anywhere resumes from it, and `karpenter migrate rollback` undoes
// exactly what the migration did and nothing else.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "kube/client.h"

namespace karpenter::migrate {

inline constexpr std::string_view kRecordName = "karpenter-migration";
// The label on what the migration creates in the cluster (NodePools, EC2NodeClasses, the record):
// rollback removes an object only when it carries it.
inline constexpr std::string_view kLabelManagedBy = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kManagedBy = "karpenter-migrate";

// A Deployment the migration changed, and the value it had before.
struct ChangedDeployment {
  std::string namespace_;
  std::string name;
  Json before;  // pinning: its pod template's affinity (null: none); scaling: its replicas
  bool operator==(const ChangedDeployment&) const = default;
};

struct NodeGroupSize {
  std::string name;
  int64_t min_size = 0;
  int64_t max_size = 0;
  int64_t desired_size = 0;
  bool operator==(const NodeGroupSize&) const = default;
};

struct CreatedObject {
  std::string kind;  // NodePool or EC2NodeClass
  std::string name;
  bool operator==(const CreatedObject&) const = default;
};

struct MigrationRecord {
  std::string cluster;
  // Step 2: the IAM roles the migration created (with their policies).
  std::vector<std::string> roles;
  // Step 3: the subnets and security groups that did not carry the discovery tag.
  std::vector<std::string> tagged;
  // Step 4: the node role's access entry, or its aws-auth mapRoles entry (and whether aws-auth
  // itself was created), when the migration added them.
  std::string access_entry;
  std::string aws_auth_role;
  bool aws_auth_created = false;
  std::string chart_release;               // step 5: the Helm release it installed
  std::vector<CreatedObject> created;      // step 6
  std::vector<ChangedDeployment> pinned;   // step 7, with their affinity before
  std::vector<ChangedDeployment> scaled;   // step 8: Cluster Autoscaler, with its replicas before
  std::vector<NodeGroupSize> node_groups;  // step 8: the node groups' scaling before

  // The ConfigMap's resourceVersion when read ("" for a record not stored yet).
  std::string resource_version;

  bool operator==(const MigrationRecord& other) const;
};

// The record of `namespace_`, or nullopt when there is none. Errors name the ConfigMap and what in
// it cannot be read.
Result<std::optional<MigrationRecord>> LoadRecord(kube::Client& client,
                                                  std::string_view namespace_);
// Creates or updates the ConfigMap (409 when it changed since `record` was read: another apply
// runs) and keeps the new resourceVersion in `record`.
Status SaveRecord(kube::Client& client, std::string_view namespace_, MigrationRecord& record);
// Deletes the ConfigMap (rollback --all, once everything it names is undone).
Status DeleteRecord(kube::Client& client, std::string_view namespace_);

}  // namespace karpenter::migrate
