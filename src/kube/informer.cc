#include "kube/informer.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "common/mutex.h"

namespace karpenter::kube {

Informer::Informer(Client& client, Resource resource, ListOptions options)
    : client_(client), resource_(resource), options_(std::move(options)) {}

void Informer::AddHandler(Handler handler) { handlers_.push_back(std::move(handler)); }

void Informer::AddIndex(std::string name, IndexFunc index) {
  index_funcs_.emplace(std::move(name), std::move(index));
}

void Informer::IndexLocked(const std::string& key, const Object& object, bool add) {
  for (const auto& [name, func] : index_funcs_) {
    auto& by_value = indexes_[name];
    for (const std::string& value : func(object)) {
      std::vector<std::string>& keys = by_value[value];
      if (add) {
        keys.push_back(key);
      } else {
        keys.erase(std::remove(keys.begin(), keys.end(), key), keys.end());
        if (keys.empty()) by_value.erase(value);
      }
    }
  }
}

void Informer::Apply(WatchEventType type, SharedObject object) {
  if (type == WatchEventType::kBookmark) return;
  std::string key = Key(*object);
  {
    MutexLock lock(mutex_);
    const auto it = objects_.find(key);
    if (it != objects_.end()) IndexLocked(key, *it->second, false);
    if (type == WatchEventType::kDeleted) {
      if (it != objects_.end()) objects_.erase(it);
    } else {
      IndexLocked(key, *object, true);
      if (it != objects_.end()) {
        it->second = object;
      } else {
        objects_.emplace(std::move(key), object);
      }
    }
  }
  // `object` keeps the state alive while the handlers run, whatever happens to the cache.
  for (const Handler& handler : handlers_) handler(type, *object);
}

Status Informer::Sync() {
  ASSIGN_OR_RETURN(ObjectList list, client_.List(resource_, options_));
  std::map<std::string, SharedObject, std::less<>> fresh;
  for (SharedObject& item : list.items) {
    std::string key = Key(*item);
    fresh.emplace(std::move(key), std::move(item));
  }
  // What changed relative to the cache (empty on the first sync): deletions first.
  std::vector<SharedObject> deleted;
  std::vector<std::pair<WatchEventType, SharedObject>> changed;
  {
    MutexLock lock(mutex_);
    for (const auto& [key, object] : objects_) {
      if (!fresh.contains(key)) deleted.push_back(object);
    }
    for (auto& [key, object] : fresh) {
      const auto it = objects_.find(key);
      if (it == objects_.end()) {
        changed.emplace_back(WatchEventType::kAdded, std::move(object));
      } else if (ResourceVersion(*it->second) != ResourceVersion(*object)) {
        changed.emplace_back(WatchEventType::kModified, std::move(object));
      }
    }
  }
  fresh.clear();
  for (SharedObject& object : deleted) Apply(WatchEventType::kDeleted, std::move(object));
  for (auto& [type, object] : changed) Apply(type, std::move(object));
  resource_version_ = list.resource_version;
  {
    MutexLock lock(mutex_);
    synced_ = true;
  }
  WatchOptions watch_options{options_.namespace_, options_.label_selector, options_.field_selector,
                             resource_version_, true};
  ASSIGN_OR_RETURN(std::unique_ptr<Watch> watch, client_.StartWatch(resource_, watch_options));
  watch_ = std::move(watch);
  return {};
}

Result<size_t> Informer::Pump(std::chrono::milliseconds timeout) {
  if (!watch_) {
    RETURN_IF_ERROR(Sync());
  }
  size_t applied = 0;
  std::chrono::milliseconds wait = timeout;
  while (true) {
    Result<std::optional<WatchEvent>> next = watch_->Next(wait);
    if (!next.ok()) {
      watch_.reset();
      if (next.error().status == 410) {
        RETURN_IF_ERROR(Sync());
        return applied;
      }
      if (next.error().reason == "Closed") {
        WatchOptions watch_options{options_.namespace_, options_.label_selector,
                                   options_.field_selector, resource_version_, true};
        ASSIGN_OR_RETURN(std::unique_ptr<Watch> watch,
                         client_.StartWatch(resource_, watch_options));
        watch_ = std::move(watch);
        return applied;
      }
      return next.error();
    }
    if (!next->has_value()) return applied;
    WatchEvent& event = **next;
    if (std::string_view version = ResourceVersion(*event.object); !version.empty()) {
      resource_version_ = version;
    }
    Apply(event.type, std::move(event.object));
    ++applied;
    wait = std::chrono::milliseconds(0);  // drain what is already there, then return
  }
}

void Informer::Run(const std::stop_token& stop, const std::function<void(const Error&)>& on_error) {
  std::chrono::milliseconds backoff(100);
  constexpr std::chrono::milliseconds kMaxBackoff(10000);
  while (!stop.stop_requested()) {
    Result<size_t> pumped = Pump(std::chrono::milliseconds(500));
    if (pumped.ok()) {
      backoff = std::chrono::milliseconds(100);
      continue;
    }
    // The watch (or list) failed: start over after a pause; Pump relists when no watch is open.
    on_error(pumped.error());
    watch_.reset();
    for (auto slept = std::chrono::milliseconds(0); slept < backoff && !stop.stop_requested();
         slept += std::chrono::milliseconds(50)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
}

bool Informer::synced() const {
  MutexLock lock(mutex_);
  return synced_;
}

std::optional<Object> Informer::Get(std::string_view key) const {
  MutexLock lock(mutex_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  return *it->second;
}

bool Informer::Contains(std::string_view key) const {
  MutexLock lock(mutex_);
  return objects_.find(key) != objects_.end();
}

void Informer::ForEach(const std::function<void(const Object&)>& fn) const {
  MutexLock lock(mutex_);
  for (const auto& [key, object] : objects_) fn(*object);
}

std::vector<Object> Informer::ByIndex(std::string_view index, std::string_view value) const {
  MutexLock lock(mutex_);
  std::vector<Object> out;
  const auto by_value = indexes_.find(index);
  if (by_value == indexes_.end()) return out;
  const auto keys = by_value->second.find(value);
  if (keys == by_value->second.end()) return out;
  for (const std::string& key : keys->second) out.push_back(*objects_.find(key)->second);
  return out;
}

void Informer::VisitIndexed(
    std::string_view index, std::string_view value,
    const std::function<void(const std::vector<const Object*>&)>& fn) const {
  MutexLock lock(mutex_);
  std::vector<const Object*> objects;
  if (const auto by_value = indexes_.find(index); by_value != indexes_.end()) {
    if (const auto keys = by_value->second.find(value); keys != by_value->second.end()) {
      objects.reserve(keys->second.size());
      for (const std::string& key : keys->second) {
        objects.push_back(objects_.find(key)->second.get());
      }
    }
  }
  fn(objects);
}

size_t Informer::size() const {
  MutexLock lock(mutex_);
  return objects_.size();
}

}  // namespace karpenter::kube
