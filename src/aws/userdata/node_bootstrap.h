#pragma once
// What a new node needs to join the cluster, independent of the AMI family: the input to the user
// data renderers (user_data.h), and what a booting machine reads back (NodeRegistration).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/ec2nodeclass.h"
#include "api/object_meta.h"
#include "api/taint.h"

namespace karpenter::aws {

struct NodeBootstrap {
  std::string node_class;  // the EC2NodeClass's name, for error messages ("" leaves it out)
  std::string cluster_name;
  std::string cluster_endpoint;       // https://…
  std::string certificate_authority;  // the cluster CA bundle, base64 of the PEM
  std::string service_cidr;           // e.g. 10.100.0.0/16; "" when unknown
  // AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022 or Windows2025.
  std::string ami_family;
  api::Labels labels;
  // What the node registers with: the NodeClaim's taints and startup taints. Every family but
  // Custom adds karpenter.sh/unregistered:NoExecute.
  std::vector<api::Taint> taints;
  std::optional<api::KubeletConfiguration> kubelet;  // spec.kubelet
  // The max pods to configure; when unset, kubelet->max_pods (if any) is used.
  std::optional<int32_t> max_pods;
  bool instance_store_raid0 = false;  // spec.instanceStorePolicy: RAID0
  std::string custom_user_data;       // spec.userData, plain text
};

// What the kubelet of a machine booted with some user data registers its Node with.
struct NodeRegistration {
  std::string cluster_name;  // "" when the user data does not say
  api::Labels labels;
  std::vector<api::Taint> taints;
  std::optional<int32_t> max_pods;
};

}  // namespace karpenter::aws
