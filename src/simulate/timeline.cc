#include "simulate/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "api/field_reader.h"
#include "api/validation.h"
#include "common/document.h"

namespace karpenter::simulate {
namespace {

using api::Reader;

// Reports members of `reader` (an object) not in `known`.
void RejectUnknown(const Reader& reader, std::initializer_list<std::string_view> known) {
  if (!reader.Object()) return;
  for (const auto& [key, value] : reader.json()->items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      reader[key].Error("unknown field");
    }
  }
}

std::string RequiredString(const Reader& reader) {
  if (!reader.Required()) return {};
  std::string text = reader.StringOr();
  if (text.empty()) reader.Error("must not be empty");
  return text;
}

int NonNegative(const Reader& reader, int fallback) {
  if (!reader.present()) return fallback;
  return static_cast<int>(reader.Int(0, 100000).value_or(fallback));
}

NodeGroupSpec DecodeNodeGroup(const Reader& item) {
  NodeGroupSpec group;
  if (!item.Object()) return group;
  RejectUnknown(item, {"name", "instanceType", "size", "zones", "capacityType", "labels"});
  group.name = RequiredString(item["name"]);
  group.instance_type = RequiredString(item["instanceType"]);
  if (item["size"].Required()) group.size = NonNegative(item["size"], 0);
  group.zones = item["zones"].StringList();
  if (const Reader type = item["capacityType"]; type.present()) {
    static constexpr std::pair<std::string_view, bool> kTypes[] = {{"ON_DEMAND", false},
                                                                   {"SPOT", true}};
    group.spot = type.Enum("capacity type", kTypes).value_or(false);
  }
  for (auto& [key, value] : item["labels"].StringMap()) group.labels.emplace(key, value);
  return group;
}

std::optional<ActionKind> DecodeKind(std::string_view key, const Reader& body) {
  if (key == "note") return Note{RequiredString(body)};
  if (!body.Object()) return std::nullopt;
  if (key == "scaleNodeGroup") {
    RejectUnknown(body, {"name", "size", "batch", "settle"});
    ScaleNodeGroup scale{RequiredString(body["name"]), 0, NonNegative(body["batch"], 1)};
    if (body["size"].Required()) scale.size = NonNegative(body["size"], 0);
    if (scale.batch < 1) body["batch"].Error("must be at least 1");
    if (body["settle"].present()) scale.settle = body["settle"].Bool().value_or(false);
    return scale;
  }
  if (key == "scale") {
    RejectUnknown(body, {"kind", "namespace", "name", "replicas"});
    ScaleWorkload scale{RequiredString(body["kind"]), body["namespace"].StringOr("default"),
                        RequiredString(body["name"]), 0};
    if (body["replicas"].Required()) scale.replicas = NonNegative(body["replicas"], 0);
    static const std::set<std::string, std::less<>> kScalable = {"Deployment", "ReplicaSet",
                                                                 "StatefulSet", "Job"};
    if (!scale.kind.empty() && !kScalable.contains(scale.kind)) {
      body["kind"].Error("must be Deployment, ReplicaSet, StatefulSet or Job");
    }
    return scale;
  }
  if (key == "apply") {
    if (!body["kind"].Required() || !body["metadata"].Object()) return std::nullopt;
    RequiredString(body["metadata"]["name"]);
    return ApplyObject{*body.json()};
  }
  if (key == "delete") {
    RejectUnknown(body, {"kind", "namespace", "name"});
    return DeleteObject{RequiredString(body["kind"]), body["namespace"].StringOr(),
                        RequiredString(body["name"])};
  }
  if (key == "interruptSpot") {
    RejectUnknown(body, {"zone"});
    return InterruptSpot{RequiredString(body["zone"])};
  }
  if (key == "unavailable") {
    RejectUnknown(body, {"instanceType", "zone", "capacityType"});
    MakeUnavailable unavailable{RequiredString(body["instanceType"]), body["zone"].StringOr(),
                                body["capacityType"].StringOr()};
    const std::string& type = unavailable.capacity_type;
    if (!type.empty() && type != "spot" && type != "on-demand" && type != "reserved") {
      body["capacityType"].Error("must be spot, on-demand or reserved");
    }
    return unavailable;
  }
  if (key == "nodeCondition") {
    RejectUnknown(body, {"nodePool", "nodeGroup", "nodes", "type", "status"});
    SetNodeCondition condition{body["nodePool"].StringOr(), body["nodeGroup"].StringOr(),
                               NonNegative(body["nodes"], 1), RequiredString(body["type"]),
                               RequiredString(body["status"])};
    if (condition.node_pool.empty() == condition.node_group.empty()) {
      body.Error("needs one of nodePool and nodeGroup");
    }
    if (condition.nodes < 1) body["nodes"].Error("must be at least 1");
    const std::string& status = condition.status;
    if (!status.empty() && status != "True" && status != "False" && status != "Unknown") {
      body["status"].Error("must be True, False or Unknown");
    }
    return condition;
  }
  return std::nullopt;
}

constexpr std::string_view kActions[] = {"scaleNodeGroup", "scale",       "apply",         "delete",
                                         "interruptSpot",  "unavailable", "nodeCondition", "note"};
constexpr std::string_view kActionList =
    "scaleNodeGroup, scale, apply, delete, interruptSpot, unavailable, nodeCondition or note";

std::optional<Action> DecodeAction(const Reader& item) {
  if (!item.Object()) return std::nullopt;
  Action action;
  if (item["at"].Required()) {
    const std::string at = item["at"].StringOr();
    Result<Duration> parsed = Duration::Parse(at, /*allow_never=*/false);
    if (!parsed.ok()) {
      item["at"].Error(fmt::format("invalid duration \"{}\": {}", at, parsed.error().message));
    } else if (parsed->value().count() < 0) {
      item["at"].Error("must not be negative");
    } else {
      action.at = parsed->value();
    }
  }
  std::optional<ActionKind> kind;
  int kinds = 0;
  for (const auto& [key, value] : item.json()->items()) {
    if (key == "at") continue;
    ++kinds;
    const Reader body = item[key];
    kind = DecodeKind(key, body);
    if (std::find(std::begin(kActions), std::end(kActions), key) == std::end(kActions)) {
      body.Error(fmt::format("unknown action; expected {}", kActionList));
    }
  }
  if (kinds != 1) {
    item.Error(fmt::format("needs exactly one of {}", kActionList));
    return std::nullopt;
  }
  if (!kind) return std::nullopt;
  action.kind = std::move(*kind);
  return action;
}

}  // namespace

Result<Timeline> ParseTimeline(std::string_view text, std::string_view source) {
  ASSIGN_OR_RETURN(std::vector<Document> documents, ParseDocuments(text, source));
  if (documents.size() != 1) {
    return Error{fmt::format("{}: a timeline is one document, found {}", source, documents.size())};
  }
  const Document& document = documents.front();
  api::Problems problems(fmt::format("{}:{}: ", source, document.line));
  const Reader root(document.value, problems);
  Timeline timeline;
  if (root.Object()) {
    RejectUnknown(root, {"apiVersion", "kind", "metadata", "nodeGroups", "actions"});
    timeline.node_groups = root["nodeGroups"].List<NodeGroupSpec>(DecodeNodeGroup);
    root["actions"].Each([&](const Reader& item) {
      if (std::optional<Action> action = DecodeAction(item)) {
        timeline.actions.push_back(std::move(*action));
      }
    });
    std::set<std::string, std::less<>> names;
    for (size_t i = 0; i < timeline.node_groups.size(); ++i) {
      const std::string& name = timeline.node_groups[i].name;
      if (!name.empty() && !names.insert(name).second) {
        problems.Add(fmt::format("nodeGroups[{}].name", i),
                     fmt::format("duplicate node group \"{}\"", name));
      }
    }
  }
  if (!problems.empty()) {
    std::string message;
    for (const std::string& line : problems.lines()) {
      if (!message.empty()) message.push_back('\n');
      message.append(line);
    }
    return Error{std::move(message)};
  }
  std::stable_sort(timeline.actions.begin(), timeline.actions.end(),
                   [](const Action& a, const Action& b) { return a.at < b.at; });
  return timeline;
}

std::string Describe(const ActionKind& action) {
  struct Visitor {
    std::string operator()(const ScaleNodeGroup& a) const {
      return fmt::format("scale node group {} to {} ({} at a time{})", a.name, a.size, a.batch,
                         a.settle ? ", each batch settled" : "");
    }
    std::string operator()(const ScaleWorkload& a) const {
      return fmt::format("scale {} {}/{} to {}", a.kind, a.namespace_, a.name, a.replicas);
    }
    std::string operator()(const ApplyObject& a) const {
      const Json& meta = a.object.value("metadata", Json::object());
      const std::string ns = meta.value("namespace", "");
      return fmt::format("apply {} {}{}", a.object.value("kind", ""), ns.empty() ? "" : ns + "/",
                         meta.value("name", ""));
    }
    std::string operator()(const DeleteObject& a) const {
      return fmt::format("delete {} {}{}", a.kind, a.namespace_.empty() ? "" : a.namespace_ + "/",
                         a.name);
    }
    std::string operator()(const InterruptSpot& a) const {
      return fmt::format("interrupt spot capacity in {}", a.zone);
    }
    std::string operator()(const MakeUnavailable& a) const {
      return fmt::format("make {}{}{} unavailable", a.instance_type,
                         a.capacity_type.empty() ? "" : " " + a.capacity_type,
                         a.zone.empty() ? "" : " in " + a.zone);
    }
    std::string operator()(const SetNodeCondition& a) const {
      return fmt::format("set {}={} on {} node{} of {} {}", a.type, a.status, a.nodes,
                         a.nodes == 1 ? "" : "s", a.node_pool.empty() ? "node group" : "NodePool",
                         a.node_pool.empty() ? a.node_group : a.node_pool);
    }
    std::string operator()(const Note& a) const { return a.text; }
  };
  return std::visit(Visitor{}, action);
}

}  // namespace karpenter::simulate
