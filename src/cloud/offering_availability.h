#pragma once
// What a cloud has said about offerings it cannot fill for now (insufficient capacity, a spot
// interruption), for a cloud provider that keeps such offerings out of its instance types. The AWS
// provider keeps this record itself (aws/instancetypes/unavailable_offerings.h); the simulated EC2
// consults it when the controller runs against it with an interruption queue.

#include <cstdint>
#include <string_view>

namespace karpenter::cloud {

class OfferingAvailability {
 public:
  virtual ~OfferingAvailability() = default;

  // Whether the offering cannot be launched now.
  virtual bool IsUnavailable(std::string_view instance_type, std::string_view zone,
                             std::string_view capacity_type) const = 0;
  // Changes whenever an answer of IsUnavailable may have changed: a cache key.
  virtual uint64_t SeqNum() const = 0;
};

}  // namespace karpenter::cloud
