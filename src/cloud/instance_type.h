#pragma once
// What the scheduler may launch: an instance type (its labels as requirements, capacity, the
// overhead the node reserves) and its offerings (one per zone × capacity type, with a price).

#include <string>
#include <vector>

#include "api/resource_list.h"
#include "scheduling/requirements.h"

namespace karpenter::cloud {

struct Offering {
  std::string zone;
  std::string capacity_type;  // "on-demand", "spot", "reserved"
  double price = 0;           // USD per hour
  bool available = true;
  // Reserved offerings: the capacity reservation, and how many more instances it takes now.
  std::string reservation_id = {};
  int reservation_capacity = 0;
};

struct InstanceType {
  std::string name;
  // Single-valued labels (arch, os, instance-* …) plus `zone In [...]` and `capacity-type In [...]`
  // over the offerings.
  scheduling::Requirements requirements;
  api::ResourceList capacity;
  api::ResourceList kube_reserved;
  api::ResourceList system_reserved;
  api::ResourceList eviction_threshold;
  std::vector<Offering> offerings;
  // GPUs, accelerators or bare metal: chosen only when nothing ordinary fits.
  bool exotic = false;

  api::ResourceList Overhead() const {
    return kube_reserved + system_reserved + eviction_threshold;
  }
  api::ResourceList Allocatable() const { return capacity - Overhead(); }
};

}  // namespace karpenter::cloud
