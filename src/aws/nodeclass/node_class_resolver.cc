#include "aws/nodeclass/node_class_resolver.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "api/condition.h"
#include "api/labels.h"
#include "aws/nodeclass/ami_alias.h"
#include "aws/nodeclass/status_conditions.h"
#include "common/hash.h"

namespace karpenter::aws {
namespace {

constexpr std::string_view kNotFound = "NotFound";
constexpr std::string_view kNoSuchEntity = "NoSuchEntity";
constexpr std::string_view kEntityAlreadyExists = "EntityAlreadyExists";

std::string Prefix(const api::EC2NodeClass& node_class) {
  return "EC2NodeClass " + node_class.metadata.name + ": ";
}

std::string Field(std::string_view list, size_t index) {
  return std::string(list) + "[" + std::to_string(index) + "]";
}

// The EC2 filters for tags of a selector term: "*" matches any value of the key.
void AddTagFilters(const api::Labels& tags, std::vector<QueryFilter>& filters) {
  for (const auto& [key, value] : tags) {
    if (value == "*") {
      filters.push_back(QueryFilter{.name = "tag-key", .values = {key}});
    } else {
      filters.push_back(QueryFilter{.name = "tag:" + key, .values = {value}});
    }
  }
}

std::string DescribeTags(const api::Labels& tags) {
  std::string text = "tags {";
  bool first = true;
  for (const auto& [key, value] : tags) {
    if (!first) text += ", ";
    first = false;
    text += key;
    text += ": ";
    text += value;
  }
  return text + "}";
}

std::string DescribeTerms(const std::vector<api::SelectorTerm>& terms) {
  std::string text = "[";
  for (size_t i = 0; i < terms.size(); ++i) {
    if (i > 0) text += "; ";
    std::vector<std::string> parts;
    if (!terms[i].id.empty()) parts.push_back("id " + terms[i].id);
    if (!terms[i].name.empty()) parts.push_back("name " + terms[i].name);
    if (!terms[i].tags.empty()) parts.push_back(DescribeTags(terms[i].tags));
    for (size_t p = 0; p < parts.size(); ++p) text += (p > 0 ? ", " : "") + parts[p];
  }
  return text + "]";
}

std::string DescribeAmiTerm(const api::AmiSelectorTerm& term) {
  std::vector<std::string> parts;
  if (!term.alias.empty()) parts.push_back("alias " + term.alias);
  if (!term.id.empty()) parts.push_back("id " + term.id);
  if (!term.name.empty()) parts.push_back("name " + term.name);
  if (!term.owner.empty()) parts.push_back("owner " + term.owner);
  if (!term.ssm_parameter.empty()) parts.push_back("ssmParameter " + term.ssm_parameter);
  if (!term.tags.empty()) parts.push_back(DescribeTags(term.tags));
  std::string text;
  for (size_t p = 0; p < parts.size(); ++p) text += (p > 0 ? ", " : "") + parts[p];
  return text;
}

// "arn:aws:iam::1:role/path/Name" and "path/Name" name the role "Name".
std::string RoleName(const std::string& role) {
  const size_t slash = role.rfind('/');
  return slash == std::string::npos ? role : role.substr(slash + 1);
}

// A stable text for a requirement set, to group AMIs by what they are for.
std::string RequirementsKey(std::vector<api::NodeSelectorRequirement> requirements) {
  std::sort(requirements.begin(), requirements.end(),
            [](const api::NodeSelectorRequirement& a, const api::NodeSelectorRequirement& b) {
              return a.key < b.key;
            });
  std::string key;
  for (const api::NodeSelectorRequirement& requirement : requirements) {
    key += requirement.key + " " + std::string(api::ToString(requirement.op));
    for (const std::string& value : requirement.values) key += " " + value;
    key += ";";
  }
  return key;
}

struct AmiCandidate {
  api::AmiStatus status;
  std::string creation_date;
};

// Keeps, per distinct requirement set, the newest image that is not deprecated, else the newest
// deprecated one, as upstream (the smaller id on a tie).
class NewestPerRequirements {
 public:
  explicit NewestPerRequirements(TimePoint now) : now_(now) {}

  void Offer(const Image& image, std::vector<api::NodeSelectorRequirement> requirements) {
    if (!image.state.empty() && image.state != "available") return;
    std::optional<TimePoint> deprecation;
    if (!image.deprecation_time.empty()) deprecation = ParseTime(image.deprecation_time);
    const bool deprecated = deprecation.has_value() && *deprecation <= now_;
    std::string key = RequirementsKey(requirements);
    auto found = best_.find(key);
    if (found != best_.end()) {
      const AmiCandidate& existing = found->second;
      const auto rank = [](bool old, const std::string& date) { return std::pair(!old, date); };
      if (rank(existing.status.deprecated, existing.creation_date) >
          rank(deprecated, image.creation_date)) {
        return;
      }
      if (existing.status.deprecated == deprecated &&
          existing.creation_date == image.creation_date && existing.status.id <= image.image_id) {
        return;
      }
    }
    best_[std::move(key)] =
        AmiCandidate{.status = api::AmiStatus{.id = image.image_id,
                                              .name = image.name,
                                              .requirements = std::move(requirements),
                                              .deprecated = deprecated},
                     .creation_date = image.creation_date};
  }

  // Deprecated ones last, newest first, then by id, then by requirements.
  std::vector<api::AmiStatus> Take() {
    std::vector<std::pair<std::string, AmiCandidate>> entries(best_.begin(), best_.end());
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      if (a.second.status.deprecated != b.second.status.deprecated) {
        return b.second.status.deprecated;
      }
      if (a.second.creation_date != b.second.creation_date) {
        return a.second.creation_date > b.second.creation_date;
      }
      return a.second.status.id < b.second.status.id;
    });
    std::vector<api::AmiStatus> amis;
    amis.reserve(entries.size());
    for (auto& [key, candidate] : entries) amis.push_back(std::move(candidate.status));
    return amis;
  }

 private:
  const TimePoint now_;
  std::map<std::string, AmiCandidate> best_;
};

std::vector<api::NodeSelectorRequirement> WithArchitecture(
    std::string_view architecture, const std::vector<api::NodeSelectorRequirement>& variant) {
  std::vector<api::NodeSelectorRequirement> requirements = {ArchitectureRequirement(architecture)};
  requirements.insert(requirements.end(), variant.begin(), variant.end());
  return requirements;
}

// Images by id; ids EC2 does not know are left out rather than failing the call.
Result<std::vector<Image>> ImagesById(Ec2Api& ec2, const std::vector<std::string>& ids) {
  if (ids.empty()) return std::vector<Image>();
  ImageQuery query;
  query.filters = {QueryFilter{.name = "image-id", .values = ids}};
  return ec2.DescribeImages(query);
}

// Where an AMI term's lookups failed: the class, the term's field and what the term selects.
Error TermError(std::string_view where, const api::AmiSelectorTerm& term, const Error& error) {
  return Error{std::string(where) + " (" + DescribeAmiTerm(term) + "): " + error.message,
               error.status, error.reason};
}

// Offers the images an alias term names to `newest`: those the EKS SSM parameters of the
// cluster's Kubernetes version point at, with the requirements of the variants each serves.
// `where` is the class and the term's field.
Status OfferAliasImages(SsmApi& ssm, Ec2Api& ec2, std::string_view kubernetes_version,
                        const std::string& where, const api::AmiSelectorTerm& term,
                        NewestPerRequirements& newest) {
  Result<AmiAlias> alias = ParseAmiAlias(term.alias);
  if (!alias.ok()) {
    return Error{where + ".alias: " + alias.error().message, 400, std::string(kNotFound)};
  }
  const std::vector<AliasParameter> parameters =
      AliasParameters(*alias, std::string(kubernetes_version));
  if (parameters.empty()) {
    return Error{where + ".alias \"" + term.alias +
                     "\": no such alias (families al2, al2023, bottlerocket with a version "
                     "or latest; windows2019, windows2022, windows2025 with latest)",
                 400, std::string(kNotFound)};
  }
  // Which parameters name each image (one image may serve several variants). One GetParameter
  // each: the controller policy grants ssm:GetParameter, not GetParameters (upstream-reference
  // §14, statement 7); a parameter not published for this version is skipped.
  std::map<std::string, std::vector<const AliasParameter*>> by_image;
  for (const AliasParameter& parameter : parameters) {
    Result<std::string> value = ssm.GetParameter(parameter.name);
    if (value.ok()) {
      by_image[*value].push_back(&parameter);
    } else if (value.error().reason != kParameterNotFound) {
      return TermError(where, term, value.error());
    }
  }
  if (by_image.empty()) {
    return Error{where + ".alias \"" + term.alias + "\": no AMI is published for Kubernetes " +
                     std::string(kubernetes_version) +
                     " (none of the SSM parameters exists, e.g. " + parameters.front().name + ")",
                 404, std::string(kNotFound)};
  }
  std::vector<std::string> ids;
  ids.reserve(by_image.size());
  for (const auto& [id, named] : by_image) ids.push_back(id);
  Result<std::vector<Image>> images = ImagesById(ec2, ids);
  if (!images.ok()) return TermError(where, term, images.error());
  for (const Image& image : *images) {
    for (const AliasParameter* parameter : by_image[image.image_id]) {
      const std::string& architecture =
          image.architecture.empty() ? parameter->architecture : image.architecture;
      for (const auto& variant : parameter->variants) {
        newest.Offer(image, WithArchitecture(architecture, variant));
      }
    }
  }
  return {};
}

// Offers the images a name, owner or tag term selects to `newest`, and adds the images its id and
// ssmParameter name to `ids` (their requirements come from the images, described later in one
// call). `where` is the class and the term's field.
Status OfferSelectedImages(SsmApi& ssm, Ec2Api& ec2, const std::string& where,
                           const api::AmiSelectorTerm& term, NewestPerRequirements& newest,
                           std::vector<std::string>& ids) {
  if (!term.ssm_parameter.empty()) {
    Result<std::string> id = ssm.GetParameter(term.ssm_parameter);
    if (id.ok()) {
      ids.push_back(*id);
    } else if (id.error().reason != kParameterNotFound) {
      return TermError(where, term, id.error());
    }
  }
  if (!term.id.empty()) ids.push_back(term.id);
  if (term.name.empty() && term.tags.empty()) return {};
  ImageQuery query;
  if (!term.owner.empty()) {
    query.owners = {term.owner};
  } else if (term.tags.empty()) {
    query.owners = {"self", "amazon"};  // a bare name means this account's or Amazon's
  }
  if (!term.name.empty()) {
    query.filters.push_back(QueryFilter{.name = "name", .values = {term.name}});
  }
  AddTagFilters(term.tags, query.filters);
  Result<std::vector<Image>> images = ec2.DescribeImages(query);
  if (!images.ok()) return TermError(where, term, images.error());
  for (const Image& image : *images) {
    newest.Offer(image, {ArchitectureRequirement(image.architecture)});
  }
  return {};
}

}  // namespace

NodeClassResolver::NodeClassResolver(Ec2Api& ec2, SsmApi& ssm, IamApi& iam, Options options,
                                     const Clock& clock)
    : ec2_(ec2), ssm_(ssm), iam_(iam), options_(std::move(options)), clock_(clock) {}

Result<std::vector<api::SubnetStatus>> NodeClassResolver::ResolveSubnets(
    const api::EC2NodeClass& node_class) {
  const std::vector<api::SelectorTerm>& terms = node_class.spec.subnet_selector_terms;
  std::map<std::string, Subnet> found;
  for (size_t i = 0; i < terms.size(); ++i) {
    std::vector<QueryFilter> filters;
    if (!terms[i].id.empty()) {
      filters.push_back(QueryFilter{.name = "subnet-id", .values = {terms[i].id}});
    }
    AddTagFilters(terms[i].tags, filters);
    if (filters.empty()) continue;  // an empty term would select every subnet
    Result<std::vector<Subnet>> subnets = ec2_.DescribeSubnets(filters);
    if (!subnets.ok()) {
      return Error{Prefix(node_class) + Field("spec.subnetSelectorTerms", i) + ": " +
                       subnets.error().message,
                   subnets.error().status, subnets.error().reason};
    }
    for (Subnet& subnet : *subnets) found.emplace(subnet.subnet_id, std::move(subnet));
  }
  if (found.empty()) {
    return Error{
        Prefix(node_class) + "no subnet matches spec.subnetSelectorTerms " + DescribeTerms(terms),
        404, std::string(kNotFound)};
  }
  std::vector<Subnet> subnets;
  subnets.reserve(found.size());
  for (auto& [id, subnet] : found) subnets.push_back(std::move(subnet));
  std::stable_sort(subnets.begin(), subnets.end(), [](const Subnet& a, const Subnet& b) {
    return a.available_ip_address_count > b.available_ip_address_count;
  });
  std::vector<api::SubnetStatus> statuses;
  statuses.reserve(subnets.size());
  for (const Subnet& subnet : subnets) {
    statuses.push_back(
        api::SubnetStatus{.id = subnet.subnet_id, .zone = subnet.zone, .zone_id = subnet.zone_id});
  }
  return statuses;
}

Result<std::vector<api::SecurityGroupStatus>> NodeClassResolver::ResolveSecurityGroups(
    const api::EC2NodeClass& node_class) {
  const std::vector<api::SelectorTerm>& terms = node_class.spec.security_group_selector_terms;
  std::map<std::string, SecurityGroup> found;  // by id, so the status is sorted by id
  for (size_t i = 0; i < terms.size(); ++i) {
    std::vector<QueryFilter> filters;
    if (!terms[i].id.empty()) {
      filters.push_back(QueryFilter{.name = "group-id", .values = {terms[i].id}});
    }
    if (!terms[i].name.empty()) {
      filters.push_back(QueryFilter{.name = "group-name", .values = {terms[i].name}});
    }
    AddTagFilters(terms[i].tags, filters);
    if (filters.empty()) continue;
    Result<std::vector<SecurityGroup>> groups = ec2_.DescribeSecurityGroups(filters);
    if (!groups.ok()) {
      return Error{Prefix(node_class) + Field("spec.securityGroupSelectorTerms", i) + ": " +
                       groups.error().message,
                   groups.error().status, groups.error().reason};
    }
    for (SecurityGroup& group : *groups) found.emplace(group.group_id, std::move(group));
  }
  if (found.empty()) {
    return Error{Prefix(node_class) + "no security group matches spec.securityGroupSelectorTerms " +
                     DescribeTerms(terms),
                 404, std::string(kNotFound)};
  }
  std::vector<api::SecurityGroupStatus> statuses;
  statuses.reserve(found.size());
  for (const auto& [id, group] : found) {
    statuses.push_back(api::SecurityGroupStatus{.id = group.group_id, .name = group.group_name});
  }
  return statuses;
}

Result<std::vector<api::AmiStatus>> NodeClassResolver::ResolveAmis(
    const api::EC2NodeClass& node_class) {
  const std::vector<api::AmiSelectorTerm>& terms = node_class.spec.ami_selector_terms;
  NewestPerRequirements newest(clock_.Now());
  std::vector<std::string> plain_ids;  // id and ssmParameter terms: requirements from the image
  const std::string kubernetes_version =
      options_.kubernetes_version ? options_.kubernetes_version() : std::string();
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string where = Prefix(node_class) + Field("spec.amiSelectorTerms", i);
    RETURN_IF_ERROR(
        terms[i].alias.empty()
            ? OfferSelectedImages(ssm_, ec2_, where, terms[i], newest, plain_ids)
            : OfferAliasImages(ssm_, ec2_, kubernetes_version, where, terms[i], newest));
  }
  Result<std::vector<Image>> images = ImagesById(ec2_, plain_ids);
  if (!images.ok()) {
    return Error{Prefix(node_class) + "spec.amiSelectorTerms ids: " + images.error().message,
                 images.error().status, images.error().reason};
  }
  for (const Image& image : *images) {
    newest.Offer(image, {ArchitectureRequirement(image.architecture)});
  }

  std::vector<api::AmiStatus> amis = newest.Take();
  if (amis.empty()) {
    std::string described;
    for (size_t i = 0; i < terms.size(); ++i) {
      described += (i > 0 ? "; " : "") + DescribeAmiTerm(terms[i]);
    }
    return Error{
        Prefix(node_class) + "no available AMI matches spec.amiSelectorTerms [" + described + "]",
        404, std::string(kNotFound)};
  }
  return amis;
}

Result<NodeClassResolver::SelectedReservations> NodeClassResolver::ResolveCapacityReservations(
    const api::EC2NodeClass& node_class) {
  const std::vector<api::CapacityReservationSelectorTerm>& terms =
      node_class.spec.capacity_reservation_selector_terms;
  std::map<std::string, CapacityReservation, std::less<>> found;  // by id: terms overlap
  for (size_t i = 0; i < terms.size(); ++i) {
    const api::CapacityReservationSelectorTerm& term = terms[i];
    std::vector<std::string> ids;
    std::vector<QueryFilter> filters = {{.name = "state", .values = {"active"}}};
    if (!term.id.empty()) {
      ids.push_back(term.id);
    } else {
      if (!term.owner_id.empty()) {
        filters.push_back({.name = "owner-id", .values = {term.owner_id}});
      }
      if (!term.instance_match_criteria.empty()) {
        filters.push_back(
            {.name = "instance-match-criteria", .values = {term.instance_match_criteria}});
      }
      AddTagFilters(term.tags, filters);
    }
    Result<std::vector<CapacityReservation>> reservations =
        ec2_.DescribeCapacityReservations(ids, filters);
    if (!reservations.ok()) {
      // A reservation named by id that is gone (or never was) selects nothing.
      if (!term.id.empty() &&
          reservations.error().reason == "InvalidCapacityReservationId.NotFound") {
        continue;
      }
      return Error(Prefix(node_class) + Field("spec.capacityReservationSelectorTerms", i) + ": " +
                       reservations.error().message,
                   reservations.error().status, reservations.error().reason);
    }
    for (CapacityReservation& reservation : *reservations) {
      std::string id = reservation.id;
      found.insert_or_assign(std::move(id), std::move(reservation));
    }
  }
  const TimePoint now = clock_.Now();
  SelectedReservations selected;
  for (const auto& [id, reservation] : found) {
    if (reservation.state != "active" ||
        (reservation.end_date.has_value() && *reservation.end_date <= now)) {
      continue;
    }
    if (reservation.reservation_type == "capacity-block") {
      selected.capacity_blocks.push_back(id);
      continue;
    }
    if (options_.reservation_counts != nullptr) {
      options_.reservation_counts->Sync(id, reservation.available_instance_count);
    }
    api::CapacityReservationStatus status;
    status.id = id;
    status.instance_type = reservation.instance_type;
    status.owner_id = reservation.owner_id;
    status.zone = reservation.zone;
    status.instance_match_criteria = reservation.instance_match_criteria;
    if (reservation.end_date.has_value()) status.end_time = FormatTime(*reservation.end_date);
    selected.reservations.push_back(std::move(status));
  }
  return selected;
}

std::string NodeClassResolver::InstanceProfileName(const api::EC2NodeClass& node_class) const {
  return options_.cluster_name + "_" +
         std::to_string(Fnv1a64(options_.region + "/" + node_class.metadata.name));
}

IamTags NodeClassResolver::InstanceProfileTags(const api::EC2NodeClass& node_class) const {
  IamTags tags(node_class.spec.tags.begin(), node_class.spec.tags.end());
  tags["kubernetes.io/cluster/" + options_.cluster_name] = "owned";
  tags["eks:eks-cluster-name"] = options_.cluster_name;
  tags["karpenter.sh/managed-by"] = options_.cluster_name;
  tags[std::string(api::kLabelNodeClass)] = node_class.metadata.name;
  tags[std::string(api::kLabelRegion)] = options_.region;
  return tags;
}

Result<std::string> NodeClassResolver::ResolveInstanceProfile(const api::EC2NodeClass& node_class) {
  const api::EC2NodeClassSpec& spec = node_class.spec;
  if (!spec.instance_profile.empty()) {
    Result<std::optional<InstanceProfile>> profile = iam_.GetInstanceProfile(spec.instance_profile);
    if (!profile.ok()) {
      return Error{Prefix(node_class) + "spec.instanceProfile " + spec.instance_profile + ": " +
                       profile.error().message,
                   profile.error().status, profile.error().reason};
    }
    if (!profile->has_value()) {
      return Error{Prefix(node_class) + "spec.instanceProfile " + spec.instance_profile +
                       ": no such instance profile",
                   404, std::string(kNotFound)};
    }
    return spec.instance_profile;
  }
  if (spec.role.empty()) {
    return Error{Prefix(node_class) + "neither spec.role nor spec.instanceProfile is set", 400,
                 "Invalid"};
  }
  const std::string name = InstanceProfileName(node_class);
  const std::string role = RoleName(spec.role);
  auto failed = [&](std::string_view step, const Error& error) {
    return Error{Prefix(node_class) + "spec.role " + spec.role + ": " + std::string(step) +
                     " instance profile " + name + ": " + error.message,
                 error.status, error.reason};
  };
  const IamTags tags = InstanceProfileTags(node_class);

  Result<std::optional<InstanceProfile>> existing = iam_.GetInstanceProfile(name);
  if (!existing.ok()) return failed("reading", existing.error());
  InstanceProfile profile;
  if (existing->has_value()) {
    profile = std::move(**existing);
  } else {
    const std::string path = "/karpenter/" + options_.region + "/" + options_.cluster_name + "/";
    Result<InstanceProfile> created = iam_.CreateInstanceProfile(name, path, tags);
    if (created.ok()) {
      profile = std::move(*created);
    } else if (created.error().reason == kEntityAlreadyExists) {  // made meanwhile: use it
      Result<std::optional<InstanceProfile>> again = iam_.GetInstanceProfile(name);
      if (!again.ok()) return failed("reading", again.error());
      if (!again->has_value()) return failed("creating", created.error());
      profile = std::move(**again);
    } else {
      return failed("creating", created.error());
    }
  }

  // Any tag missing or changed: all of them again, as the scoped policy wants the ownership tags
  // in the request of every TagInstanceProfile (upstream-reference §14, statement 11).
  const bool stale = std::any_of(tags.begin(), tags.end(), [&](const auto& tag) {
    const auto found = profile.tags.find(tag.first);
    return found == profile.tags.end() || found->second != tag.second;
  });
  if (stale) {
    Status tagged = iam_.TagInstanceProfile(name, tags);
    if (!tagged.ok()) return failed("tagging", tagged.error());
  }

  bool has_role = false;
  for (const IamRole& attached : profile.roles) {
    if (attached.name == role) {
      has_role = true;
      continue;
    }
    Status removed = iam_.RemoveRoleFromInstanceProfile(name, attached.name);
    if (!removed.ok() && removed.error().reason != kNoSuchEntity) {
      return failed("removing role " + attached.name + " from", removed.error());
    }
  }
  if (!has_role) {
    Status added = iam_.AddRoleToInstanceProfile(name, role);
    if (!added.ok()) return failed("adding role " + role + " to", added.error());
  }
  return name;
}

Status NodeClassResolver::Finalize(const api::EC2NodeClass& node_class) {
  if (node_class.spec.role.empty()) return {};
  const std::string name = InstanceProfileName(node_class);
  auto failed = [&](std::string_view step, const Error& error) {
    return Error{
        Prefix(node_class) + std::string(step) + " instance profile " + name + ": " + error.message,
        error.status, error.reason};
  };
  Result<std::optional<InstanceProfile>> profile = iam_.GetInstanceProfile(name);
  if (!profile.ok()) return failed("reading", profile.error());
  if (!profile->has_value()) return {};
  // Only a profile this cluster owns: one someone else made under this name stays.
  const IamTags& tags = (*profile)->tags;
  auto owner = tags.find("kubernetes.io/cluster/" + options_.cluster_name);
  if (owner == tags.end() || owner->second != "owned") return {};
  for (const IamRole& role : (*profile)->roles) {
    Status removed = iam_.RemoveRoleFromInstanceProfile(name, role.name);
    if (!removed.ok() && removed.error().reason != kNoSuchEntity) {
      return failed("removing role " + role.name + " from", removed.error());
    }
  }
  Status deleted = iam_.DeleteInstanceProfile(name);
  if (!deleted.ok() && deleted.error().reason != kNoSuchEntity) {
    return failed("deleting", deleted.error());
  }
  return {};
}

api::EC2NodeClass::Status NodeClassResolver::Resolve(const api::EC2NodeClass& node_class,
                                                     const ResolveParts& parts) {
  api::EC2NodeClass::Status status = node_class.status;
  const TimePoint now = clock_.Now();
  const int64_t generation = node_class.metadata.generation;
  // A part that matched nothing is emptied; one that failed keeps its previous value.
  auto report = [&](std::string_view type, const Error* error, std::string_view not_found_reason,
                    std::string_view failed_reason) {
    if (error == nullptr) {
      SetStatusCondition(status.conditions, type, true, type, "", now, generation);
      return;
    }
    const bool not_found = error->reason == kNotFound;
    SetStatusCondition(status.conditions, type, false, not_found ? not_found_reason : failed_reason,
                       error->message, now, generation);
  };

  // A part's new value: what resolved, emptied when nothing matched, kept when the call failed.
  auto update = [&](auto resolved, auto& field, std::string_view type,
                    std::string_view not_found_reason, std::string_view failed_reason) {
    if (resolved.ok()) {
      field = std::move(*resolved);
    } else if (resolved.error().reason == kNotFound) {
      field = {};
    }
    report(type, resolved.ok() ? nullptr : &resolved.error(), not_found_reason, failed_reason);
  };
  if (parts.subnets) {
    update(ResolveSubnets(node_class), status.subnets, api::kConditionSubnetsReady,
           "SubnetsNotFound", "SubnetsResolutionFailed");
  }
  if (parts.security_groups) {
    update(ResolveSecurityGroups(node_class), status.security_groups,
           api::kConditionSecurityGroupsReady, "SecurityGroupsNotFound",
           "SecurityGroupsResolutionFailed");
  }
  if (parts.amis) {
    update(ResolveAmis(node_class), status.amis, api::kConditionAmisReady, "AMINotFound",
           "AMIResolutionFailed");
  }
  if (parts.instance_profile) {
    update(ResolveInstanceProfile(node_class), status.instance_profile,
           api::kConditionInstanceProfileReady, "InstanceProfileNotFound",
           "InstanceProfileResolutionFailed");
  }
  if (parts.capacity_reservations && options_.reserved_capacity) {
    // Selecting no reservation is fine (as upstream): only a failed read makes it False.
    Result<SelectedReservations> reservations = ResolveCapacityReservations(node_class);
    if (reservations.ok()) {
      status.capacity_reservations = std::move(reservations->reservations);
      // A capacity block is refused rather than ignored: launching into one needs its own market
      // type and draining before the block ends (docs/differences-from-upstream.md).
      const std::vector<std::string>& blocks = reservations->capacity_blocks;
      SetStatusCondition(
          status.conditions, api::kConditionCapacityReservationsReady, blocks.empty(),
          blocks.empty() ? api::kConditionCapacityReservationsReady : "CapacityBlocksUnsupported",
          blocks.empty()
              ? ""
              : fmt::format("{}spec.capacityReservationSelectorTerms select capacity blocks ({}), "
                            "which karpenter-cpp does not support yet; select only default "
                            "reservations",
                            Prefix(node_class), fmt::join(blocks, ", ")),
          now, generation);
    } else {
      SetStatusCondition(status.conditions, api::kConditionCapacityReservationsReady, false,
                         "CapacityReservationResolutionFailed", reservations.error().message, now,
                         generation);
    }
  }

  SetNodeClassReady(status.conditions, now, generation);
  return status;
}

}  // namespace karpenter::aws
