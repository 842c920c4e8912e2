#include "cloud/sim/node_booter.h"

#include <string>
#include <utility>

#include "api/encode.h"
#include "api/labels.h"
#include "common/hash.h"

namespace karpenter::cloud {

namespace {

kube::Object InstanceRecord(const cloud::Instance& instance) {
  return {{"nodeClaim", instance.node_claim},
          {"nodePool", instance.node_pool},
          {"instanceType", instance.instance_type},
          {"zone", instance.zone},
          {"capacityType", instance.capacity_type},
          {"imageID", instance.image_id},
          {"price", instance.price},
          {"launchTime", FormatMicroTime(instance.launch_time)}};
}

}  // namespace

std::chrono::milliseconds BootDelayOf(std::string_view provider_id,
                                      const NodeBooterOptions& options) {
  if (options.boot_spread <= 0) return options.boot_delay;
  // A point in [-1, 1), fixed by the instance and the seed.
  const double point = 2 * UniformFromHash(Fnv1a64(provider_id, SplitMix64(options.seed))) - 1;
  return std::chrono::milliseconds(static_cast<int64_t>(
      static_cast<double>(options.boot_delay.count()) * (1.0 + options.boot_spread * point)));
}

std::optional<cloud::Instance> InstanceOfNode(const kube::Object& node) {
  const std::string_view record_text = kube::Annotation(node, kAnnotationInstance);
  if (record_text.empty()) return std::nullopt;
  const kube::Object record = kube::Object::parse(record_text, nullptr, false);
  if (!record.is_object()) return std::nullopt;
  cloud::Instance instance;
  instance.provider_id = kube::StringAt(node, {"spec", "providerID"});
  instance.node_name = std::string(kube::Name(node));
  instance.node_claim = kube::StringAt(record, {"nodeClaim"});
  instance.node_pool = kube::StringAt(record, {"nodePool"});
  instance.instance_type = kube::StringAt(record, {"instanceType"});
  instance.zone = kube::StringAt(record, {"zone"});
  instance.capacity_type = kube::StringAt(record, {"capacityType"});
  instance.image_id = kube::StringAt(record, {"imageID"});
  const kube::Object* price = kube::Find(record, {"price"});
  instance.price = price != nullptr && price->is_number() ? price->get<double>() : 0.0;
  instance.launch_time = ParseTime(kube::StringAt(record, {"launchTime"})).value_or(TimePoint());
  if (instance.provider_id.empty() || instance.node_claim.empty()) return std::nullopt;
  return instance;
}

NodeBooter::NodeBooter(kube::Client& client, const kube::Informer& nodes,
                       cloud::SimCloudProvider& cloud, const Clock& clock, Logger logger,
                       NodeBooterOptions options)
    : client_(client),
      nodes_(nodes),
      cloud_(cloud),
      clock_(clock),
      logger_(std::move(logger)),
      options_(options) {}

size_t NodeBooter::Recover() {
  size_t recovered = 0;
  nodes_.ForEach([&](const kube::Object& node) {
    std::optional<cloud::Instance> instance = InstanceOfNode(node);
    if (!instance) return;
    cloud_.Adopt(std::move(*instance));
    ++recovered;
  });
  return recovered;
}

Result<size_t> NodeBooter::Boot() {
  const TimePoint now = clock_.Now();
  const uint64_t launches = cloud_.launches();
  if (launches == launches_seen_ && (!next_boot_ || now < *next_boot_)) return size_t{0};
  ASSIGN_OR_RETURN(std::vector<cloud::Instance> instances, cloud_.List());
  launches_seen_ = launches;
  next_boot_.reset();
  size_t booted = 0;
  for (const cloud::Instance& instance : instances) {
    if (nodes_.Contains(instance.node_name)) continue;
    if (const TimePoint ready = instance.launch_time + BootDelayOf(instance.provider_id, options_);
        now < ready) {
      next_boot_ = next_boot_ ? std::min(*next_boot_, ready) : ready;
      continue;
    }
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
          {"annotations",
           {{std::string(kAnnotationKwokNode), "fake"},
            {std::string(kAnnotationInstance), InstanceRecord(instance).dump()}}}}},
        {"spec", {{"providerID", instance.provider_id}, {"taints", api::Encode(instance.taints)}}},
        {"status", std::move(status)}};
    Result<kube::Object> created = client_.Create(kube::resources::kNodes, node, {});
    if (!created.ok()) {
      if (created.error().status == 409) continue;  // the informer has not seen it yet
      logger_.Error("creating node failed",
                    {logkey::Node(instance.node_name), logkey::Err(created.error())});
      next_boot_ = now + std::chrono::seconds(1);  // try again
      continue;
    }
    logger_.Info("instance booted",
                 {logkey::Node(instance.node_name), logkey::ProviderId(instance.provider_id)});
    ++booted;
  }
  return booted;
}

}  // namespace karpenter::cloud
