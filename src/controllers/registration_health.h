#pragma once
// What the NodeClaim lifecycle saw of each NodePool's launches, for its NodeRegistrationHealthy
// condition (docs/upstream-reference.md §17): the latest outcome — a NodeClaim registered, or one
// failed to launch or to register in time — kept until the NodePool status controller takes it.
// The lifecycle reports from its workers (LifecycleOptions::workers), so the outcomes are locked.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/mutex.h"

namespace karpenter::controllers {

struct RegistrationOutcome {
  bool registered = false;
  std::string reason;   // when not registered: why, in a word ("RegistrationFailed")
  std::string message;  // and in a sentence
};

class RegistrationHealth {
 public:
  void Registered(std::string_view node_pool) EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    outcomes_.insert_or_assign(std::string(node_pool), RegistrationOutcome{true, "", ""});
  }
  void Failed(std::string_view node_pool, std::string reason, std::string message)
      EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    outcomes_.insert_or_assign(std::string(node_pool),
                               RegistrationOutcome{false, std::move(reason), std::move(message)});
  }
  // The latest outcome for `node_pool` since the last Take, if any.
  std::optional<RegistrationOutcome> Take(std::string_view node_pool) EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    const auto it = outcomes_.find(node_pool);
    if (it == outcomes_.end()) return std::nullopt;
    RegistrationOutcome outcome = std::move(it->second);
    outcomes_.erase(it);
    return outcome;
  }

 private:
  Mutex mutex_;
  std::map<std::string, RegistrationOutcome, std::less<>> outcomes_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::controllers
