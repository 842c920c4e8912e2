#pragma once
// A local cache of one resource, kept current by list + watch: the controller reads the cluster
// from informers, not from the API server. Handlers hear about every change after the cache has
// applied it; indexes answer "pods on node X" without a scan.
//
// Two ways to drive it: Run() on its own thread (production), or Sync() then Pump() from one
// thread (tests and `simulate`, deterministic). Reads (Get, ForEach, ByIndex) are thread-safe.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "common/result.h"
#include "kube/client.h"

namespace karpenter::kube {

class Informer {
 public:
  // `object` is the new state, or the last known state for kDeleted. Called without the cache
  // lock held, on the thread that pumps the informer.
  using Handler = std::function<void(WatchEventType type, const Object& object)>;
  // The index values of an object, e.g. {spec.nodeName} for "pods by node".
  using IndexFunc = std::function<std::vector<std::string>(const Object& object)>;

  Informer(Client& client, Resource resource, ListOptions options = {});
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Before Sync/Run only.
  void AddHandler(Handler handler);
  void AddIndex(std::string name, IndexFunc index);

  // Lists everything and replaces the cache (handlers hear adds, changes and deletions relative to
  // the previous cache), then opens a watch from the list's resourceVersion.
  Status Sync();
  // Applies the events that arrive within `timeout` (at least the ones already there) and returns
  // how many. Re-opens an ended watch from the last resourceVersion seen, and relists when it is
  // too old (410).
  Result<size_t> Pump(std::chrono::milliseconds timeout);
  // Sync, then Pump until `stop`, retrying failures with capped exponential backoff; each
  // failure is reported to `on_error` first.
  void Run(const std::stop_token& stop, const std::function<void(const Error&)>& on_error);

  bool synced() const;
  const Resource& resource() const { return resource_; }
  std::optional<Object> Get(std::string_view key) const;
  // Whether the object is in the cache (no copy).
  bool Contains(std::string_view key) const;
  // Calls fn on every cached object, in key order, under the cache lock: keep fn short and do
  // not call back into the informer.
  void ForEach(const std::function<void(const Object&)>& fn) const;
  std::vector<Object> ByIndex(std::string_view index, std::string_view value) const;
  // Calls fn once with the objects of the index value, in place: no copies, valid only during
  // the call (fn must not call back into this informer).
  void VisitIndexed(std::string_view index, std::string_view value,
                    const std::function<void(const std::vector<const Object*>&)>& fn) const;
  size_t size() const;

 private:
  void Apply(WatchEventType type, SharedObject object);
  void IndexLocked(const std::string& key, const Object& object, bool add) REQUIRES(mutex_);

  Client& client_;
  const Resource resource_;
  const ListOptions options_;
  std::vector<Handler> handlers_;
  std::map<std::string, IndexFunc, std::less<>> index_funcs_;

  mutable Mutex mutex_;
  // Shared with the client that delivered them (the in-memory API server keeps the same states).
  std::map<std::string, SharedObject, std::less<>> objects_ GUARDED_BY(mutex_);
  // index name → value → keys
  std::map<std::string, std::map<std::string, std::vector<std::string>, std::less<>>, std::less<>>
      indexes_ GUARDED_BY(mutex_);
  bool synced_ GUARDED_BY(mutex_) = false;

  std::string resource_version_;  // last seen; touched only by the pumping thread
  std::unique_ptr<Watch> watch_;
};

}  // namespace karpenter::kube
