#pragma once
// Whether the objects of some informers asked for something new since a controller last looked:
// an object added, deleted, or given a new generation (a spec change) — status writes, the
// controllers' own included, are not changes. For controllers that re-read everything when their
// inputs change (NodeOverlays, CapacityBuffers).

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>

#include "common/mutex.h"
#include "kube/informer.h"

namespace karpenter::controllers {

class SpecChanges {
 public:
  // Registers a handler on each informer (before they start); they must outlive this, which must
  // not move.
  SpecChanges(std::initializer_list<kube::Informer*> informers);
  SpecChanges(const SpecChanges&) = delete;
  SpecChanges& operator=(const SpecChanges&) = delete;

  // True until Seen() after a change (and before the first Seen()).
  bool Changed() const {
    return changes_.load(std::memory_order_relaxed) != seen_.load(std::memory_order_relaxed);
  }
  // Everything up to now has been looked at: call as a pass begins.
  void Seen() { seen_.store(changes_.load(std::memory_order_relaxed), std::memory_order_relaxed); }

 private:
  void Notice(const kube::Resource& resource, kube::WatchEventType type, const kube::Object& object)
      EXCLUDES(mutex_);

  std::atomic<uint64_t> changes_{1};
  std::atomic<uint64_t> seen_{0};
  Mutex mutex_;
  // By "plural/namespace/name" (informer threads).
  std::map<std::string, int64_t, std::less<>> generations_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::controllers
