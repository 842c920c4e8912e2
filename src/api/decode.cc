// Manifest decoding: parses documents, dispatches each object by kind, and decodes the field groups
// that several kinds share (metadata, taints, selectors, conditions).

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "api/decode_internal.h"
#include "api/manifest.h"
#include "common/document.h"

namespace karpenter::api {
namespace decode_internal {
namespace {

constexpr std::pair<std::string_view, SelectorOperator> kSelectorOperators[] = {
    {"In", SelectorOperator::kIn},
    {"NotIn", SelectorOperator::kNotIn},
    {"Exists", SelectorOperator::kExists},
    {"DoesNotExist", SelectorOperator::kDoesNotExist},
};

OwnerReference DecodeOwnerReference(const Reader& ref) {
  OwnerReference out;
  if (!ref.Object()) return out;
  out.api_version = ref["apiVersion"].StringOr();
  out.kind = ref["kind"].StringOr();
  out.name = ref["name"].StringOr();
  out.uid = ref["uid"].StringOr();
  out.controller = ref["controller"].Bool().value_or(false);
  return out;
}

LabelSelectorRequirement DecodeLabelSelectorRequirement(const Reader& requirement) {
  LabelSelectorRequirement out;
  if (!requirement.Object()) return out;
  if (Reader key = requirement["key"]; key.Required()) out.key = key.StringOr();
  if (Reader op = requirement["operator"]; op.Required()) {
    out.op = op.Enum("operator", kSelectorOperators).value_or(SelectorOperator::kIn);
  }
  out.values = requirement["values"].StringList();
  return out;
}

}  // namespace

ObjectMeta DecodeObjectMeta(const Reader& meta) {
  ObjectMeta out;
  if (!meta.Object()) return out;
  out.name = meta["name"].StringOr();
  out.namespace_ = meta["namespace"].StringOr();
  out.uid = meta["uid"].StringOr();
  out.resource_version = meta["resourceVersion"].StringOr();
  out.generation = meta["generation"].Int().value_or(0);
  out.creation_timestamp = meta["creationTimestamp"].StringOr();
  out.deletion_timestamp = meta["deletionTimestamp"].StringOr();
  out.labels = meta["labels"].LabelMap();
  out.annotations = meta["annotations"].StringMap();
  out.owner_references = meta["ownerReferences"].List<OwnerReference>(DecodeOwnerReference);
  out.finalizers = meta["finalizers"].StringList();
  return out;
}

std::optional<TaintEffect> DecodeTaintEffect(const Reader& effect) {
  return effect.Enum("effect", kTaintEffectNames);
}

Taint DecodeTaint(const Reader& taint) {
  Taint out;
  if (!taint.Object()) return out;
  if (Reader key = taint["key"]; key.Required()) out.key = key.StringOr();
  out.value = taint["value"].StringOr();
  if (Reader effect = taint["effect"]; effect.Required()) {
    out.effect = DecodeTaintEffect(effect).value_or(TaintEffect::kNoSchedule);
  }
  return out;
}

NodeSelectorRequirement DecodeNodeSelectorRequirement(const Reader& requirement) {
  NodeSelectorRequirement out;
  if (!requirement.Object()) return out;
  if (Reader key = requirement["key"]; key.Required()) out.key = key.StringOr();
  if (Reader op = requirement["operator"]; op.Required()) {
    if (std::optional<std::string> text = op.String()) {
      if (std::optional<NodeSelectorOperator> parsed = ParseNodeSelectorOperator(*text)) {
        out.op = *parsed;
      } else {
        op.UnknownValue("operator", *text);
      }
    }
  }
  out.values = requirement["values"].StringList();
  out.min_values = requirement["minValues"].Int32();
  return out;
}

NodeSelectorTerm DecodeNodeSelectorTerm(const Reader& term) {
  NodeSelectorTerm out;
  if (!term.Object()) return out;
  out.match_expressions =
      term["matchExpressions"].List<NodeSelectorRequirement>(DecodeNodeSelectorRequirement);
  out.match_fields =
      term["matchFields"].List<NodeSelectorRequirement>(DecodeNodeSelectorRequirement);
  return out;
}

LabelSelector DecodeLabelSelector(const Reader& selector) {
  LabelSelector out;
  if (!selector.Object()) return out;
  out.match_labels = selector["matchLabels"].LabelMap();
  out.match_expressions =
      selector["matchExpressions"].List<LabelSelectorRequirement>(DecodeLabelSelectorRequirement);
  return out;
}

std::optional<LabelSelector> DecodeOptionalLabelSelector(const Reader& selector) {
  if (!selector.present()) return std::nullopt;
  return DecodeLabelSelector(selector);
}

Condition DecodeCondition(const Reader& condition) {
  Condition out;
  if (!condition.Object()) return out;
  out.type = condition["type"].StringOr();
  out.status = condition["status"].StringOr();
  out.reason = condition["reason"].StringOr();
  out.message = condition["message"].StringOr();
  out.last_transition_time = condition["lastTransitionTime"].StringOr();
  out.observed_generation = condition["observedGeneration"].Int().value_or(0);
  return out;
}

}  // namespace decode_internal

namespace {

using decode_internal::DecodeFn;

struct KindInfo {
  std::string_view kind;
  std::string_view api_version;
  bool namespaced;
  DecodeFn decode;
};

constexpr KindInfo kKinds[] = {
    {"NodePool", "karpenter.sh/v1", false, decode_internal::DecodeNodePool},
    {"NodeClaim", "karpenter.sh/v1", false, decode_internal::DecodeNodeClaim},
    {"EC2NodeClass", "karpenter.k8s.aws/v1", false, decode_internal::DecodeEC2NodeClass},
    {"NodeOverlay", "karpenter.sh/v1alpha1", false, decode_internal::DecodeNodeOverlay},
    {"Pod", "v1", true, decode_internal::DecodePod},
    {"Node", "v1", false, decode_internal::DecodeNode},
    {"PersistentVolume", "v1", false, decode_internal::DecodePersistentVolume},
    {"PersistentVolumeClaim", "v1", true, decode_internal::DecodePersistentVolumeClaim},
    {"PodDisruptionBudget", "policy/v1", true, decode_internal::DecodePodDisruptionBudget},
    {"Deployment", "apps/v1", true, decode_internal::DecodeDeployment},
    {"ReplicaSet", "apps/v1", true, decode_internal::DecodeReplicaSet},
    {"StatefulSet", "apps/v1", true, decode_internal::DecodeStatefulSet},
    {"DaemonSet", "apps/v1", true, decode_internal::DecodeDaemonSet},
    {"Job", "batch/v1", true, decode_internal::DecodeJob},
    {"StorageClass", "storage.k8s.io/v1", false, decode_internal::DecodeStorageClass},
    {"PodTemplate", "v1", true, decode_internal::DecodePodTemplate},
    {"CapacityBuffer", "autoscaling.x-k8s.io/v1beta1", true, decode_internal::DecodeCapacityBuffer},
};

// "apps" for "apps/v1", "" for the core group's "v1".
std::string_view GroupOf(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

std::string_view StringMember(const Json& object, std::string_view name) {
  const auto it = object.find(name);
  if (it == object.end() || !it->is_string()) return {};
  return it->get_ref<const std::string&>();
}

enum class Scope { kCluster, kNamespaced, kAsWritten };

// "Kind/name", "Kind/namespace/name", or "Kind at line N" when the object has no name.
std::string ObjectLabel(std::string_view kind, Scope scope, const Json& object, int line) {
  std::string_view name;
  std::string_view namespace_name;
  if (const auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    name = StringMember(*meta, "name");
    namespace_name = StringMember(*meta, "namespace");
  }
  if (name.empty()) return fmt::format("{} at line {}", kind, line);
  if (scope == Scope::kNamespaced && namespace_name.empty()) namespace_name = kDefaultNamespace;
  if (scope == Scope::kCluster || namespace_name.empty()) return fmt::format("{}/{}", kind, name);
  return fmt::format("{}/{}/{}", kind, namespace_name, name);
}

void DecodeObjectAt(const Json& object, int line, std::string_view source, DecodeOutcome& outcome) {
  if (!object.is_object()) {
    outcome.errors.push_back(
        fmt::format("{}:{}: expected an object (a Kubernetes resource)", source, line));
    return;
  }
  const std::string_view kind = StringMember(object, "kind");
  const std::string_view api_version = StringMember(object, "apiVersion");
  if (kind.empty()) {
    outcome.errors.push_back(fmt::format("{}:{}: kind: required", source, line));
    return;
  }
  const KindInfo* info = nullptr;
  for (const KindInfo& candidate : kKinds) {
    if (candidate.kind == kind &&
        (api_version.empty() || GroupOf(candidate.api_version) == GroupOf(api_version))) {
      info = &candidate;
      break;
    }
  }
  if (info == nullptr) {
    outcome.manifest.ignored.push_back(ObjectLabel(kind, Scope::kAsWritten, object, line));
    return;
  }
  Problems problems(fmt::format(
      "{}: {}: ", source,
      ObjectLabel(kind, info->namespaced ? Scope::kNamespaced : Scope::kCluster, object, line)));
  const Reader root(object, problems);
  if (api_version.empty()) {
    root["apiVersion"].Required();
  } else if (api_version != info->api_version) {
    root["apiVersion"].Error(
        fmt::format("unsupported version \"{}\" (want {})", api_version, info->api_version));
  }
  if (root["metadata"].Required()) root["metadata"]["name"].Required();
  if (problems.empty()) info->decode(root, problems, outcome.manifest);
  std::vector<std::string>& lines = problems.lines();
  outcome.errors.insert(outcome.errors.end(), std::make_move_iterator(lines.begin()),
                        std::make_move_iterator(lines.end()));
}

template <class T>
void MoveAppend(std::vector<T>& to, std::vector<T>& from) {
  if (to.empty()) {
    to = std::move(from);
  } else {
    to.reserve(to.size() + from.size());
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  }
  from.clear();
}

}  // namespace

void Manifest::Append(Manifest&& other) {
  MoveAppend(node_pools, other.node_pools);
  MoveAppend(node_claims, other.node_claims);
  MoveAppend(node_classes, other.node_classes);
  MoveAppend(node_overlays, other.node_overlays);
  MoveAppend(pod_templates, other.pod_templates);
  MoveAppend(capacity_buffers, other.capacity_buffers);
  MoveAppend(pods, other.pods);
  MoveAppend(nodes, other.nodes);
  MoveAppend(workloads, other.workloads);
  MoveAppend(pdbs, other.pdbs);
  MoveAppend(persistent_volumes, other.persistent_volumes);
  MoveAppend(persistent_volume_claims, other.persistent_volume_claims);
  MoveAppend(storage_classes, other.storage_classes);
  MoveAppend(ignored, other.ignored);
}

DecodeOutcome DecodeManifest(std::string_view text, std::string_view source) {
  DecodeOutcome outcome;
  Result<std::vector<Document>> documents = ParseDocuments(text, source);
  if (!documents.ok()) {
    outcome.errors.push_back(documents.error().message);
    return outcome;
  }
  for (const Document& document : *documents) {
    DecodeObjectAt(document.value, document.line, source, outcome);
  }
  return outcome;
}

DecodeOutcome DecodeObject(const Json& object, std::string_view source) {
  DecodeOutcome outcome;
  DecodeObjectAt(object, 0, source, outcome);
  return outcome;
}

DecodeOutcome LoadManifestFile(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    DecodeOutcome outcome;
    outcome.errors.push_back(fmt::format("{}: cannot read: is a directory", path));
    return outcome;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    DecodeOutcome outcome;
    outcome.errors.push_back(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    return outcome;
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) {
    DecodeOutcome outcome;
    outcome.errors.push_back(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    return outcome;
  }
  return DecodeManifest(text.view(), path);
}

}  // namespace karpenter::api
