#pragma once
// The zones Karpenter launches in: those of the subnets its EC2NodeClass selects. A simulation has
// no subnets to read, so unless told (`karpenter simulate --zones`) it takes the zones the cluster
// shows: the seed guide tags every node group's subnets for Karpenter (step 3), so the zones of
// the input's Nodes and of the timeline's node groups that name theirs; with neither, every zone
// of the region. Launching in zones the cluster has no subnets in would spread pods over more
// zones than it can (and its fleet over more, smaller nodes).

#include <string>
#include <vector>

#include "cloud/instance_type.h"
#include "kube/object.h"
#include "simulate/timeline.h"

namespace karpenter::simulate {

// The zones of the input's Nodes and of the node groups that name theirs, sorted; empty: none say.
std::vector<std::string> InferLaunchZones(const std::vector<kube::Object>& objects,
                                          const Timeline& timeline);

// `catalog` with only its offerings in `zones`; types offered in none of them are left out.
std::vector<cloud::InstanceType> OfferedIn(const std::vector<cloud::InstanceType>& catalog,
                                           const std::vector<std::string>& zones);

}  // namespace karpenter::simulate
