#pragma once
// Offerings EC2 recently could not fill (insufficient capacity, unfulfillable spot, …), kept for a
// short time so that the scheduler picks something else meanwhile. An entry names an instance type,
// a zone and a capacity type; an empty field stands for every value of it, so a whole zone or a
// whole capacity type can be marked at once. Entries expire `ttl` after their latest mark.
//
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "cloud/offering_availability.h"
#include "common/clock.h"
#include "common/mutex.h"

namespace karpenter::aws {

class UnavailableOfferings final : public cloud::OfferingAvailability {
 public:
  static constexpr std::chrono::minutes kDefaultTtl{3};

  // `clock` must outlive this.
  explicit UnavailableOfferings(const Clock& clock, std::chrono::milliseconds ttl = kDefaultTtl);

  // Marks (or marks again, extending the expiry of) the offering; empty fields match every value.
  // `reason` is kept for logs ("InsufficientInstanceCapacity").
  void MarkUnavailable(std::string_view instance_type, std::string_view zone,
                       std::string_view capacity_type, std::string_view reason);
  // Whether an unexpired entry covers this offering (exactly or through empty fields).
  bool IsUnavailable(std::string_view instance_type, std::string_view zone,
                     std::string_view capacity_type) const override;
  // The reason of the covering entry, empty when none covers it.
  std::string Reason(std::string_view instance_type, std::string_view zone,
                     std::string_view capacity_type) const;
  // Changes whenever an entry is added, re-marked or expires: a cache key for anything built from
  // the availability of offerings.
  uint64_t SeqNum() const override;
  // Unexpired entries.
  size_t size() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;
  struct Entry {
    MonoTime expires;
    std::string reason;
  };
  // Drops expired entries (bumping the sequence number when any went).
  void Expire() const REQUIRES(mutex_);
  const Entry* Find(std::string_view instance_type, std::string_view zone,
                    std::string_view capacity_type) const REQUIRES(mutex_);

  const Clock& clock_;
  const std::chrono::milliseconds ttl_;
  mutable Mutex mutex_;
  mutable std::map<Key, Entry, std::less<>> entries_ GUARDED_BY(mutex_);
  mutable uint64_t seq_num_ GUARDED_BY(mutex_) = 0;
};

}  // namespace karpenter::aws
