#include "controllers/spec_changes.h"

#include <fmt/format.h>

namespace karpenter::controllers {

SpecChanges::SpecChanges(std::initializer_list<kube::Informer*> informers) {
  for (kube::Informer* informer : informers) {
    const kube::Resource& resource = informer->resource();
    informer->AddHandler([this, &resource](kube::WatchEventType type, const kube::Object& object) {
      Notice(resource, type, object);
    });
  }
}

void SpecChanges::Notice(const kube::Resource& resource, kube::WatchEventType type,
                         const kube::Object& object) {
  const std::string key =
      fmt::format("{}/{}/{}", resource.plural, kube::Namespace(object), kube::Name(object));
  MutexLock lock(mutex_);
  if (type == kube::WatchEventType::kDeleted) {
    generations_.erase(key);
  } else {
    const int64_t generation = kube::Generation(object);
    const auto [seen, added] = generations_.try_emplace(key, generation);
    if (!added && seen->second == generation) return;
    seen->second = generation;
  }
  changes_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace karpenter::controllers
