#include "support/node_registrar.h"

#include <string>
#include <vector>

#include "api/encode.h"
#include "api/labels.h"
#include "aws/userdata/user_data.h"
#include "common/base64.h"
#include "kube/object.h"

namespace karpenter::support {

Status NodeRegistrar::Register() {
  Result<std::vector<aws::Instance>> instances = ec2_.DescribeInstances(
      {},
      {{"tag:kubernetes.io/cluster/" + cluster_, {"owned"}}, {"instance-state-name", {"running"}}});
  if (!instances.ok()) return instances.error();
  for (const aws::Instance& instance : *instances) {
    if (registered_.contains(instance.instance_id)) continue;
    Status status = RegisterOne(instance);
    if (!status.ok()) return status;
    registered_.insert(instance.instance_id);
  }
  return {};
}

Status NodeRegistrar::RegisterOne(const aws::Instance& instance) {
  Result<std::string> encoded = ec2_.DescribeInstanceUserData(instance.instance_id);
  if (!encoded.ok()) return encoded.error();
  Result<std::string> user_data = DecodeBase64(*encoded);
  if (!user_data.ok()) return user_data.error();
  Result<aws::NodeRegistration> registration = aws::ParseNodeRegistration(*user_data);
  if (!registration.ok()) return registration.error();
  Result<std::vector<aws::InstanceTypeInfo>> types =
      ec2_.DescribeInstanceTypes({instance.instance_type});
  if (!types.ok()) return types.error();
  if (types->empty()) return Error("no instance type " + instance.instance_type);
  const aws::InstanceTypeInfo& type = types->front();

  api::Labels labels = registration->labels;
  labels[std::string(api::kLabelHostname)] = instance.private_dns_name;
  labels[std::string(api::kLabelInstanceType)] = instance.instance_type;
  labels[std::string(api::kLabelZone)] = instance.zone;
  labels[std::string(api::kLabelArch)] = "amd64";
  labels[std::string(api::kLabelOs)] = "linux";
  const int64_t pods = registration->max_pods.value_or(110);
  const kube::Object resources = {{"cpu", std::to_string(type.vcpus)},
                                  {"memory", std::to_string(type.memory_mib) + "Mi"},
                                  {"pods", std::to_string(pods)}};
  const kube::Object node = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", instance.private_dns_name},
        {"labels", api::Encode(labels)},
        {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
      {"spec",
       {{"providerID", "aws:///" + instance.zone + "/" + instance.instance_id},
        {"taints", api::Encode(registration->taints)}}},
      {"status", {{"capacity", resources}, {"allocatable", resources}}}};
  Result<kube::Object> created = client_.Create(kube::resources::kNodes, node, {});
  if (!created.ok() && created.error().status != 409) return created.error();
  return {};
}

}  // namespace karpenter::support
