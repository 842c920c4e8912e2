#pragma once
// A de-duplicating, delayed work queue of object keys: informer handlers add keys from their
// threads; the manager takes the keys that are due. A key added twice is kept once, at the
// earlier time.

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"

namespace karpenter::controllers {

class WorkQueue {
 public:
  void Add(const std::string& key, MonoTime when);
  // Removes and returns the keys due at `now`, earliest first (ties by key).
  std::vector<std::string> TakeDue(MonoTime now);
  std::optional<MonoTime> NextDue() const;
  size_t size() const;

 private:
  mutable Mutex mutex_;
  std::map<std::string, MonoTime, std::less<>> due_ GUARDED_BY(mutex_);  // key → when
  std::set<std::pair<MonoTime, std::string>> order_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::controllers
