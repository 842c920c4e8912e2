#pragma once
// The Kubernetes API as controllers use it. Two implementations keep the same contract (one test
// suite runs against both): kube/http talks to a real API server, kube/memory is an in-process
// store with the API server's semantics for tests and `simulate`.
//
// Errors carry the API server's HTTP status and reason (Error::status / Error::reason): 404
// "NotFound", 409 "AlreadyExists" or "Conflict" (stale resourceVersion or failed precondition),
// 410 "Expired" (a watch or list resourceVersion too old: relist), 422 "Invalid", 429
// "TooManyRequests" (an eviction a PodDisruptionBudget does not allow now).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "kube/object.h"
#include "kube/resource.h"

namespace karpenter::kube {

struct ListOptions {
  std::string namespace_;      // empty: every namespace (and always for cluster-scoped kinds)
  std::string label_selector;  // "app=web,tier in (a,b),!legacy"
  std::string field_selector;  // "spec.nodeName=node-1", "metadata.name!=x"
  int64_t page_size = 500;     // List fetches every page; this is the size of one
};

struct ObjectList {
  std::vector<SharedObject> items;  // never null
  std::string resource_version;     // of the collection: where a watch continues from
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark };

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  SharedObject object;  // never null; for a bookmark, only metadata.resourceVersion is meaningful
};

struct WatchOptions {
  std::string namespace_;
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // events after this version; empty: from now
  bool allow_bookmarks = true;
};

// One open watch. Not thread-safe: one consumer calls Next.
class Watch {
 public:
  virtual ~Watch() = default;
  // Waits up to `timeout` (zero: does not wait) for the next event; nullopt when none arrived. An
  // Error ends the watch: status 410 means the resourceVersion is too old (relist); reason
  // "Closed" means the server ended the stream (watch again from the last version seen).
  virtual Result<std::optional<WatchEvent>> Next(std::chrono::milliseconds timeout) = 0;
};

enum class PatchType {
  kMerge,  // application/merge-patch+json (RFC 7386)
  kJson,   // application/json-patch+json (RFC 6902), e.g. with a "test" of resourceVersion
};

enum class Subresource { kNone, kStatus };

struct WriteOptions {
  bool dry_run = false;  // validate and default, store nothing
};

struct DeleteOptions {
  std::string precondition_uid;               // 409 when the object's uid differs
  std::string precondition_resource_version;  // 409 when the object changed since
  std::optional<int64_t> grace_period_seconds;
};

class Client {
 public:
  virtual ~Client() = default;

  virtual Result<Object> Get(const Resource& resource, std::string_view namespace_,
                             std::string_view name) = 0;
  virtual Result<ObjectList> List(const Resource& resource, const ListOptions& options) = 0;
  virtual Result<std::unique_ptr<Watch>> StartWatch(const Resource& resource,
                                                    const WatchOptions& options) = 0;

  // Creates `object` (its metadata.namespace names the namespace) and returns it as stored.
  virtual Result<Object> Create(const Resource& resource, const Object& object,
                                const WriteOptions& options) = 0;
  // Replaces the object (or, with kStatus, its status). metadata.resourceVersion must be the
  // stored one, else 409 Conflict.
  virtual Result<Object> Update(const Resource& resource, const Object& object,
                                Subresource subresource) = 0;
  virtual Result<Object> Patch(const Resource& resource, std::string_view namespace_,
                               std::string_view name, PatchType type, const Object& patch,
                               Subresource subresource) = 0;
  // Deletes, or marks for deletion when finalizers remain (the object then carries
  // metadata.deletionTimestamp until the last finalizer is removed).
  virtual Status Delete(const Resource& resource, std::string_view namespace_,
                        std::string_view name, const DeleteOptions& options) = 0;
  // Evicts a pod through policy/v1 Eviction, which honours PodDisruptionBudgets: 429 when a
  // budget does not allow it now.
  virtual Status Evict(std::string_view namespace_, std::string_view pod_name,
                       const DeleteOptions& options) = 0;
};

}  // namespace karpenter::kube
