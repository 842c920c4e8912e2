#pragma once
// The typed objects of an informer, decoded once per change on the informer's thread instead of
// on every controller pass: a pass over 50,000 pods then costs copying pointers, not decoding
// JSON. Objects that do not decode are left out (the controllers that own them report why).

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "kube/informer.h"
#include "kube/object.h"

namespace karpenter::controllers {

template <class T>
class DecodedCache {
 public:
  using Decode = std::function<std::optional<T>(const kube::Object&)>;

  // Registers a handler on `informer` (before it syncs); `informer` must outlive this cache's
  // use and this cache must not move.
  DecodedCache(kube::Informer& informer, Decode decode) : decode_(std::move(decode)) {
    informer.AddHandler([this](kube::WatchEventType type, const kube::Object& object) {
      std::shared_ptr<const T> decoded;
      if (type != kube::WatchEventType::kDeleted) {
        if (std::optional<T> value = decode_(object)) {
          decoded = std::make_shared<const T>(std::move(*value));
        }
      }
      std::string key = kube::Key(object);
      MutexLock lock(mutex_);
      if (decoded) {
        objects_[std::move(key)] = std::move(decoded);
      } else {
        objects_.erase(key);
      }
    });
  }
  DecodedCache(const DecodedCache&) = delete;
  DecodedCache& operator=(const DecodedCache&) = delete;

  // Every object that decoded, in key order.
  std::vector<std::shared_ptr<const T>> All() const {
    MutexLock lock(mutex_);
    std::vector<std::shared_ptr<const T>> all;
    all.reserve(objects_.size());
    for (const auto& [key, object] : objects_) all.push_back(object);
    return all;
  }

  // The object under `key` ("namespace/name", or the name), or nullptr when absent or undecodable.
  std::shared_ptr<const T> Get(std::string_view key) const {
    MutexLock lock(mutex_);
    const auto found = objects_.find(key);
    return found == objects_.end() ? nullptr : found->second;
  }

 private:
  const Decode decode_;
  mutable Mutex mutex_;
  std::map<std::string, std::shared_ptr<const T>, std::less<>> objects_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::controllers
