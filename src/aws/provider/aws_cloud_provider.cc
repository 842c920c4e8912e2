#include "aws/provider/aws_cloud_provider.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "api/condition.h"
#include "api/labels.h"
#include "aws/provider/drift.h"
#include "aws/provider/launch_plan.h"
#include "aws/userdata/user_data.h"
#include "common/base64.h"
#include "common/mutex.h"
#include "scheduling/requirements.h"

namespace karpenter::aws {
namespace {

constexpr std::string_view kTagNodePool = "karpenter.sh/nodepool";
constexpr std::string_view kTagNodeClaim = "karpenter.sh/nodeclaim";
constexpr std::string_view kTagName = "Name";  // what the EC2 console shows
constexpr std::string_view kTagEksClusterName = "eks:eks-cluster-name";
constexpr std::string_view kInstanceNotFound = "InvalidInstanceID.NotFound";
constexpr std::string_view kLaunchTemplateNotFound = "InvalidLaunchTemplateName.NotFoundException";
// How often drift checks list every owned instance, and how long what they read is trusted (an
// instance's AMI and subnet never change; its security groups rarely do).
constexpr std::chrono::seconds kDriftListInterval(30);
constexpr std::chrono::minutes kDescribedTtl(5);
// How long what DescribeSubnets said of a subnet's public addresses is trusted.
constexpr std::chrono::minutes kSubnetFactsTtl(5);
// The most values EC2 takes in one filter.
constexpr size_t kMaxFilterValues = 200;

std::string ClusterTag(std::string_view cluster) {
  return "kubernetes.io/cluster/" + std::string(cluster);
}

Error NotFound(std::string_view provider_id, std::string_view why) {
  return Error(fmt::format("instance {} {}", provider_id, why), 404,
               std::string(cloud::kReasonNotFound));
}

Error NotOwned(std::string message) {
  return Error(std::move(message), 0, std::string(cloud::kReasonNotOwned));
}

bool Gone(const Instance& instance) {
  return instance.state == "terminated" || instance.state == "shutting-down";
}

// Labels a kubelet may set on its own Node (the NodeRestriction admission plugin refuses other
// kubernetes.io and k8s.io labels; Karpenter sets those when it syncs the Node).
bool KubeletMaySet(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return true;
  const std::string_view domain = key.substr(0, slash);
  const bool kubernetes = domain == "kubernetes.io" || domain.ends_with(".kubernetes.io") ||
                          domain == "k8s.io" || domain.ends_with(".k8s.io");
  if (!kubernetes) return true;
  return domain == "node.kubernetes.io" || domain == "kubelet.kubernetes.io" ||
         domain == "topology.kubernetes.io" || key == api::kLabelArch || key == api::kLabelOs;
}

// The NodeClaim's own labels and single-valued requirements.
api::Labels NodeClaimLabels(const api::NodeClaim& node_claim) {
  api::Labels labels =
      scheduling::Requirements::FromNodeSelector(node_claim.spec.requirements).SingleValueLabels();
  for (const auto& [key, value] : node_claim.metadata.labels) labels[key] = value;
  return labels;
}

std::string NodePoolOf(const api::NodeClaim& node_claim) {
  const auto it = node_claim.metadata.labels.find(api::kLabelNodePool);
  return it == node_claim.metadata.labels.end() ? "" : it->second;
}

}  // namespace

bool IsCapacityError(std::string_view code) {
  static constexpr std::array<std::string_view, 8> kCodes = {
      "InsufficientInstanceCapacity", "ReservationCapacityExceeded",
      "MaxSpotInstanceCountExceeded", "VcpuLimitExceeded",
      "UnfulfillableCapacity",        "InsufficientFreeAddressesInSubnet",
      "SpotMaxPriceTooLow",           "Unsupported"};
  return std::find(kCodes.begin(), kCodes.end(), code) != kCodes.end();
}

std::string InstanceIdOf(std::string_view provider_id) {
  constexpr std::string_view kScheme = "aws://";
  if (!provider_id.starts_with(kScheme)) return "";
  const size_t slash = provider_id.rfind('/');
  const std::string_view id = provider_id.substr(slash + 1);
  return id.starts_with("i-") ? std::string(id) : "";
}

AwsCloudProvider::AwsCloudProvider(Ec2Api& ec2, InstanceTypeProvider& instance_types,
                                   UnavailableOfferings& unavailable,
                                   LaunchTemplates& launch_templates, NodeClassLookup node_classes,
                                   AwsCloudProviderOptions options, const Clock& clock)
    : ec2_(ec2),
      instance_types_(instance_types),
      unavailable_(unavailable),
      launch_templates_(launch_templates),
      node_classes_(std::move(node_classes)),
      options_(std::move(options)),
      clock_(clock) {}

Result<api::EC2NodeClass> AwsCloudProvider::ReadyNodeClass(std::string_view name,
                                                           std::string_view user) const {
  std::optional<api::EC2NodeClass> node_class = node_classes_(name);
  if (!node_class.has_value()) {
    return Error(fmt::format("{}: EC2NodeClass {} not found", user, name));
  }
  if (!api::IsConditionTrue(node_class->status.conditions, api::kConditionReady)) {
    const api::Condition* ready =
        api::FindCondition(node_class->status.conditions, api::kConditionReady);
    return Error(fmt::format("{}: EC2NodeClass {} is not ready{}{}", user, name,
                             ready != nullptr && !ready->message.empty() ? ": " : "",
                             ready != nullptr ? ready->message : ""));
  }
  return std::move(*node_class);
}

Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> AwsCloudProvider::GetInstanceTypes(
    const api::NodePool& node_pool) {
  MutexLock lock(mutex_);
  ASSIGN_OR_RETURN(api::EC2NodeClass node_class,
                   ReadyNodeClass(node_pool.spec.template_.spec.node_class_ref.name,
                                  "NodePool " + node_pool.metadata.name));
  return instance_types_.List(node_class);
}

Ec2Tags AwsCloudProvider::OwnershipTags(const api::NodeClaim& node_claim,
                                        const api::EC2NodeClass& node_class) const {
  Ec2Tags tags(node_class.spec.tags.begin(), node_class.spec.tags.end());
  tags[ClusterTag(options_.cluster_name)] = "owned";
  tags[std::string(kTagEksClusterName)] = options_.cluster_name;
  tags[std::string(kTagNodePool)] = NodePoolOf(node_claim);
  tags[std::string(kTagNodeClass)] = node_class.metadata.name;
  return tags;
}

bool AwsCloudProvider::Owned(const Instance& instance) const {
  const auto cluster = instance.tags.find(ClusterTag(options_.cluster_name));
  return cluster != instance.tags.end() && cluster->second == "owned" &&
         instance.tags.contains(std::string(kTagNodePool));
}

cloud::Instance AwsCloudProvider::ToCloudInstance(const Instance& instance,
                                                  const cloud::InstanceType* type,
                                                  const api::NodeClaim* node_claim,
                                                  double price) const {
  cloud::Instance out;
  out.provider_id = fmt::format("aws:///{}/{}", instance.zone, instance.instance_id);
  if (const auto it = instance.tags.find(std::string(kTagNodeClaim)); it != instance.tags.end()) {
    out.node_claim = it->second;
  }
  if (const auto it = instance.tags.find(std::string(kTagNodePool)); it != instance.tags.end()) {
    out.node_pool = it->second;
  }
  out.instance_type = instance.instance_type;
  out.zone = instance.zone;
  out.capacity_type = instance.lifecycle.empty() ? "on-demand" : instance.lifecycle;
  // An instance in a reservation was launched into it (other launches say "none"); once the
  // reservation ends, EC2 no longer names it and the instance is on-demand again.
  const bool reserved =
      options_.reservation_counts != nullptr && !instance.capacity_reservation_id.empty();
  if (reserved) out.capacity_type = api::kCapacityTypeReserved;
  out.image_id = instance.image_id;
  out.node_name = instance.private_dns_name;
  out.price = price;
  out.launch_time = instance.launch_time.value_or(clock_.Now());
  if (node_claim != nullptr) out.labels = NodeClaimLabels(*node_claim);
  if (type != nullptr) {
    for (const auto& [key, value] : type->requirements.SingleValueLabels()) out.labels[key] = value;
    out.capacity = type->capacity;
    out.allocatable = type->Allocatable();
  }
  out.labels[std::string(api::kLabelInstanceType)] = instance.instance_type;
  out.labels[std::string(api::kLabelZone)] = instance.zone;
  out.labels[std::string(api::kLabelRegion)] = options_.region;
  out.labels[std::string(api::kLabelCapacityType)] = out.capacity_type;
  if (reserved) {
    out.labels[std::string(api::kLabelCapacityReservationId)] = instance.capacity_reservation_id;
    out.labels[std::string(api::kLabelCapacityReservationType)] = "default";
  } else {
    out.labels.erase(std::string(api::kLabelCapacityReservationId));
    out.labels.erase(std::string(api::kLabelCapacityReservationType));
  }
  if (!out.node_name.empty()) out.labels[std::string(api::kLabelHostname)] = out.node_name;
  return out;
}

Result<std::vector<Instance>> AwsCloudProvider::DescribeOwned(
    const std::vector<QueryFilter>& filters) {
  std::vector<QueryFilter> all = filters;
  all.push_back({"tag:" + ClusterTag(options_.cluster_name), {"owned"}});
  all.push_back({"tag-key", {std::string(kTagNodePool)}});
  all.push_back({"instance-state-name", {"pending", "running", "stopping", "stopped"}});
  Result<std::vector<Instance>> instances = ec2_.DescribeInstances({}, all);
  if (!instances.ok()) return instances.error();
  std::erase_if(*instances, [&](const Instance& instance) { return !Owned(instance); });
  std::sort(instances->begin(), instances->end(),
            [](const Instance& a, const Instance& b) { return a.instance_id < b.instance_id; });
  return instances;
}

namespace {

// CreateFleet takes at most this many launch template configurations.
constexpr size_t kMaxFleetLaunchTemplates = 50;

// What the kubelet of an instance type is told, so that its Node's allocatable is the one the
// scheduler planned with: the type's max pods and kube-reserved (as the EC2NodeClass's kubelet
// settings and the type's ENIs and size make them). Types that agree share a launch template.
struct KubeletSizing {
  int32_t max_pods = 0;
  api::Labels kube_reserved;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>.
  auto operator<=>(const KubeletSizing&) const = default;
};

KubeletSizing SizingOf(const cloud::InstanceType& type) {
  KubeletSizing sizing;
  sizing.max_pods = static_cast<int32_t>(type.capacity.pods().units_ceil());
  type.kube_reserved.ForEach([&](std::string_view name, Quantity quantity) {
    sizing.kube_reserved.emplace(name, quantity.ToString());
  });
  return sizing;
}

}  // namespace

// A NodeClaim's launch, planned before its CreateFleet request is sent.
struct AwsCloudProvider::PlannedLaunch {
  size_t index = 0;  // of the NodeClaim in CreateAll's input and output
  const api::NodeClaim* node_claim = nullptr;
  std::string user;  // how errors name the NodeClaim
  api::EC2NodeClass node_class;
  InstanceTypeList types;   // the plan's candidates point into it (with NodeOverlays applied)
  InstanceTypeList listed;  // as EC2 lists them: what the launch is billed at
  LaunchPlan plan;
  std::vector<api::Taint> registration_taints;
  // Without the NodeClaim's own tag: NodeClaims with equal requests are launched by one.
  FleetInput fleet;
  // False for the permission check: the fleet names its templates, none is created, and
  // first_template holds what the first one would (the check asks for it with DryRun).
  bool create_templates = true;
  LaunchTemplateInput first_template;

  const cloud::InstanceType* FindType(std::string_view name) const {
    for (const cloud::InstanceType& type : *types) {
      if (type.name == name) return &type;
    }
    return nullptr;
  }

  // What EC2 bills for `candidate`: its offering's price as listed, before NodeOverlays (`types`
  // is then a copy of `listed` in its order, offerings included).
  double ListedPrice(const LaunchCandidate& candidate) const {
    if (!listed || listed == types) return candidate.price;
    const cloud::InstanceType& type = *candidate.instance_type;
    const size_t type_index = static_cast<size_t>(&type - types->data());
    for (size_t i = 0; i < type.offerings.size(); ++i) {
      const cloud::Offering& offering = type.offerings[i];
      if (offering.zone == candidate.zone && offering.capacity_type == plan.capacity_type &&
          offering.reservation_id == candidate.reservation_id) {
        return (*listed)[type_index].offerings[i].price;
      }
    }
    return candidate.price;
  }
};

Result<cloud::Instance> AwsCloudProvider::Create(const api::NodeClaim& node_claim) {
  const api::NodeClaim* const only = &node_claim;
  return std::move(CreateAll({&only, 1}).front());
}

std::vector<Result<cloud::Instance>> AwsCloudProvider::CreateAll(
    std::span<const api::NodeClaim* const> node_claims) {
  MutexLock lock(mutex_);
  // Every entry is replaced by the NodeClaim's instance or error below.
  std::vector<Result<cloud::Instance>> instances(node_claims.size(), Error("not launched"));
  std::vector<PlannedLaunch> launches;
  for (size_t i = 0; i < node_claims.size(); ++i) {
    std::string user = "NodeClaim " + node_claims[i]->metadata.name;
    Result<api::EC2NodeClass> node_class =
        ReadyNodeClass(node_claims[i]->spec.node_class_ref.name, user);
    if (!node_class.ok()) {
      instances[i] = node_class.error();
      continue;
    }
    Result<InstanceTypeList> types = instance_types_.List(*node_class);
    if (!types.ok()) {
      instances[i] = types.error();
      continue;
    }
    InstanceTypeList listed = *types;
    if (overlays_ != nullptr) types = overlays_->Apply(NodePoolOf(*node_claims[i]), listed);
    if (!types.ok()) {
      instances[i] = types.error();
      continue;
    }
    PlannedLaunch& launch = launches.emplace_back();
    launch.listed = std::move(listed);
    launch.index = i;
    launch.node_claim = node_claims[i];
    launch.user = std::move(user);
    launch.node_class = std::move(*node_class);
    launch.types = std::move(*types);
  }

  // Idempotent: an instance already launched for a NodeClaim is its answer.
  std::map<std::string, Instance, std::less<>> existing;  // by NodeClaim
  for (size_t first = 0; first < launches.size(); first += kMaxFilterValues) {
    QueryFilter by_node_claim{"tag:" + std::string(kTagNodeClaim), {}};
    for (size_t i = first; i < std::min(launches.size(), first + kMaxFilterValues); ++i) {
      by_node_claim.values.push_back(launches[i].node_claim->metadata.name);
    }
    Result<std::vector<Instance>> found = DescribeOwned({by_node_claim});
    if (!found.ok()) {
      for (const PlannedLaunch& launch : launches) instances[launch.index] = found.error();
      return instances;
    }
    for (Instance& instance : *found) {
      const std::string node_claim = instance.tags[std::string(kTagNodeClaim)];
      existing.try_emplace(node_claim, std::move(instance));
    }
  }

  // The launches whose requests are equal, in the order of their first NodeClaim.
  std::vector<std::vector<const PlannedLaunch*>> groups;
  for (PlannedLaunch& launch : launches) {
    if (const auto found = existing.find(launch.node_claim->metadata.name);
        found != existing.end()) {
      instances[launch.index] = ToCloudInstance(
          found->second, launch.FindType(found->second.instance_type), launch.node_claim, 0);
      continue;
    }
    if (Status planned = PlanFleet(launch); !planned.ok()) {
      instances[launch.index] = planned.error();
      continue;
    }
    const auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& members) {
      return members.front()->fleet == launch.fleet;
    });
    if (group == groups.end()) {
      groups.push_back({&launch});
    } else {
      group->push_back(&launch);
    }
  }
  for (const std::vector<const PlannedLaunch*>& group : groups) LaunchFleet(group, instances);
  return instances;
}

Result<LaunchAuthorization> AwsCloudProvider::CheckLaunchAuthorization(
    const api::EC2NodeClass& node_class) {
  MutexLock lock(mutex_);
  const std::string user = "EC2NodeClass " + node_class.metadata.name;
  ASSIGN_OR_RETURN(InstanceTypeList types, instance_types_.List(node_class));
  // The cheapest offering a launch could use: available, in a zone with a subnet, with an AMI.
  std::set<std::string, std::less<>> zones;
  for (const api::SubnetStatus& subnet : node_class.status.subnets) zones.insert(subnet.zone);
  const cloud::InstanceType* cheapest = nullptr;
  const cloud::Offering* offering = nullptr;
  for (const cloud::InstanceType& type : *types) {
    if (ImageForType(type, node_class.status.amis).empty()) continue;
    for (const cloud::Offering& candidate : type.offerings) {
      if (!candidate.available || !zones.contains(candidate.zone)) continue;
      // On-demand first, as upstream checks an on-demand launch.
      const auto rank = [](const cloud::Offering& o) {
        return std::pair(o.capacity_type != "on-demand", o.price);
      };
      if (offering == nullptr || rank(candidate) < rank(*offering)) {
        cheapest = &type;
        offering = &candidate;
      }
    }
  }
  if (cheapest == nullptr) {
    return Error(user + ": no available offering to check the launch permissions with");
  }
  api::NodeClaim claim;
  claim.metadata.name = node_class.metadata.name + "-validation";
  claim.metadata.labels[std::string(api::kLabelNodePool)] = "";
  claim.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", node_class.metadata.name};
  claim.spec.requirements = {
      {std::string(api::kLabelInstanceType), api::NodeSelectorOperator::kIn, {cheapest->name}, {}},
      {std::string(api::kLabelCapacityType),
       api::NodeSelectorOperator::kIn,
       {offering->capacity_type},
       {}}};
  PlannedLaunch launch;
  launch.node_claim = &claim;
  launch.user = user;
  launch.node_class = node_class;
  launch.types = types;
  launch.create_templates = false;
  RETURN_IF_ERROR(PlanFleet(launch));
  const auto unauthorized = [](const Error& error) {
    return error.reason == "UnauthorizedOperation" || error.reason == "AccessDenied";
  };
  // In upstream's order: CreateFleet, CreateLaunchTemplate, RunInstances.
  if (Status fleet = ec2_.DryRunCreateFleet(launch.fleet); !fleet.ok()) {
    if (!unauthorized(fleet.error())) return fleet.error();
    return LaunchAuthorization{
        "CreateFleetAuthCheckFailed",
        "Controller isn't authorized to call ec2:CreateFleet: " + fleet.error().message};
  }
  if (Status created = ec2_.DryRunCreateLaunchTemplate(launch.first_template); !created.ok()) {
    if (!unauthorized(created.error())) return created.error();
    return LaunchAuthorization{
        "CreateLaunchTemplateAuthCheckFailed",
        "Controller isn't authorized to call ec2:CreateLaunchTemplate: " + created.error().message};
  }
  const LaunchCandidate& first = launch.plan.candidates.front();
  if (Status run = ec2_.DryRunRunInstances(launch.first_template, first.instance_type->name,
                                           first.subnet_id);
      !run.ok()) {
    if (!unauthorized(run.error())) return run.error();
    return LaunchAuthorization{
        "RunInstancesAuthCheckFailed",
        "Controller isn't authorized to call ec2:RunInstances: " + run.error().message};
  }
  return LaunchAuthorization{};
}

void AwsCloudProvider::UseOverlays(cloud::OverlayStore& overlays) {
  MutexLock lock(mutex_);
  overlays_ = &overlays;
}

void AwsCloudProvider::ObserveBatches(FleetBatchMetrics* metrics) {
  MutexLock lock(mutex_);
  batch_metrics_ = metrics;
}

Status AwsCloudProvider::PlanFleet(PlannedLaunch& launch) {
  const api::NodeClaim& node_claim = *launch.node_claim;
  const api::EC2NodeClass& node_class = launch.node_class;
  ASSIGN_OR_RETURN(LaunchPlan plan, PlanLaunch(node_claim, node_class, *launch.types));
  launch.plan = std::move(plan);

  NodeBootstrap bootstrap;
  bootstrap.node_class = node_class.metadata.name;
  bootstrap.cluster_name = options_.cluster_name;
  bootstrap.cluster_endpoint = options_.cluster_endpoint;
  bootstrap.certificate_authority = options_.certificate_authority;
  bootstrap.service_cidr = options_.service_cidr;
  bootstrap.ami_family = node_class.EffectiveAmiFamily();
  for (const auto& [key, value] : NodeClaimLabels(node_claim)) {
    if (KubeletMaySet(key)) bootstrap.labels[key] = value;
  }
  bootstrap.taints = node_claim.spec.taints;
  bootstrap.taints.insert(bootstrap.taints.end(), node_claim.spec.startup_taints.begin(),
                          node_claim.spec.startup_taints.end());
  bootstrap.kubelet = node_class.spec.kubelet.value_or(api::KubeletConfiguration{});
  bootstrap.instance_store_raid0 = node_class.spec.instance_store_policy == "RAID0";
  bootstrap.custom_user_data = node_class.spec.user_data;
  launch.registration_taints = RegistrationTaints(bootstrap);

  std::vector<std::string> security_groups;
  for (const api::SecurityGroupStatus& group : node_class.status.security_groups) {
    security_groups.push_back(group.id);
  }
  Result<std::optional<bool>> public_ip = AssociatePublicIp(node_class);
  if (!public_ip.ok()) return Error(launch.user + ": " + public_ip.error().message);
  // One launch template per AMI and kubelet sizing; each candidate is an override of its own.
  FleetInput& fleet = launch.fleet;
  std::map<std::tuple<std::string, KubeletSizing, std::string>, size_t> template_of;
  for (const LaunchCandidate& candidate : launch.plan.candidates) {
    KubeletSizing sizing = SizingOf(*candidate.instance_type);
    auto key = std::tuple(candidate.image_id, sizing, candidate.reservation_id);
    auto it = template_of.find(key);
    if (it == template_of.end()) {
      // The dearer candidates that would need a template beyond CreateFleet's limit wait.
      if (fleet.launch_templates.size() == kMaxFleetLaunchTemplates) continue;
      it = template_of.emplace(std::move(key), fleet.launch_templates.size()).first;
      bootstrap.max_pods = sizing.max_pods;
      bootstrap.kubelet->kube_reserved = std::move(sizing.kube_reserved);
      Result<std::string> user_data = RenderUserData(bootstrap);
      if (!user_data.ok()) return Error(launch.user + ": " + user_data.error().message);
      LaunchTemplateInput input;
      input.image_id = candidate.image_id;
      input.instance_profile = node_class.status.instance_profile;
      input.security_group_ids = security_groups;
      input.user_data_base64 = EncodeBase64(*user_data);
      // The launch's ownership tags (the node pool's among them), as the scoped controller policy
      // requires of CreateLaunchTemplate: one template per node pool, as upstream.
      input.tags = OwnershipTags(node_claim, node_class);
      input.metadata = node_class.spec.metadata_options;
      input.block_device_mappings = node_class.LaunchBlockDeviceMappings();
      input.detailed_monitoring = node_class.spec.detailed_monitoring.value_or(false);
      input.associate_public_ip_address = *public_ip;
      if (options_.reservation_counts != nullptr) {
        input.capacity_reservation_preference =
            candidate.reservation_id.empty() ? "none" : "capacity-reservations-only";
        input.capacity_reservation_id = candidate.reservation_id;
      }
      std::string name;
      if (launch.create_templates) {
        Result<std::string> ensured =
            launch_templates_.Ensure(std::move(input), node_class.metadata.name);
        if (!ensured.ok()) {
          return Error(launch.user + ": " + ensured.error().message, ensured.error().status,
                       ensured.error().reason);
        }
        name = std::move(*ensured);
      } else {
        input = launch_templates_.Completed(std::move(input), node_class.metadata.name);
        name = input.name;
        if (fleet.launch_templates.empty()) launch.first_template = std::move(input);
      }
      fleet.launch_templates.push_back(FleetLaunchTemplateConfig{std::move(name), {}});
    }
    fleet.launch_templates[it->second].overrides.push_back(FleetOverride{
        candidate.instance_type->name, candidate.subnet_id, candidate.zone, std::nullopt});
  }
  // Reserved capacity is on-demand capacity the reservation holds.
  const bool spot = launch.plan.capacity_type == api::kCapacityTypeSpot;
  fleet.capacity_type = spot ? CapacityType::kSpot : CapacityType::kOnDemand;
  fleet.allocation_strategy = spot ? "price-capacity-optimized" : "lowest-price";
  if (!spot && overlays_ != nullptr) {
    // The candidates are in the order of the overlaid prices, cheapest first: EC2 takes the first
    // with capacity, where "lowest-price" would go by its own list.
    fleet.allocation_strategy = "prioritized";
    double priority = 0;
    std::map<std::pair<std::string, std::string>, double> rank;  // by (type, subnet)
    for (const LaunchCandidate& candidate : launch.plan.candidates) {
      rank.try_emplace({candidate.instance_type->name, candidate.subnet_id}, priority++);
    }
    for (FleetLaunchTemplateConfig& config : fleet.launch_templates) {
      for (FleetOverride& override : config.overrides) {
        override.priority = rank[{override.instance_type, override.subnet_id}];
      }
    }
  }
  fleet.tags = OwnershipTags(node_claim, node_class);
  fleet.context = node_class.spec.context;
  return {};
}

Result<std::string> AwsCloudProvider::IsDrifted(const api::NodeClaim& node_claim) {
  const std::string id = InstanceIdOf(node_claim.status.provider_id);
  if (id.empty()) return std::string();
  const std::optional<api::EC2NodeClass> node_class =
      node_classes_(node_claim.spec.node_class_ref.name);
  if (!node_class.has_value() ||
      !api::IsConditionTrue(node_class->status.conditions, api::kConditionReady)) {
    return std::string();
  }
  MutexLock lock(mutex_);
  ASSIGN_OR_RETURN(std::optional<Instance> instance, DescribedForDrift(id));
  if (!instance.has_value()) return std::string();
  const cloud::InstanceType* type = nullptr;
  Result<InstanceTypeList> types = instance_types_.List(*node_class);
  if (types.ok()) {
    const auto found =
        std::find_if((*types)->begin(), (*types)->end(), [&](const cloud::InstanceType& candidate) {
          return candidate.name == instance->instance_type;
        });
    if (found != (*types)->end()) type = &*found;
  }
  return DriftOf(*instance, type, *node_class);
}

Result<std::optional<Instance>> AwsCloudProvider::DescribedForDrift(const std::string& id) {
  const MonoTime now = clock_.Monotonic();
  if (const auto known = described_.find(id);
      known != described_.end() && now - known->second.read < kDescribedTtl) {
    return std::optional<Instance>(known->second.instance);
  }
  if (!described_all_.has_value() || now - *described_all_ >= kDriftListInterval) {
    ASSIGN_OR_RETURN(std::vector<Instance> owned, DescribeOwned({}));
    described_.clear();
    for (Instance& instance : owned) {
      std::string key = instance.instance_id;
      described_.insert_or_assign(std::move(key), DescribedInstance{std::move(instance), now});
    }
    described_all_ = now;
  } else {
    // Launched since the last listing: describe it alone.
    ASSIGN_OR_RETURN(std::vector<Instance> found, DescribeOwned({{"instance-id", {id}}}));
    for (Instance& instance : found) {
      std::string key = instance.instance_id;
      described_.insert_or_assign(std::move(key), DescribedInstance{std::move(instance), now});
    }
  }
  const auto known = described_.find(id);
  if (known == described_.end()) return std::optional<Instance>();
  return std::optional<Instance>(known->second.instance);
}

Result<std::optional<bool>> AwsCloudProvider::AssociatePublicIp(
    const api::EC2NodeClass& node_class) {
  if (node_class.spec.associate_public_ip_address.has_value()) {
    return node_class.spec.associate_public_ip_address;
  }
  const MonoTime now = clock_.Monotonic();
  QueryFilter stale{"subnet-id", {}};
  for (const api::SubnetStatus& subnet : node_class.status.subnets) {
    const auto known = subnet_facts_.find(subnet.id);
    if (known == subnet_facts_.end() || now - known->second.read >= kSubnetFactsTtl) {
      stale.values.push_back(subnet.id);
    }
  }
  if (!stale.values.empty()) {
    ASSIGN_OR_RETURN(std::vector<Subnet> subnets, ec2_.DescribeSubnets({stale}));
    for (const Subnet& subnet : subnets) {
      subnet_facts_[subnet.subnet_id] = SubnetFact{subnet.map_public_ip_on_launch, now};
    }
  }
  for (const api::SubnetStatus& subnet : node_class.status.subnets) {
    const auto known = subnet_facts_.find(subnet.id);
    if (known == subnet_facts_.end() || known->second.maps_public_ip) return std::optional<bool>();
  }
  return std::optional<bool>(false);
}

void AwsCloudProvider::LaunchFleet(std::span<const PlannedLaunch* const> group,
                                   std::vector<Result<cloud::Instance>>& instances) {
  // The group's launches differ only in their NodeClaims: the first speaks for all.
  const PlannedLaunch& first = *group.front();
  FleetInput fleet = first.fleet;
  fleet.target_capacity = static_cast<int>(group.size());
  if (batch_metrics_ != nullptr) {
    const TimePoint now = clock_.Now();
    TimePoint oldest = now;
    for (const PlannedLaunch* launch : group) {
      if (const std::optional<TimePoint> created =
              ParseTime(launch->node_claim->metadata.creation_timestamp)) {
        oldest = std::min(oldest, *created);
      }
    }
    batch_metrics_->Sent(group.size(), now - oldest);
  }
  const TimePoint sent = clock_.Now();
  Result<FleetResult> launched = ec2_.CreateFleet(fleet);
  if (!launched.ok()) {
    if (launched.error().reason == kLaunchTemplateNotFound) {
      for (const FleetLaunchTemplateConfig& config : fleet.launch_templates) {
        launch_templates_.Forget(config.launch_template_name);
      }
    }
    for (const PlannedLaunch* launch : group) {
      instances[launch->index] = Error(launch->user + ": " + launched.error().message,
                                       launched.error().status, launched.error().reason);
    }
    return;
  }
  const std::vector<std::string> failures = RecordFleetErrors(first, launched->errors);
  const size_t filled = std::min(group.size(), launched->instances.size());
  const std::span<const FleetInstance> filled_instances(launched->instances.data(), filled);
  const std::map<std::string, Instance, std::less<>> described = DescribeLaunched(filled_instances);

  // The instances go to the NodeClaims in order; those left without one lack capacity.
  for (size_t i = 0; i < group.size(); ++i) {
    const PlannedLaunch& launch = *group[i];
    if (i < filled) {
      instances[launch.index] = ClaimInstance(launch, filled_instances[i], fleet.tags, described);
      if (instances[launch.index].ok() && options_.reservation_counts != nullptr) {
        const api::Labels& labels = instances[launch.index]->labels;
        if (const auto reservation = labels.find(std::string(api::kLabelCapacityReservationId));
            reservation != labels.end()) {
          options_.reservation_counts->MarkLaunched(reservation->second, sent);
        }
      }
      continue;
    }
    instances[launch.index] =
        Error(fmt::format("{}: EC2 launched {} of {} {} instances requested from {} "
                          "candidates{}{}",
                          launch.user, launched->instances.size(), group.size(),
                          launch.plan.capacity_type, launch.plan.candidates.size(),
                          failures.empty() ? "" : ": ", fmt::join(failures, "; ")),
              0, std::string(cloud::kReasonInsufficientCapacity));
  }
}

std::vector<std::string> AwsCloudProvider::RecordFleetErrors(
    const PlannedLaunch& launch, const std::vector<FleetError>& errors) {
  std::map<std::string, std::string, std::less<>> zone_of_subnet;
  for (const api::SubnetStatus& subnet : launch.node_class.status.subnets) {
    zone_of_subnet.emplace(subnet.id, subnet.zone);
  }
  std::vector<std::string> failures;
  for (const FleetError& error : errors) {
    failures.push_back(
        fmt::format("{} {} {}: {}", error.instance_type, error.zone, error.code, error.message));
    if (!IsCapacityError(error.code)) continue;
    std::string zone = error.zone;
    if (zone.empty()) {
      if (const auto it = zone_of_subnet.find(error.subnet_id); it != zone_of_subnet.end()) {
        zone = it->second;
      }
    }
    if (launch.plan.capacity_type == api::kCapacityTypeReserved) {
      // The reservation is full (or its capacity is short): no more launches into it until its
      // count is read again; the NodeClaim falls back to what else it allows.
      for (const LaunchCandidate& candidate : launch.plan.candidates) {
        if (candidate.instance_type->name == error.instance_type && candidate.zone == zone &&
            options_.reservation_counts != nullptr) {
          options_.reservation_counts->MarkFull(candidate.reservation_id);
        }
      }
      continue;
    }
    unavailable_.MarkUnavailable(
        error.instance_type, zone,
        error.lifecycle.empty() ? launch.plan.capacity_type : error.lifecycle, error.code);
  }
  return failures;
}

std::map<std::string, Instance, std::less<>> AwsCloudProvider::DescribeLaunched(
    std::span<const FleetInstance> launched) {
  std::map<std::string, Instance, std::less<>> described;
  std::vector<std::string> ids;
  for (const FleetInstance& instance : launched) ids.push_back(instance.instance_id);
  if (ids.empty()) return described;  // (no IDs would describe every instance)
  if (Result<std::vector<Instance>> found = ec2_.DescribeInstances(ids); found.ok()) {
    for (Instance& instance : *found) described.emplace(instance.instance_id, std::move(instance));
  }
  return described;
}

Result<cloud::Instance> AwsCloudProvider::ClaimInstance(
    const PlannedLaunch& launch, const FleetInstance& launched, const Ec2Tags& tags,
    const std::map<std::string, Instance, std::less<>>& described) {
  Instance instance;
  instance.instance_id = launched.instance_id;
  instance.instance_type = launched.instance_type;
  instance.zone = launched.zone;
  instance.subnet_id = launched.subnet_id;
  instance.lifecycle = launched.lifecycle.empty() ? launch.plan.capacity_type : launched.lifecycle;
  instance.tags = tags;
  double price = 0;
  for (const LaunchCandidate& candidate : launch.plan.candidates) {
    if (candidate.instance_type->name == launched.instance_type &&
        (launched.zone.empty() || candidate.zone == launched.zone)) {
      price = launch.ListedPrice(candidate);
      if (instance.zone.empty()) instance.zone = candidate.zone;
      if (instance.image_id.empty()) instance.image_id = candidate.image_id;
      instance.capacity_reservation_id = candidate.reservation_id;
      break;
    }
  }
  // The private DNS name (the Node's name) and the launch time come from EC2.
  if (const auto found = described.find(instance.instance_id); found != described.end()) {
    instance.private_dns_name = found->second.private_dns_name;
    instance.launch_time = found->second.launch_time;
    if (!found->second.image_id.empty()) instance.image_id = found->second.image_id;
    if (!found->second.zone.empty()) instance.zone = found->second.zone;
    if (!found->second.capacity_reservation_id.empty()) {
      instance.capacity_reservation_id = found->second.capacity_reservation_id;
    }
  }
  // The instance is its NodeClaim's once tagged so. Left untagged, no NodeClaim claims it and
  // garbage collection terminates it. Only the instance, and only these two keys: what the scoped
  // controller policy allows after launch (docs/upstream-reference.md §14, statement 4); its
  // volumes carry the launch's tags already.
  Ec2Tags claim_tags = {{std::string(kTagNodeClaim), launch.node_claim->metadata.name}};
  if (!instance.private_dns_name.empty() && !tags.contains(std::string(kTagName))) {
    claim_tags[std::string(kTagName)] = instance.private_dns_name;
  }
  if (Status status = ec2_.CreateTags({instance.instance_id}, claim_tags); !status.ok()) {
    return Error(fmt::format("{}: tagging instance {}: {}", launch.user, instance.instance_id,
                             status.error().message),
                 status.error().status, status.error().reason);
  }
  instance.tags.insert(claim_tags.begin(), claim_tags.end());
  cloud::Instance out =
      ToCloudInstance(instance, launch.FindType(instance.instance_type), launch.node_claim, price);
  out.taints = launch.registration_taints;
  return out;
}

Result<Instance> AwsCloudProvider::DescribeLive(std::string_view provider_id) {
  const std::string id = InstanceIdOf(provider_id);
  if (id.empty()) return NotOwned(fmt::format("{} is not an AWS provider ID", provider_id));
  Result<std::vector<Instance>> described = ec2_.DescribeInstances({id});
  if (!described.ok()) {
    if (described.error().reason == kInstanceNotFound) return NotFound(provider_id, "not found");
    return described.error();
  }
  if (described->empty() || Gone(described->front())) {
    return NotFound(provider_id, "is terminated");
  }
  return std::move(described->front());
}

Status AwsCloudProvider::Delete(std::string_view provider_id) {
  MutexLock lock(mutex_);
  ASSIGN_OR_RETURN(Instance instance, DescribeLive(provider_id));
  if (!Owned(instance)) {
    return NotOwned(
        fmt::format("instance {} is not owned by cluster {} (no {}=owned and {} tags): "
                    "refusing to terminate it",
                    instance.instance_id, options_.cluster_name, ClusterTag(options_.cluster_name),
                    kTagNodePool));
  }
  Result<std::vector<InstanceStateChange>> changes =
      ec2_.TerminateInstances({instance.instance_id});
  if (!changes.ok()) {
    if (changes.error().reason == kInstanceNotFound) return NotFound(provider_id, "not found");
    return changes.error();
  }
  if (options_.reservation_counts != nullptr && !instance.capacity_reservation_id.empty()) {
    options_.reservation_counts->MarkTerminated(instance.capacity_reservation_id);
  }
  return {};
}

Result<cloud::Instance> AwsCloudProvider::Get(std::string_view provider_id) {
  MutexLock lock(mutex_);
  ASSIGN_OR_RETURN(Instance instance, DescribeLive(provider_id));
  if (!Owned(instance)) {
    return NotOwned(
        fmt::format("instance {} is not owned by cluster {}", provider_id, options_.cluster_name));
  }
  return ToCloudInstance(instance, nullptr, nullptr, 0);
}

Result<std::vector<cloud::Instance>> AwsCloudProvider::List() {
  MutexLock lock(mutex_);
  ASSIGN_OR_RETURN(std::vector<Instance> instances, DescribeOwned({}));
  std::vector<cloud::Instance> out;
  out.reserve(instances.size());
  for (const Instance& instance : instances) {
    out.push_back(ToCloudInstance(instance, nullptr, nullptr, 0));
  }
  return out;
}

}  // namespace karpenter::aws
