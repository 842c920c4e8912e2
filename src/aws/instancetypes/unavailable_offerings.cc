#include "aws/instancetypes/unavailable_offerings.h"

#include <array>

#include "common/mutex.h"

namespace karpenter::aws {

UnavailableOfferings::UnavailableOfferings(const Clock& clock, std::chrono::milliseconds ttl)
    : clock_(clock), ttl_(ttl) {}

void UnavailableOfferings::MarkUnavailable(std::string_view instance_type, std::string_view zone,
                                           std::string_view capacity_type,
                                           std::string_view reason) {
  const MonoTime expires = clock_.Monotonic() + ttl_;
  MutexLock lock(mutex_);
  Expire();
  Key key{std::string(instance_type), std::string(zone), std::string(capacity_type)};
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    entries_.emplace(std::move(key), Entry{expires, std::string(reason)});
  } else {
    it->second = Entry{expires, std::string(reason)};
  }
  ++seq_num_;
}

void UnavailableOfferings::Expire() const {
  const MonoTime now = clock_.Monotonic();
  bool expired = false;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.expires <= now) {
      it = entries_.erase(it);
      expired = true;
    } else {
      ++it;
    }
  }
  if (expired) ++seq_num_;
}

const UnavailableOfferings::Entry* UnavailableOfferings::Find(
    std::string_view instance_type, std::string_view zone, std::string_view capacity_type) const {
  if (entries_.empty()) return nullptr;
  const MonoTime now = clock_.Monotonic();
  // The exact entry first, then the wildcards that could cover it.
  const std::array<std::string_view, 2> types = {instance_type, ""};
  const std::array<std::string_view, 2> zones = {zone, ""};
  const std::array<std::string_view, 2> capacity_types = {capacity_type, ""};
  for (std::string_view t : types) {
    for (std::string_view z : zones) {
      for (std::string_view c : capacity_types) {
        auto it = entries_.find(std::make_tuple(t, z, c));
        if (it != entries_.end() && it->second.expires > now) return &it->second;
      }
    }
  }
  return nullptr;
}

bool UnavailableOfferings::IsUnavailable(std::string_view instance_type, std::string_view zone,
                                         std::string_view capacity_type) const {
  MutexLock lock(mutex_);
  return Find(instance_type, zone, capacity_type) != nullptr;
}

std::string UnavailableOfferings::Reason(std::string_view instance_type, std::string_view zone,
                                         std::string_view capacity_type) const {
  MutexLock lock(mutex_);
  const Entry* entry = Find(instance_type, zone, capacity_type);
  return entry == nullptr ? std::string() : entry->reason;
}

uint64_t UnavailableOfferings::SeqNum() const {
  MutexLock lock(mutex_);
  Expire();
  return seq_num_;
}

size_t UnavailableOfferings::size() const {
  MutexLock lock(mutex_);
  Expire();
  return entries_.size();
}

}  // namespace karpenter::aws
