#include "sim/node_booter.h"

#include <string>
#include <utility>

#include "api/encode.h"
#include "api/labels.h"

namespace karpenter::sim {

NodeBooter::NodeBooter(kube::Client& client, const kube::Informer& nodes,
                       cloud::CloudProvider& cloud, const Clock& clock, Logger logger,
                       NodeBooterOptions options)
    : client_(client),
      nodes_(nodes),
      cloud_(cloud),
      clock_(clock),
      logger_(std::move(logger)),
      options_(options) {}

Result<size_t> NodeBooter::Boot() {
  Result<std::vector<cloud::Instance>> instances = cloud_.List();
  if (!instances.ok()) return instances.error();
  const TimePoint now = clock_.Now();
  size_t booted = 0;
  for (const cloud::Instance& instance : *instances) {
    if (now - instance.launch_time < options_.boot_delay) continue;
    if (nodes_.Get(instance.node_name)) continue;
    kube::Object labels = api::Encode(instance.labels);
    labels[std::string(api::kLabelHostname)] = instance.node_name;
    kube::Object status = {{"capacity", api::Encode(instance.capacity)},
                           {"allocatable", api::Encode(instance.allocatable)}};
    if (options_.mark_ready) {
      status["conditions"] = {{{"type", "Ready"},
                               {"status", "True"},
                               {"reason", "KubeletReady"},
                               {"lastTransitionTime", FormatTime(now)}}};
    }
    const kube::Object node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata",
         {{"name", instance.node_name},
          {"labels", std::move(labels)},
          {"annotations", {{std::string(kAnnotationKwokNode), "fake"}}}}},
        {"spec", {{"providerID", instance.provider_id}, {"taints", api::Encode(instance.taints)}}},
        {"status", std::move(status)}};
    Result<kube::Object> created = client_.Create(kube::resources::kNodes, node, {});
    if (!created.ok()) {
      if (created.error().status == 409) continue;  // the informer has not seen it yet
      logger_.Error("creating node failed",
                    {logkey::Node(instance.node_name), logkey::Err(created.error())});
      continue;
    }
    logger_.Info("instance booted", {logkey::Node(instance.node_name),
                                     logkey::ProviderId(instance.provider_id)});
    ++booted;
  }
  return booted;
}

}  // namespace karpenter::sim
