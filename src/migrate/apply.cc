#include "migrate/apply.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "aws/api/ec2_api.h"
#include "aws/api/eks_api.h"
#include "aws/api/iam_api.h"
#include "aws/iam/controller_policy.h"
#include "common/document.h"
#include "kube/object.h"
#include "migrate/artifacts.h"
#include "migrate/inventory.h"
#include "migrate/node_pools.h"
#include "migrate/record.h"
#include "migrate/settle.h"
#include "migrate/steps.h"
#include "migrate/verify.h"

namespace karpenter::migrate {
namespace {

using kube::Object;

// A file of `text` in the temporary directory, for helm to read; the caller removes it.
Result<std::string> WriteTemporary(const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() / "karpenter-values-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) return Error(fmt::format("{}: {}", path, std::strerror(errno)));
  const ssize_t written = write(fd, text.data(), text.size());
  close(fd);
  if (written != static_cast<ssize_t>(text.size())) {
    std::remove(path.c_str());
    return Error(fmt::format("{}: a short write", path));
  }
  return path;
}

// The Helm release step 5 installs.
constexpr std::string_view kRelease = "karpenter";

// `args` with helm's --kubeconfig when one is given.
std::vector<std::string> Helm(std::vector<std::string> args, const std::string& kubeconfig) {
  args.insert(args.begin(), "helm");
  if (!kubeconfig.empty()) {
    args.emplace_back("--kubeconfig");
    args.push_back(kubeconfig);
  }
  return args;
}

template <class T>
void AddOnce(std::vector<T>& list, T item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
}

// The recorded change of namespace/name, or null.
ChangedDeployment* Recorded(std::vector<ChangedDeployment>& list, std::string_view namespace_,
                            std::string_view name) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const ChangedDeployment& change) {
    return change.namespace_ == namespace_ && change.name == name;
  });
  return it != list.end() ? &*it : nullptr;
}

// The mapRoles entry `karpenter iam aws-auth` prints for the role of `role_arn`
// (arn:<partition>:iam::<account>:role/<name>).
std::string AwsAuthEntry(const std::string& role_arn) {
  const Arn arn = ParseArn(role_arn);
  aws::iam::PolicyInputs inputs;
  if (!arn.partition.empty()) inputs.partition = arn.partition;
  inputs.account = arn.account;
  inputs.node_role = arn.resource.substr(arn.resource.rfind('/') + 1);
  return aws::iam::AwsAuthMapRoles(inputs);
}

// aws-auth's mapRoles with the node role's entry added: appended as text to a block sequence, so
// that the rest keeps its form and comments; a flow sequence is written again as JSON (which is
// YAML).
Result<std::string> WithRole(std::string_view map_roles, const std::string& entry) {
  const size_t first = map_roles.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return entry;
  if (map_roles[first] != '[') {
    std::string out(map_roles);
    if (!out.ends_with('\n')) out.push_back('\n');
    return out + entry;
  }
  ASSIGN_OR_RETURN(const std::vector<Document> documents,
                   ParseDocuments(map_roles, "configmap kube-system/aws-auth data.mapRoles"));
  ASSIGN_OR_RETURN(const std::vector<Document> added, ParseDocuments(entry, "the node role entry"));
  Json roles = documents.empty() ? Json::array() : documents.front().value;
  roles.push_back(added.front().value.front());
  return roles.dump(2) + "\n";
}

// mapRoles without `role_arn`'s entries: the entry apply appended is cut out as it was written;
// else the entries are parsed and the rest written again as JSON.
Result<std::string> WithoutRole(std::string_view map_roles, const std::string& role_arn,
                                const std::string& entry) {
  std::string out(map_roles);
  if (const size_t at = out.find(entry); at != std::string::npos) {
    out.erase(at, entry.size());
    return out;
  }
  ASSIGN_OR_RETURN(const std::vector<Document> documents,
                   ParseDocuments(map_roles, "configmap kube-system/aws-auth data.mapRoles"));
  Json kept = Json::array();
  if (!documents.empty() && documents.front().value.is_array()) {
    for (const Json& role : documents.front().value) {
      if (kube::StringAt(role, {"rolearn"}) != role_arn) kept.push_back(role);
    }
  }
  return kept.empty() ? std::string() : kept.dump(2) + "\n";
}

// The pod template's affinity with a required node affinity onto `node_group` added to every
// term (a term may only match the group's nodes).
Json PinnedAffinity(const Json& before, const std::string& node_group) {
  Json affinity = before.is_object() ? before : Json::object();
  const Json requirement = {{"key", kLabelNodeGroup}, {"operator", "In"}, {"values", {node_group}}};
  Json& required = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
  Json& terms = required["nodeSelectorTerms"];
  if (!terms.is_array() || terms.empty()) {
    terms = Json::array({{{"matchExpressions", Json::array({requirement})}}});
    return affinity;
  }
  for (Json& term : terms) term["matchExpressions"].push_back(requirement);
  return affinity;
}

const Object* FindObject(const std::vector<kube::SharedObject>& list, std::string_view namespace_,
                         std::string_view name) {
  for (const kube::SharedObject& object : list) {
    if (kube::Namespace(*object) == namespace_ && kube::Name(*object) == name) return object.get();
  }
  return nullptr;
}

// A JSON patch that sets the pod template's affinity (null: removes it, when it has one).
Json AffinityPatch(const Json& affinity, bool has_one) {
  if (affinity.is_null()) {
    return has_one ? Json::array({{{"op", "remove"}, {"path", "/spec/template/spec/affinity"}}})
                   : Json::array();
  }
  return Json::array(
      {{{"op", "add"}, {"path", "/spec/template/spec/affinity"}, {"value", affinity}}});
}

class Migration {
 public:
  Migration(aws::AwsClients& clients, kube::Client& cluster, std::string cluster_name,
            std::string namespace_, bool dry_run, std::ostream& out)
      : clients_(clients),
        cluster_(cluster),
        cluster_name_(std::move(cluster_name)),
        namespace_(std::move(namespace_)),
        dry_run_(dry_run),
        out_(out) {}

  // Reads the record, or starts one.
  Status Load() {
    ASSIGN_OR_RETURN(std::optional<MigrationRecord> record, LoadRecord(cluster_, namespace_));
    if (record && record->cluster != cluster_name_) {
      return Error(fmt::format("configmap {}/{} records the migration of cluster {}, not {}",
                               namespace_, kRecordName, record->cluster, cluster_name_));
    }
    if (record) {
      record_ = std::move(*record);
    } else {
      record_.cluster = cluster_name_;
    }
    exists_ = record.has_value();
    return {};
  }

  bool exists() const { return exists_; }
  MigrationRecord& record() { return record_; }
  aws::AwsClients& clients() { return clients_; }
  kube::Client& cluster() { return cluster_; }
  bool dry_run() const { return dry_run_; }
  std::ostream& out() { return out_; }

  // Stores the record (not on a dry run).
  Status Save() {
    if (dry_run_) return {};
    RETURN_IF_ERROR(SaveRecord(cluster_, namespace_, record_));
    exists_ = true;
    return {};
  }

  Status Forget() {
    if (dry_run_ || !exists_) return {};
    RETURN_IF_ERROR(DeleteRecord(cluster_, namespace_));
    exists_ = false;
    return {};
  }

  // "would …" on a dry run.
  void Say(int step, std::string_view what) {
    out_ << fmt::format("step {}: {}{}\n", step, dry_run_ ? "would " : "", what);
  }

 private:
  aws::AwsClients& clients_;
  kube::Client& cluster_;
  std::string cluster_name_;
  std::string namespace_;
  bool dry_run_;
  std::ostream& out_;
  MigrationRecord record_;
  bool exists_ = false;
};

class Applier {
 public:
  Applier(Migration& migration, const ApplyOptions& options, const ApplyHooks& hooks)
      : m_(migration), options_(options), hooks_(hooks) {}

  Status Run(int number) {
    Result<MigrationState> read =
        ReadMigrationState(m_.clients(), m_.cluster(), options_.cluster_name);
    if (!read.ok()) {
      return Error(fmt::format("step {}: reading the account and the cluster: {}", number,
                               read.error().message));
    }
    const MigrationState& now = *read;
    const Step& step = now.plan.steps[number - 1];
    Status result = [&]() -> Status {
      // A role created before a stop may still lack its policies: step 2 finishes what the record
      // names even when both roles exist.
      if (number == 9) return Verify(now);
      if (step.state == StepState::kDone && !(number == 2 && !m_.record().roles.empty())) {
        m_.out() << fmt::format("step {} ({}): done already: {}\n", number, step.title,
                                fmt::join(step.details, "; "));
        return number == 8 && !m_.dry_run() ? SettleRecorded(now) : Status();
      }
      if (step.state == StepState::kBlocked) {
        return Error(fmt::format("blocked: {}", fmt::join(step.details, "; ")));
      }
      switch (number) {
        case 2:
          return Roles(now);
        case 3:
          return Tags(now);
        case 4:
          return Access(now);
        case 5:
          return Deploy(now);
        case 6:
          return NodePools(now);
        case 7:
          return Pin(now);
        case 8:
          return Retire(now);
        default:
          return Error(fmt::format("{}", fmt::join(step.details, "; ")));
      }
    }();
    if (!result.ok()) {
      return Error(fmt::format("step {} ({}): {}", number, step.title, result.error().message));
    }
    gone_through_.insert(number);
    return {};
  }

 private:
  Status Crash(std::string_view point) {
    if (hooks_.crash_at && hooks_.crash_at(point)) {
      return Error(fmt::format("stopped at crash point \"{}\"", point));
    }
    return {};
  }

  // The seed's step 9 and more (verify.h); an error names the checks that fail.
  Status Verify(const MigrationState& now) {
    std::vector<std::string> failed;
    for (const Check& check :
         VerifyMigration({&now.aws, &now.objects, &now.cluster, &now.plan, options_.namespace_})) {
      m_.out() << fmt::format("step 9: {} {}: {}\n", check.ok ? "ok  " : "FAIL", check.name,
                              check.detail);
      if (!check.ok) failed.push_back(check.name);
    }
    if (failed.empty()) return {};
    return Error(fmt::format("not verified: {}", fmt::join(failed, "; ")));
  }

  // The node role with its managed policies, and the controller role (IRSA, for the chart's
  // ServiceAccount) with the controller policy inline — `karpenter iam`'s documents.
  Status Roles(const MigrationState& now) {
    ASSIGN_OR_RETURN(const std::vector<RoleArtifact> artifacts,
                     SeedRoles(now.aws, options_.namespace_));
    std::vector<const RoleArtifact*> roles;
    for (const RoleArtifact& role : artifacts) {
      const bool exists = role.inline_policy_name.empty() ? now.aws.node_role_exists
                                                          : now.aws.controller_role_exists;
      if (!exists) m_.Say(2, "create IAM role " + role.name);
      const bool recorded = std::find(m_.record().roles.begin(), m_.record().roles.end(),
                                      role.name) != m_.record().roles.end();
      if (!exists || recorded) roles.push_back(&role);
    }
    if (m_.dry_run()) return {};
    for (const RoleArtifact* role : roles) AddOnce(m_.record().roles, role->name);
    RETURN_IF_ERROR(m_.Save());
    RETURN_IF_ERROR(Crash("step 2: recorded"));
    aws::IamApi iam(m_.clients().iam());
    const aws::IamTags tags = {{std::string(kLabelManagedBy), std::string(kManagedBy)}};
    for (const RoleArtifact* role : roles) {
      Result<aws::IamRole> created = iam.CreateRole(role->name, role->trust.dump(), tags);
      // One created before a stop, after the record.
      if (!created.ok() && created.error().reason != "EntityAlreadyExists") {
        return created.error();
      }
      for (const std::string& policy : role->managed_policies) {
        RETURN_IF_ERROR(iam.AttachRolePolicy(role->name, policy));
      }
      if (!role->inline_policy_name.empty()) {
        RETURN_IF_ERROR(
            iam.PutRolePolicy(role->name, role->inline_policy_name, role->inline_policy.dump()));
      }
    }
    return Crash("step 2: changed");
  }

  // The chart, as the seed installs it: its values, and the affinity edit that keeps the controller
  // on the node group and off the nodes it manages.
  Status Deploy(const MigrationState& now) {
    if (now.plan.steps[1].state != StepState::kDone && !gone_through_.contains(2)) {
      return Error("the controller needs its IAM role first (step 2); nothing changed");
    }
    if (options_.chart.empty()) {
      return Error(
          "give --chart: the karpenter-cpp chart helm installs (a directory, a .tgz or an oci:// "
          "reference); nothing changed");
    }
    const bool queue = now.aws.interruption_queue;
    const std::string& group = now.plan.controller_node_group;
    const Json values = ChartValues(now.aws, group);
    std::vector<std::string> args = {"upgrade",
                                     "--install",
                                     std::string(kRelease),
                                     options_.chart,
                                     "--namespace",
                                     options_.namespace_,
                                     "--values",
                                     ""};
    for (const std::string& file : options_.values_files) {
      args.emplace_back("--values");
      args.push_back(file);
    }
    args.emplace_back("--wait");
    args.emplace_back("--timeout");
    args.push_back(fmt::format("{}s", options_.settle_timeout.count()));
    m_.Say(5,
           fmt::format("install chart {} as release {} in {} with the controller required onto "
                       "node group {}{}",
                       options_.chart, kRelease, options_.namespace_, group,
                       queue ? "" : " (no interruption queue: settings.interruptionQueue unset)"));
    if (m_.dry_run()) return {};
    if (!hooks_.run) return Error("apply cannot run helm here");
    m_.record().chart_release = std::string(kRelease);
    RETURN_IF_ERROR(m_.Save());
    RETURN_IF_ERROR(Crash("step 5: recorded"));
    ASSIGN_OR_RETURN(const std::string values_file, WriteTemporary(values.dump(2)));
    args[7] = values_file;
    Result<std::string> installed = hooks_.run(Helm(std::move(args), options_.kubeconfig));
    std::remove(values_file.c_str());
    if (!installed.ok()) {
      if (installed.error().reason == "NotFound") {
        return Error("step 5 runs helm, which is not on the PATH (the seed installs with helm)");
      }
      return installed.error();
    }
    return Crash("step 5: changed");
  }

  Status Tags(const MigrationState& now) {
    std::vector<std::string> ids;
    for (const auto* resources : {&now.aws.subnets, &now.aws.security_groups}) {
      for (const TaggedResource& resource : *resources) {
        if (!resource.tagged) ids.push_back(resource.id);
      }
    }
    const std::string tag = fmt::format("{}={}", kDiscoveryTag, options_.cluster_name);
    if (!ids.empty()) {
      m_.Say(3, fmt::format("tag {} with {}", fmt::join(ids, ", "), tag));
      if (!m_.dry_run()) {
        for (const std::string& id : ids) AddOnce(m_.record().tagged, id);
        RETURN_IF_ERROR(m_.Save());
        RETURN_IF_ERROR(Crash("step 3: recorded"));
        aws::Ec2Api ec2(m_.clients().ec2());
        RETURN_IF_ERROR(ec2.CreateTags(ids, {{std::string(kDiscoveryTag), options_.cluster_name}}));
        RETURN_IF_ERROR(Crash("step 3: changed"));
      }
    }
    if (now.aws.security_groups.empty()) {
      return Error(fmt::format(
          "the cluster names no security group: tag the node groups' security group with {} "
          "yourself, then run apply again",
          tag));
    }
    return {};
  }

  Status Access(const MigrationState& now) {
    const std::string role = NodeRoleArn(now.aws.cluster);
    if (now.aws.cluster.authentication_mode != "CONFIG_MAP") {
      m_.Say(4, fmt::format("create an EKS access entry of type EC2_LINUX for {}", role));
      if (m_.dry_run()) return {};
      m_.record().access_entry = role;
      RETURN_IF_ERROR(m_.Save());
      RETURN_IF_ERROR(Crash("step 4: recorded"));
      aws::EksApi eks(m_.clients().eks());
      Status created = eks.CreateAccessEntry(options_.cluster_name, role, "EC2_LINUX");
      // One created before a crash, after the record.
      if (!created.ok() && created.error().reason != "ResourceInUseException") return created;
      return Crash("step 4: changed");
    }
    const std::string entry = AwsAuthEntry(role);
    const std::optional<Object>& aws_auth = now.objects.aws_auth;
    m_.Say(4, aws_auth ? fmt::format("add {} to kube-system/aws-auth's mapRoles", role)
                       : fmt::format("create kube-system/aws-auth mapping {}", role));
    if (m_.dry_run()) return {};
    if (m_.record().aws_auth_role.empty()) m_.record().aws_auth_created = !aws_auth;
    m_.record().aws_auth_role = role;
    RETURN_IF_ERROR(m_.Save());
    RETURN_IF_ERROR(Crash("step 4: recorded"));
    Result<Object> written = [&]() -> Result<Object> {
      if (!aws_auth) {
        return m_.cluster().Create(
            kube::resources::kConfigMaps,
            {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "aws-auth"}, {"namespace", "kube-system"}}},
             {"data", {{"mapRoles", entry}}}},
            {});
      }
      ASSIGN_OR_RETURN(const std::string map_roles,
                       WithRole(kube::StringAt(*aws_auth, {"data", "mapRoles"}), entry));
      Object updated = *aws_auth;
      updated["data"]["mapRoles"] = map_roles;
      return m_.cluster().Update(kube::resources::kConfigMaps, updated, kube::Subresource::kNone);
    }();
    if (!written.ok()) {
      return Error("writing configmap kube-system/aws-auth: " + written.error().message);
    }
    return Crash("step 4: changed");
  }

  Status NodePools(const MigrationState& now) {
    const DerivedNodePools derived = DeriveNodePools(
        {options_.cluster_name, PinnedAliasVersion(options_.alias_version, now.aws.alias_version),
         now.aws.node_groups});
    if (derived.node_pools.empty()) {
      return Error(
          fmt::format("no node group can be carried over: {}", fmt::join(derived.notes, "; ")));
    }
    if (Result<kube::ObjectList> pools = m_.cluster().List(kube::resources::kNodePools, {});
        !pools.ok()) {
      return pools.error().status == 404
                 ? Error("Karpenter's CRDs are not installed: step 5 installs them")
                 : Error("listing NodePools: " + pools.error().message);
    }
    std::vector<std::pair<const kube::Resource*, Json>> missing;
    for (const auto& [resource, objects] :
         {std::pair{&kube::resources::kEC2NodeClasses, &derived.node_classes},
          std::pair{&kube::resources::kNodePools, &derived.node_pools}}) {
      for (const Json& object : *objects) {
        const std::string name(kube::Name(object));
        Result<Object> existing = m_.cluster().Get(*resource, "", name);
        if (existing.ok()) continue;
        if (existing.error().status != 404) {
          return Error(
              fmt::format("reading {} {}: {}", resource->kind, name, existing.error().message));
        }
        Json labelled = object;
        labelled["metadata"]["labels"][std::string(kLabelManagedBy)] = kManagedBy;
        missing.emplace_back(resource, std::move(labelled));
      }
    }
    for (const auto& [resource, object] : missing) {
      m_.Say(6, fmt::format("create {} {}", resource->kind, kube::Name(object)));
    }
    if (m_.dry_run()) return {};
    for (const auto& [resource, object] : missing) {
      AddOnce(m_.record().created,
              CreatedObject{std::string(resource->kind), std::string(kube::Name(object))});
    }
    RETURN_IF_ERROR(m_.Save());
    RETURN_IF_ERROR(Crash("step 6: recorded"));
    for (const auto& [resource, object] : missing) {
      Result<Object> created = m_.cluster().Create(*resource, object, {});
      // 409: created before a crash, after the record.
      if (!created.ok() && created.error().status != 409) {
        return Error(fmt::format("creating {} {}: {}", resource->kind, kube::Name(object),
                                 created.error().message));
      }
    }
    return Crash("step 6: changed");
  }

  Status Pin(const MigrationState& now) {
    const std::string& group = now.plan.controller_node_group;
    std::vector<std::pair<const WorkloadRef*, Json>> changes;
    for (const WorkloadRef& ref : now.cluster.unpinned_add_ons) {
      const Object* deployment = FindObject(now.objects.deployments, ref.namespace_, ref.name);
      if (deployment == nullptr) continue;
      const Object* affinity = kube::Find(*deployment, {"spec", "template", "spec", "affinity"});
      changes.emplace_back(&ref, affinity != nullptr ? *affinity : Json());
      m_.Say(7, fmt::format("require {} onto node group {}", ref.Describe(), group));
    }
    if (m_.dry_run()) return {};
    for (const auto& [ref, before] : changes) {
      // The first record of a Deployment keeps what it had before the migration touched it.
      if (Recorded(m_.record().pinned, ref->namespace_, ref->name) == nullptr) {
        m_.record().pinned.push_back({ref->namespace_, ref->name, before});
      }
    }
    RETURN_IF_ERROR(m_.Save());
    RETURN_IF_ERROR(Crash("step 7: recorded"));
    for (const auto& [ref, before] : changes) {
      Result<Object> patched = m_.cluster().Patch(
          kube::resources::kDeployments, ref->namespace_, ref->name, kube::PatchType::kJson,
          AffinityPatch(PinnedAffinity(before, group), !before.is_null()),
          kube::Subresource::kNone);
      if (!patched.ok()) {
        return Error(fmt::format("patching {}: {}", ref->Describe(), patched.error().message));
      }
    }
    return Crash("step 7: changed");
  }

  Status Retire(const MigrationState& now) {
    for (const int before : {5, 6}) {
      // A dry run takes the steps it went through as done.
      if (now.plan.steps[before - 1].state != StepState::kDone &&
          !(m_.dry_run() && gone_through_.contains(before))) {
        return Error(fmt::format(
            "Karpenter must run first (step {}, {}, is not done): without it the pods of the "
            "nodes that go would stay pending; nothing changed",
            before, now.plan.steps[before - 1].title));
      }
    }
    if (!now.cluster.unprotected.empty() && !options_.allow_unprotected) {
      std::vector<std::string> names;
      for (const WorkloadRef& ref : now.cluster.unprotected) names.push_back(ref.Describe());
      return Error(fmt::format(
          "{} run on node-group nodes without a PodDisruptionBudget, and shrinking the node "
          "groups may take all their pods down at once: give them budgets, or pass "
          "--allow-unprotected; nothing changed",
          fmt::join(names, ", ")));
    }
    std::vector<const WorkloadRef*> autoscalers;
    for (const WorkloadRef& ref : now.cluster.cluster_autoscalers) {
      if (ref.replicas == 0) continue;
      autoscalers.push_back(&ref);
      m_.Say(8, fmt::format("scale {} from {} to 0 replicas", ref.Describe(), ref.replicas));
    }
    std::vector<std::pair<const aws::EksNodegroup*, int64_t>> shrinks;
    for (const NodeGroupTarget& target : now.plan.targets) {
      if (target.desired <= target.target) continue;
      const auto group =
          std::find_if(now.aws.node_groups.begin(), now.aws.node_groups.end(),
                       [&](const aws::EksNodegroup& g) { return g.name == target.name; });
      shrinks.emplace_back(&*group, target.target);
      m_.Say(8, fmt::format("shrink node group {} from {} to {} nodes, {} at a time", target.name,
                            target.desired, target.target, options_.batch));
    }
    if (m_.dry_run()) return {};

    for (const WorkloadRef* ref : autoscalers) {
      if (Recorded(m_.record().scaled, ref->namespace_, ref->name) == nullptr) {
        m_.record().scaled.push_back({ref->namespace_, ref->name, ref->replicas});
      }
    }
    for (const auto& shrink : shrinks) {
      const aws::EksNodegroup& group = *shrink.first;
      if (std::none_of(m_.record().node_groups.begin(), m_.record().node_groups.end(),
                       [&](const NodeGroupSize& size) { return size.name == group.name; })) {
        m_.record().node_groups.push_back(
            {group.name, group.min_size, group.max_size, group.desired_size});
      }
    }
    RETURN_IF_ERROR(m_.Save());
    RETURN_IF_ERROR(Crash("step 8: recorded"));
    for (const WorkloadRef* ref : autoscalers) {
      Result<Object> scaled = m_.cluster().Patch(
          kube::resources::kDeployments, ref->namespace_, ref->name, kube::PatchType::kMerge,
          {{"spec", {{"replicas", 0}}}}, kube::Subresource::kNone);
      if (!scaled.ok()) {
        return Error(fmt::format("scaling {}: {}", ref->Describe(), scaled.error().message));
      }
    }
    RETURN_IF_ERROR(Crash("step 8: changed"));
    for (const auto& [group, target] : shrinks) RETURN_IF_ERROR(Shrink(*group, target));
    return {};
  }

  // Shrinks `group` to `target` nodes, options_.batch at a time, each batch settled before the
  // next; the last sets min = max = desired = target, as the seed does.
  Status Shrink(const aws::EksNodegroup& group, int64_t target) {
    aws::EksApi eks(m_.clients().eks());
    int64_t desired = group.desired_size;
    while (desired > target) {
      const int64_t next = std::max(target, desired - std::max<int64_t>(1, options_.batch));
      const bool last = next == target;
      ASSIGN_OR_RETURN(const ClusterObjects before, ReadClusterObjects(m_.cluster()));
      const SettleBaseline baseline = Baseline(before);
      RETURN_IF_ERROR(eks.UpdateNodegroupScaling(options_.cluster_name, group.name,
                                                 last ? target : std::min(group.min_size, next),
                                                 last ? target : group.max_size, next));
      RETURN_IF_ERROR(Crash("step 8: batch"));
      RETURN_IF_ERROR(Settle(group.name, next, baseline,
                             fmt::format("of shrinking from {} to {} nodes", desired, next)));
      m_.out() << fmt::format("step 8: node group {} shrank from {} to {} nodes and settled\n",
                              group.name, desired, next);
      desired = next;
    }
    return {};
  }

  // Waits until `group` has settled at `desired` nodes (settle.h) and EKS is done with it; an
  // error after options_.settle_timeout says what is still waiting. `what` says what it waits
  // after.
  Status Settle(const std::string& group, int64_t desired, const SettleBaseline& baseline,
                const std::string& what) {
    aws::EksApi eks(m_.clients().eks());
    const MonoTime start = hooks_.clock->Monotonic();
    while (true) {
      ASSIGN_OR_RETURN(const aws::EksNodegroup state,
                       eks.DescribeNodegroup(options_.cluster_name, group));
      ASSIGN_OR_RETURN(const ClusterObjects objects, ReadClusterObjects(m_.cluster()));
      std::vector<std::string> waiting = Unsettled(objects, group, desired, baseline);
      if (state.status != "ACTIVE") {
        waiting.insert(waiting.begin(), fmt::format("node group {} is {}", group, state.status));
      }
      if (waiting.empty()) return {};
      if (hooks_.clock->Monotonic() - start >= options_.settle_timeout) {
        return Error(fmt::format(
            "node group {} did not settle within {}s {}: {}. Stopped, and left the cluster as it "
            "is: run apply --step 8 again once it has settled, or roll back",
            group, options_.settle_timeout.count(), what, fmt::join(waiting, "; ")));
      }
      hooks_.sleep(options_.poll_interval);
    }
  }

  // Step 8 is done by the sizes it set; a run stopped during a batch may have left a node group
  // that has not settled at its size yet: this waits for it, as the batch would have.
  Status SettleRecorded(const MigrationState& now) {
    const SettleBaseline baseline = Baseline(now.objects);
    for (const NodeGroupSize& recorded : m_.record().node_groups) {
      const auto group =
          std::find_if(now.aws.node_groups.begin(), now.aws.node_groups.end(),
                       [&](const aws::EksNodegroup& g) { return g.name == recorded.name; });
      if (group == now.aws.node_groups.end()) continue;
      RETURN_IF_ERROR(Settle(group->name, group->desired_size, baseline,
                             fmt::format("at {} nodes", group->desired_size)));
    }
    return {};
  }

  Migration& m_;
  const ApplyOptions& options_;
  const ApplyHooks& hooks_;
  std::set<int> gone_through_;  // the steps of this run that succeeded
};

class Rollback {
 public:
  Rollback(Migration& migration, const RollbackOptions& options, const ApplyHooks& hooks)
      : m_(migration), options_(options), hooks_(hooks) {}

  Status Run() {
    RETURN_IF_ERROR(NodeGroupsAndAutoscaler());
    RETURN_IF_ERROR(Pinning());
    if (!options_.all) return {};
    RETURN_IF_ERROR(CreatedObjects());
    RETURN_IF_ERROR(Chart());
    RETURN_IF_ERROR(NodeRoleAccess());
    RETURN_IF_ERROR(Tags());
    RETURN_IF_ERROR(Roles());
    return m_.Forget();
  }

 private:
  void Say(std::string_view what) {
    m_.out() << fmt::format("rollback: {}{}\n", m_.dry_run() ? "would " : "", what);
  }

  Status NodeGroupsAndAutoscaler() {
    MigrationRecord& record = m_.record();
    aws::EksApi eks(m_.clients().eks());
    for (const NodeGroupSize& size : record.node_groups) {
      ASSIGN_OR_RETURN(const aws::EksNodegroup group,
                       eks.DescribeNodegroup(options_.cluster_name, size.name));
      if (group.min_size == size.min_size && group.max_size == size.max_size &&
          group.desired_size == size.desired_size) {
        continue;
      }
      Say(fmt::format("restore node group {} to min {}, max {}, desired {} (it has {}/{}/{})",
                      size.name, size.min_size, size.max_size, size.desired_size, group.min_size,
                      group.max_size, group.desired_size));
      if (m_.dry_run()) continue;
      RETURN_IF_ERROR(eks.UpdateNodegroupScaling(options_.cluster_name, size.name, size.min_size,
                                                 size.max_size, size.desired_size));
    }
    for (const ChangedDeployment& change : record.scaled) {
      Say(fmt::format("scale Deployment {}/{} back to {} replicas", change.namespace_, change.name,
                      change.before.dump()));
      if (m_.dry_run()) continue;
      Result<Object> scaled = m_.cluster().Patch(
          kube::resources::kDeployments, change.namespace_, change.name, kube::PatchType::kMerge,
          {{"spec", {{"replicas", change.before}}}}, kube::Subresource::kNone);
      if (!scaled.ok() && scaled.error().status != 404) {
        return Error(fmt::format("scaling Deployment {}/{}: {}", change.namespace_, change.name,
                                 scaled.error().message));
      }
    }
    record.node_groups.clear();
    record.scaled.clear();
    return m_.Save();
  }

  Status Pinning() {
    MigrationRecord& record = m_.record();
    for (const ChangedDeployment& change : record.pinned) {
      Result<Object> deployment =
          m_.cluster().Get(kube::resources::kDeployments, change.namespace_, change.name);
      if (!deployment.ok()) {
        if (deployment.error().status == 404) continue;
        return Error(fmt::format("reading Deployment {}/{}: {}", change.namespace_, change.name,
                                 deployment.error().message));
      }
      const Object* now = kube::Find(*deployment, {"spec", "template", "spec", "affinity"});
      if (now != nullptr ? *now == change.before : change.before.is_null()) continue;
      Say(fmt::format("restore the affinity of Deployment {}/{}", change.namespace_, change.name));
      if (m_.dry_run()) continue;
      Result<Object> patched = m_.cluster().Patch(
          kube::resources::kDeployments, change.namespace_, change.name, kube::PatchType::kJson,
          AffinityPatch(change.before, now != nullptr), kube::Subresource::kNone);
      if (!patched.ok()) {
        return Error(fmt::format("patching Deployment {}/{}: {}", change.namespace_, change.name,
                                 patched.error().message));
      }
    }
    record.pinned.clear();
    return m_.Save();
  }

  Status CreatedObjects() {
    MigrationRecord& record = m_.record();
    // NodePools before the EC2NodeClasses they name.
    for (auto it = record.created.rbegin(); it != record.created.rend(); ++it) {
      const kube::Resource& resource =
          it->kind == "NodePool" ? kube::resources::kNodePools : kube::resources::kEC2NodeClasses;
      Result<Object> object = m_.cluster().Get(resource, "", it->name);
      if (!object.ok()) {
        if (object.error().status == 404) continue;
        return Error(fmt::format("reading {} {}: {}", it->kind, it->name, object.error().message));
      }
      if (kube::Label(*object, kLabelManagedBy) != kManagedBy) {
        m_.out() << fmt::format("rollback: kept {} {}: it no longer carries {}={}\n", it->kind,
                                it->name, kLabelManagedBy, kManagedBy);
        continue;
      }
      Say(fmt::format("delete {} {}", it->kind, it->name));
      if (m_.dry_run()) continue;
      Status deleted = m_.cluster().Delete(resource, "", it->name, {});
      if (!deleted.ok() && deleted.error().status != 404) {
        return Error(
            fmt::format("deleting {} {}: {}", it->kind, it->name, deleted.error().message));
      }
    }
    record.created.clear();
    return m_.Save();
  }

  // The release step 5 installed, once Karpenter has drained and terminated its nodes (the
  // NodePools are gone): without the controller their instances would be left running.
  Status Chart() {
    MigrationRecord& record = m_.record();
    if (record.chart_release.empty()) return {};
    const MonoTime start = hooks_.clock->Monotonic();
    while (!m_.dry_run()) {
      Result<kube::ObjectList> claims = m_.cluster().List(kube::resources::kNodeClaims, {});
      if (!claims.ok() && claims.error().status != 404) {
        return Error("listing NodeClaims: " + claims.error().message);
      }
      const size_t left = claims.ok() ? claims->items.size() : 0;
      if (left == 0) break;
      if (hooks_.clock->Monotonic() - start >= options_.drain_timeout) {
        return Error(fmt::format(
            "{} NodeClaims remain {}s after their NodePools were deleted: Karpenter is still "
            "draining them, so the chart stays; run rollback --all again",
            left, options_.drain_timeout.count()));
      }
      hooks_.sleep(options_.poll_interval);
    }
    Say(fmt::format("helm uninstall {} --namespace {}", record.chart_release, options_.namespace_));
    if (!m_.dry_run()) {
      if (!hooks_.run) return Error("rollback cannot run helm here");
      Result<std::string> removed = hooks_.run(
          Helm({"uninstall", record.chart_release, "--namespace", options_.namespace_, "--wait"},
               options_.kubeconfig));
      if (!removed.ok() && removed.error().message.find("not found") == std::string::npos) {
        return removed.error();
      }
    }
    record.chart_release.clear();
    return m_.Save();
  }

  Status NodeRoleAccess() {
    MigrationRecord& record = m_.record();
    if (!record.access_entry.empty()) {
      Say(fmt::format("delete the EKS access entry of {}", record.access_entry));
      if (!m_.dry_run()) {
        aws::EksApi eks(m_.clients().eks());
        Status deleted = eks.DeleteAccessEntry(options_.cluster_name, record.access_entry);
        if (!deleted.ok() && deleted.error().reason != "ResourceNotFoundException") return deleted;
      }
    }
    if (!record.aws_auth_role.empty()) RETURN_IF_ERROR(AwsAuth());
    record.access_entry.clear();
    record.aws_auth_role.clear();
    record.aws_auth_created = false;
    return m_.Save();
  }

  Status AwsAuth() {
    const MigrationRecord& record = m_.record();
    Result<Object> aws_auth =
        m_.cluster().Get(kube::resources::kConfigMaps, "kube-system", "aws-auth");
    if (!aws_auth.ok()) {
      if (aws_auth.error().status == 404) return {};
      return Error("reading configmap kube-system/aws-auth: " + aws_auth.error().message);
    }
    const std::string entry = AwsAuthEntry(record.aws_auth_role);
    ASSIGN_OR_RETURN(
        const std::string map_roles,
        WithoutRole(kube::StringAt(*aws_auth, {"data", "mapRoles"}), record.aws_auth_role, entry));
    const Object* data = kube::Find(*aws_auth, {"data"});
    const bool only_map_roles =
        data == nullptr || (data->size() == 1 && data->contains("mapRoles"));
    if (record.aws_auth_created && map_roles.find_first_not_of(" \t\r\n") == std::string::npos &&
        only_map_roles) {
      Say("delete kube-system/aws-auth (the migration created it)");
      if (m_.dry_run()) return {};
      Status deleted =
          m_.cluster().Delete(kube::resources::kConfigMaps, "kube-system", "aws-auth", {});
      if (!deleted.ok() && deleted.error().status != 404) {
        return Error("deleting configmap kube-system/aws-auth: " + deleted.error().message);
      }
      return {};
    }
    Say(fmt::format("remove {} from kube-system/aws-auth's mapRoles", record.aws_auth_role));
    if (m_.dry_run()) return {};
    Object updated = *aws_auth;
    updated["data"]["mapRoles"] = map_roles;
    Result<Object> written =
        m_.cluster().Update(kube::resources::kConfigMaps, updated, kube::Subresource::kNone);
    if (!written.ok()) {
      return Error("writing configmap kube-system/aws-auth: " + written.error().message);
    }
    return {};
  }

  Status Tags() {
    MigrationRecord& record = m_.record();
    if (!record.tagged.empty()) {
      Say(fmt::format("remove {}={} from {}", kDiscoveryTag, options_.cluster_name,
                      fmt::join(record.tagged, ", ")));
      if (!m_.dry_run()) {
        aws::Ec2Api ec2(m_.clients().ec2());
        RETURN_IF_ERROR(
            ec2.DeleteTags(record.tagged, {{std::string(kDiscoveryTag), options_.cluster_name}}));
      }
    }
    record.tagged.clear();
    return m_.Save();
  }

  Status Roles() {
    MigrationRecord& record = m_.record();
    aws::IamApi iam(m_.clients().iam());
    for (const std::string& name : record.roles) {
      ASSIGN_OR_RETURN(const std::optional<aws::IamRole> role, iam.GetRole(name));
      if (!role) continue;
      const auto mark = role->tags.find(std::string(kLabelManagedBy));
      if (mark == role->tags.end() || mark->second != kManagedBy) {
        m_.out() << fmt::format("rollback: kept IAM role {}: it no longer carries {}={}\n", name,
                                kLabelManagedBy, kManagedBy);
        continue;
      }
      Say("delete IAM role " + name + " and its policies");
      if (m_.dry_run()) continue;
      ASSIGN_OR_RETURN(const std::vector<std::string> attached, iam.ListAttachedRolePolicies(name));
      for (const std::string& policy : attached) {
        RETURN_IF_ERROR(iam.DetachRolePolicy(name, policy));
      }
      ASSIGN_OR_RETURN(const std::vector<std::string> inline_policies, iam.ListRolePolicies(name));
      for (const std::string& policy : inline_policies) {
        RETURN_IF_ERROR(iam.DeleteRolePolicy(name, policy));
      }
      RETURN_IF_ERROR(iam.DeleteRole(name));
    }
    record.roles.clear();
    return m_.Save();
  }

  Migration& m_;
  const RollbackOptions& options_;
  const ApplyHooks& hooks_;
};

}  // namespace

Status ApplyMigration(aws::AwsClients& clients, kube::Client& cluster, const ApplyOptions& options,
                      const ApplyHooks& hooks, std::ostream& out) {
  for (const int step : options.steps) {
    if (step < 1 || step > 9) return Error(fmt::format("there is no step {} (1 to 9)", step));
  }
  Migration migration(clients, cluster, options.cluster_name, options.namespace_, options.dry_run,
                      out);
  RETURN_IF_ERROR(migration.Load());
  Applier applier(migration, options, hooks);
  for (const int step : options.steps) RETURN_IF_ERROR(applier.Run(step));
  return {};
}

Status RollbackMigration(aws::AwsClients& clients, kube::Client& cluster,
                         const RollbackOptions& options, const ApplyHooks& hooks,
                         std::ostream& out) {
  Migration migration(clients, cluster, options.cluster_name, options.namespace_, options.dry_run,
                      out);
  RETURN_IF_ERROR(migration.Load());
  if (!migration.exists()) {
    out << fmt::format("rollback: nothing to undo: there is no configmap {}/{}\n",
                       options.namespace_, kRecordName);
    return {};
  }
  return Rollback(migration, options, hooks).Run();
}

}  // namespace karpenter::migrate
