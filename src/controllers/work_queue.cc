#include "controllers/work_queue.h"

namespace karpenter::controllers {

void WorkQueue::Add(const std::string& key, MonoTime when) {
  std::lock_guard lock(mutex_);
  const auto it = due_.find(key);
  if (it != due_.end()) {
    if (it->second <= when) return;
    order_.erase({it->second, key});
    it->second = when;
  } else {
    due_.emplace(key, when);
  }
  order_.emplace(when, key);
}

std::vector<std::string> WorkQueue::TakeDue(MonoTime now) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  while (!order_.empty() && order_.begin()->first <= now) {
    auto node = order_.extract(order_.begin());
    due_.erase(node.value().second);
    out.push_back(std::move(node.value().second));
  }
  return out;
}

std::optional<MonoTime> WorkQueue::NextDue() const {
  std::lock_guard lock(mutex_);
  if (order_.empty()) return std::nullopt;
  return order_.begin()->first;
}

size_t WorkQueue::size() const {
  std::lock_guard lock(mutex_);
  return due_.size();
}

}  // namespace karpenter::controllers
