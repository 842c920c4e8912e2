#include "controllers/work_queue.h"

#include "common/mutex.h"

namespace karpenter::controllers {

void WorkQueue::Add(const std::string& key, MonoTime when) {
  MutexLock lock(mutex_);
  const auto it = due_.find(key);
  if (it != due_.end()) {
    if (it->second <= when) return;
    order_.erase({it->second, key});
    it->second = when;
  } else {
    due_.emplace(key, when);
    if (series_.adds != nullptr) series_.adds->Increment();
    if (series_.depth != nullptr) series_.depth->Set(static_cast<double>(due_.size()));
  }
  order_.emplace(when, key);
}

std::vector<std::string> WorkQueue::TakeDue(MonoTime now) {
  MutexLock lock(mutex_);
  std::vector<std::string> out;
  while (!order_.empty() && order_.begin()->first <= now) {
    auto node = order_.extract(order_.begin());
    due_.erase(node.value().second);
    if (series_.queue_duration != nullptr) {
      series_.queue_duration->Observe(
          std::chrono::duration<double>(now - node.value().first).count());
    }
    out.push_back(std::move(node.value().second));
  }
  if (series_.depth != nullptr) series_.depth->Set(static_cast<double>(due_.size()));
  return out;
}

std::optional<MonoTime> WorkQueue::NextDue() const {
  MutexLock lock(mutex_);
  if (order_.empty()) return std::nullopt;
  return order_.begin()->first;
}

size_t WorkQueue::size() const {
  MutexLock lock(mutex_);
  return due_.size();
}

}  // namespace karpenter::controllers
