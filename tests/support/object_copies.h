#pragma once
// Lists and watches hand out shared, immutable states (kube::SharedObject); tests that keep or
// edit what they listed take copies.

#include <vector>

#include "kube/object.h"

namespace karpenter::support {

inline std::vector<kube::Object> Copies(const std::vector<kube::SharedObject>& items) {
  std::vector<kube::Object> copies;
  copies.reserve(items.size());
  for (const kube::SharedObject& item : items) copies.push_back(*item);
  return copies;
}

}  // namespace karpenter::support
