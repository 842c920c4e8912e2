#include "migrate/record.h"

#include <fmt/format.h>

#include <utility>

#include "kube/object.h"

namespace karpenter::migrate {
namespace {

// The ConfigMap's key that holds the record, as JSON.
constexpr std::string_view kKey = "record";

Json DeploymentsJson(const std::vector<ChangedDeployment>& deployments, const char* field) {
  Json out = Json::array();
  for (const ChangedDeployment& deployment : deployments) {
    out.push_back({{"namespace", deployment.namespace_},
                   {"name", deployment.name},
                   {field, deployment.before}});
  }
  return out;
}

Json ToJson(const MigrationRecord& record) {
  Json created = Json::array();
  for (const CreatedObject& object : record.created) {
    created.push_back({{"kind", object.kind}, {"name", object.name}});
  }
  Json node_groups = Json::array();
  for (const NodeGroupSize& group : record.node_groups) {
    node_groups.push_back({{"name", group.name},
                           {"minSize", group.min_size},
                           {"maxSize", group.max_size},
                           {"desiredSize", group.desired_size}});
  }
  return {{"cluster", record.cluster},
          {"roles", record.roles},
          {"tagged", record.tagged},
          {"accessEntry", record.access_entry},
          {"awsAuthRole", record.aws_auth_role},
          {"awsAuthCreated", record.aws_auth_created},
          {"chartRelease", record.chart_release},
          {"created", std::move(created)},
          {"pinned", DeploymentsJson(record.pinned, "affinity")},
          {"scaled", DeploymentsJson(record.scaled, "replicas")},
          {"nodeGroups", std::move(node_groups)}};
}

// Reads the record's fields; an error names the field and what it should be.
class Reader {
 public:
  explicit Reader(const Json& root) : root_(root) {}

  Result<std::string> String(const Json& object, const char* field, std::string_view where) {
    const auto it = object.find(field);
    if (it == object.end()) return std::string();
    if (!it->is_string()) return Bad(where, field, "a string");
    return it->get<std::string>();
  }
  Result<int64_t> Integer(const Json& object, const char* field, std::string_view where) {
    const auto it = object.find(field);
    if (it == object.end() || !it->is_number_integer()) return Bad(where, field, "an integer");
    return it->get<int64_t>();
  }
  // The array under `field` (empty when absent).
  Result<Json> Array(const char* field) {
    const auto it = root_.find(field);
    if (it == root_.end()) return Json::array();
    if (!it->is_array()) return Bad("", field, "an array");
    for (const Json& item : *it) {
      if (!item.is_object() && !item.is_string() && !item.is_number_integer()) {
        return Bad("", field, "an array of objects, strings or integers");
      }
    }
    return *it;
  }
  Result<std::vector<std::string>> Strings(const char* field) {
    ASSIGN_OR_RETURN(const Json items, Array(field));
    std::vector<std::string> out;
    for (const Json& item : items) {
      if (!item.is_string()) return Bad("", field, "an array of strings");
      out.push_back(item.get<std::string>());
    }
    return out;
  }
  Result<std::vector<ChangedDeployment>> Deployments(const char* field, const char* value) {
    ASSIGN_OR_RETURN(const Json items, Array(field));
    std::vector<ChangedDeployment> out;
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string where = fmt::format("{}[{}]", field, i);
      if (!items[i].is_object()) return Bad(where, "", "an object");
      ChangedDeployment deployment;
      ASSIGN_OR_RETURN(deployment.namespace_, String(items[i], "namespace", where));
      ASSIGN_OR_RETURN(deployment.name, String(items[i], "name", where));
      const auto before = items[i].find(value);
      if (before != items[i].end()) deployment.before = *before;
      out.push_back(std::move(deployment));
    }
    return out;
  }

 private:
  static Error Bad(std::string_view where, std::string_view field, std::string_view what) {
    if (where.empty()) return Error(fmt::format("{}: not {}", field, what));
    if (field.empty()) return Error(fmt::format("{}: not {}", where, what));
    return Error(fmt::format("{}.{}: not {}", where, field, what));
  }

  const Json& root_;
};

Result<MigrationRecord> FromJson(const Json& root) {
  if (!root.is_object()) return Error("not a JSON object");
  Reader reader(root);
  MigrationRecord record;
  ASSIGN_OR_RETURN(record.cluster, reader.String(root, "cluster", ""));
  ASSIGN_OR_RETURN(record.roles, reader.Strings("roles"));
  ASSIGN_OR_RETURN(record.tagged, reader.Strings("tagged"));
  ASSIGN_OR_RETURN(record.access_entry, reader.String(root, "accessEntry", ""));
  ASSIGN_OR_RETURN(record.aws_auth_role, reader.String(root, "awsAuthRole", ""));
  record.aws_auth_created = root.value("awsAuthCreated", false);
  ASSIGN_OR_RETURN(record.chart_release, reader.String(root, "chartRelease", ""));
  ASSIGN_OR_RETURN(const Json created, reader.Array("created"));
  for (size_t i = 0; i < created.size(); ++i) {
    const std::string where = fmt::format("created[{}]", i);
    if (!created[i].is_object()) return Error(where + ": not an object");
    CreatedObject object;
    ASSIGN_OR_RETURN(object.kind, reader.String(created[i], "kind", where));
    ASSIGN_OR_RETURN(object.name, reader.String(created[i], "name", where));
    record.created.push_back(std::move(object));
  }
  ASSIGN_OR_RETURN(record.pinned, reader.Deployments("pinned", "affinity"));
  ASSIGN_OR_RETURN(record.scaled, reader.Deployments("scaled", "replicas"));
  ASSIGN_OR_RETURN(const Json groups, reader.Array("nodeGroups"));
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string where = fmt::format("nodeGroups[{}]", i);
    if (!groups[i].is_object()) return Error(where + ": not an object");
    NodeGroupSize group;
    ASSIGN_OR_RETURN(group.name, reader.String(groups[i], "name", where));
    ASSIGN_OR_RETURN(group.min_size, reader.Integer(groups[i], "minSize", where));
    ASSIGN_OR_RETURN(group.max_size, reader.Integer(groups[i], "maxSize", where));
    ASSIGN_OR_RETURN(group.desired_size, reader.Integer(groups[i], "desiredSize", where));
    record.node_groups.push_back(std::move(group));
  }
  return record;
}

}  // namespace

bool MigrationRecord::operator==(const MigrationRecord& other) const {
  return ToJson(*this) == ToJson(other);
}

Result<std::optional<MigrationRecord>> LoadRecord(kube::Client& client,
                                                  std::string_view namespace_) {
  Result<kube::Object> config_map =
      client.Get(kube::resources::kConfigMaps, namespace_, kRecordName);
  if (!config_map.ok()) {
    if (config_map.error().status == 404) return std::optional<MigrationRecord>();
    return Error(fmt::format("reading configmap {}/{}: {}", namespace_, kRecordName,
                             config_map.error().message));
  }
  const std::string_view text = kube::StringAt(*config_map, {"data", kKey});
  const Json root = Json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
  Result<MigrationRecord> record =
      root.is_discarded() ? Result<MigrationRecord>(Error("not JSON")) : FromJson(root);
  if (!record.ok()) {
    return Error(fmt::format("configmap {}/{} data.{}: {}", namespace_, kRecordName, kKey,
                             record.error().message));
  }
  record->resource_version = std::string(kube::ResourceVersion(*config_map));
  return std::optional<MigrationRecord>(std::move(*record));
}

Status SaveRecord(kube::Client& client, std::string_view namespace_, MigrationRecord& record) {
  kube::Object config_map = {{"apiVersion", "v1"},
                             {"kind", "ConfigMap"},
                             {"metadata",
                              {{"name", kRecordName},
                               {"namespace", namespace_},
                               {"labels", {{kLabelManagedBy, kManagedBy}}}}},
                             {"data", {{kKey, ToJson(record).dump(2)}}}};
  Result<kube::Object> stored = [&]() -> Result<kube::Object> {
    if (record.resource_version.empty()) {
      return client.Create(kube::resources::kConfigMaps, config_map, {});
    }
    config_map["metadata"]["resourceVersion"] = record.resource_version;
    return client.Update(kube::resources::kConfigMaps, config_map, kube::Subresource::kNone);
  }();
  if (!stored.ok()) {
    return Error(fmt::format("writing configmap {}/{}: {}", namespace_, kRecordName,
                             stored.error().message));
  }
  record.resource_version = std::string(kube::ResourceVersion(*stored));
  return {};
}

Status DeleteRecord(kube::Client& client, std::string_view namespace_) {
  Status deleted = client.Delete(kube::resources::kConfigMaps, namespace_, kRecordName, {});
  if (!deleted.ok() && deleted.error().status != 404) {
    return Error(fmt::format("deleting configmap {}/{}: {}", namespace_, kRecordName,
                             deleted.error().message));
  }
  return {};
}

}  // namespace karpenter::migrate
