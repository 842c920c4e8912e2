#include "cloud/catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "api/labels.h"
#include "cloud/fake_catalog.h"
#include "common/document.h"
#include "common/json.h"

namespace karpenter::cloud {
namespace {

using json = Json;

constexpr int kMaxFakeCatalogSize = 100000;
constexpr int64_t kDefaultPods = 110;

std::string Quote(std::string_view text) { return fmt::format("\"{}\"", text); }

// "fake<N>" → N; 0 when the name is not of that form.
int FakeCatalogSize(std::string_view name) {
  constexpr std::string_view kPrefix = "fake";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) return 0;
  const std::string_view digits = name.substr(kPrefix.size());
  int size = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), size);
  if (ec != std::errc() || end != digits.data() + digits.size()) return 0;
  return size;
}

// Builds errors of the form `catalog file "x": instanceTypes[2] ("small").capacity.cpu: why`.
class Parser {
 public:
  explicit Parser(std::string_view source)
      : where_(fmt::format("catalog file {}", Quote(source))) {}

  Error Fail(std::string_view field, std::string_view why) const {
    return Error{fmt::format("{}: {}: {}", where_, field, why)};
  }
  Error Fail(std::string_view why) const { return Error{fmt::format("{}: {}", where_, why)}; }

  Status CheckFields(const json& object, std::string_view field,
                     std::initializer_list<std::string_view> known) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        return Fail(field, fmt::format("unknown field {}", Quote(key)));
      }
    }
    return {};
  }

  Result<Quantity> ParseQuantity(const json& value, std::string_view field) const {
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_number()) {
      text = NumberText(value);
    } else {
      return Fail(field,
                  fmt::format("expected a quantity string or number, got {}", value.type_name()));
    }
    Result<Quantity> quantity = Quantity::Parse(text);
    if (!quantity.ok()) {
      return Fail(field,
                  fmt::format("invalid quantity {}: {}", Quote(text), quantity.error().message));
    }
    if (*quantity < Quantity()) {
      return Fail(field, fmt::format("negative quantity {}", Quote(text)));
    }
    return *quantity;
  }

  Result<api::ResourceList> ParseResources(const json& value, std::string_view field) const {
    if (!value.is_object()) {
      return Fail(field,
                  fmt::format("expected an object of quantities, got {}", value.type_name()));
    }
    api::ResourceList resources;
    for (const auto& [name, amount] : value.items()) {
      const std::string amount_field = fmt::format("{}.{}", field, name);
      if (name.empty()) return Fail(field, "empty resource name");
      ASSIGN_OR_RETURN(Quantity quantity, ParseQuantity(amount, amount_field));
      resources.Set(name, quantity);
    }
    return resources;
  }

  Result<Offering> ParseOffering(const json& value, std::string_view field) const {
    if (!value.is_object()) {
      return Fail(field, fmt::format("expected an object, got {}", value.type_name()));
    }
    if (Status s = CheckFields(value, field, {"zone", "capacityType", "price", "available"});
        !s.ok()) {
      return s.error();
    }
    Offering offering;
    auto zone = value.find("zone");
    if (zone == value.end() || !zone->is_string() || zone->get<std::string>().empty()) {
      return Fail(fmt::format("{}.zone", field), "required non-empty string");
    }
    offering.zone = zone->get<std::string>();
    auto capacity_type = value.find("capacityType");
    if (capacity_type == value.end() || !capacity_type->is_string()) {
      return Fail(fmt::format("{}.capacityType", field), "required: on-demand, spot or reserved");
    }
    offering.capacity_type = capacity_type->get<std::string>();
    if (offering.capacity_type != api::kCapacityTypeOnDemand &&
        offering.capacity_type != api::kCapacityTypeSpot &&
        offering.capacity_type != api::kCapacityTypeReserved) {
      return Fail(
          fmt::format("{}.capacityType", field),
          fmt::format("{} is not on-demand, spot or reserved", Quote(offering.capacity_type)));
    }
    auto price = value.find("price");
    if (price == value.end() || !price->is_number()) {
      return Fail(fmt::format("{}.price", field), "required number (USD per hour)");
    }
    offering.price = price->get<double>();
    if (!(offering.price >= 0) || !std::isfinite(offering.price)) {
      return Fail(fmt::format("{}.price", field),
                  fmt::format("must be a non-negative number, got {}", price->dump()));
    }
    if (auto available = value.find("available"); available != value.end()) {
      if (!available->is_boolean()) {
        return Fail(fmt::format("{}.available", field), "expected true or false");
      }
      offering.available = available->get<bool>();
    }
    return offering;
  }

  Result<InstanceType> ParseInstanceType(const json& value, size_t index) const {
    std::string field = fmt::format("instanceTypes[{}]", index);
    if (!value.is_object()) {
      return Fail(field, fmt::format("expected an object, got {}", value.type_name()));
    }
    auto name = value.find("name");
    if (name == value.end() || !name->is_string() || name->get<std::string>().empty()) {
      return Fail(fmt::format("{}.name", field), "required non-empty string");
    }
    InstanceType type;
    type.name = name->get<std::string>();
    field = fmt::format("{} ({})", field, Quote(type.name));
    if (Status s = CheckFields(value, field,
                               {"name", "labels", "capacity", "overhead", "offerings", "exotic"});
        !s.ok()) {
      return s.error();
    }

    // Labels.
    api::Labels labels;
    if (auto found = value.find("labels"); found != value.end()) {
      const std::string labels_field = field + ".labels";
      if (!found->is_object()) return Fail(labels_field, "expected an object of strings");
      for (const auto& [key, label] : found->items()) {
        const std::string label_field = fmt::format("{}.{}", labels_field, key);
        if (key.empty()) return Fail(labels_field, "empty label key");
        if (!label.is_string()) {
          return Fail(label_field, fmt::format("expected a string, got {}", label.type_name()));
        }
        if (key == api::kLabelZone || key == api::kLabelCapacityType) {
          return Fail(label_field, "set by the offerings; remove it from labels");
        }
        if (key == api::kLabelInstanceType && label.get<std::string>() != type.name) {
          return Fail(label_field, fmt::format("must equal the name {}", Quote(type.name)));
        }
        labels.emplace(key, label.get<std::string>());
      }
    }
    labels[std::string(api::kLabelInstanceType)] = type.name;

    // Capacity.
    auto capacity = value.find("capacity");
    if (capacity == value.end()) return Fail(field + ".capacity", "required");
    ASSIGN_OR_RETURN(api::ResourceList resources, ParseResources(*capacity, field + ".capacity"));
    type.capacity = std::move(resources);
    for (std::string_view required : {api::kResourceCpu, api::kResourceMemory}) {
      if (!capacity->contains(std::string(required))) {
        return Fail(fmt::format("{}.capacity.{}", field, required), "required");
      }
    }
    if (!capacity->contains(std::string(api::kResourcePods))) {
      type.capacity.Set(api::kResourcePods, Quantity::FromUnits(kDefaultPods));
    }

    // Overhead.
    if (auto overhead = value.find("overhead"); overhead != value.end()) {
      const std::string overhead_field = field + ".overhead";
      if (!overhead->is_object()) return Fail(overhead_field, "expected an object");
      if (Status s = CheckFields(*overhead, overhead_field,
                                 {"kubeReserved", "systemReserved", "evictionThreshold"});
          !s.ok()) {
        return s.error();
      }
      struct Part {
        const char* key;
        api::ResourceList* target;
      };
      for (const Part& part : {Part{"kubeReserved", &type.kube_reserved},
                               Part{"systemReserved", &type.system_reserved},
                               Part{"evictionThreshold", &type.eviction_threshold}}) {
        auto found = overhead->find(part.key);
        if (found == overhead->end()) continue;
        ASSIGN_OR_RETURN(api::ResourceList parsed,
                         ParseResources(*found, fmt::format("{}.{}", overhead_field, part.key)));
        *part.target = std::move(parsed);
      }
    }

    // Offerings.
    auto offerings = value.find("offerings");
    if (offerings == value.end() || !offerings->is_array() || offerings->empty()) {
      return Fail(field + ".offerings", "required non-empty array");
    }
    std::set<std::pair<std::string, std::string>> seen;
    for (size_t i = 0; i < offerings->size(); ++i) {
      const std::string offering_field = fmt::format("{}.offerings[{}]", field, i);
      ASSIGN_OR_RETURN(Offering offering, ParseOffering((*offerings)[i], offering_field));
      if (!seen.emplace(offering.zone, offering.capacity_type).second) {
        return Fail(offering_field, fmt::format("duplicate offering for zone {} and {}",
                                                Quote(offering.zone), offering.capacity_type));
      }
      type.offerings.push_back(std::move(offering));
    }

    if (auto exotic = value.find("exotic"); exotic != value.end()) {
      if (!exotic->is_boolean()) return Fail(field + ".exotic", "expected true or false");
      type.exotic = exotic->get<bool>();
    }

    type.requirements = scheduling::Requirements::FromLabels(labels);
    std::vector<std::string> zones;
    std::vector<std::string> capacity_types;
    for (const Offering& offering : type.offerings) {
      if (!offering.available) continue;
      zones.push_back(offering.zone);
      capacity_types.push_back(offering.capacity_type);
    }
    for (auto* values : {&zones, &capacity_types}) {
      std::sort(values->begin(), values->end());
      values->erase(std::unique(values->begin(), values->end()), values->end());
    }
    type.requirements.Add(
        scheduling::Requirement::In(std::string(api::kLabelZone), std::move(zones)));
    type.requirements.Add(scheduling::Requirement::In(std::string(api::kLabelCapacityType),
                                                      std::move(capacity_types)));
    return type;
  }

 private:
  std::string where_;
};

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error{
        fmt::format("catalog file {}: cannot open: {}", Quote(path), std::strerror(errno))};
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{fmt::format("catalog file {}: read failed", Quote(path))};
  return text.str();
}

}  // namespace

Result<std::vector<InstanceType>> ParseCatalogJson(std::string_view text, std::string_view source) {
  const Parser parser(source);
  Result<std::vector<Document>> documents = ParseDocuments(text, source);
  if (!documents.ok()) return Error{"catalog file: " + documents.error().message};
  // One {"instanceTypes": [...]} object, or the instance types themselves (a top-level array or
  // several YAML documents).
  std::vector<const json*> items;
  if (documents->size() == 1 && (*documents)[0].value.is_object() &&
      !(*documents)[0].value.contains("name")) {
    const json& root = (*documents)[0].value;
    RETURN_IF_ERROR(parser.CheckFields(root, "top level", {"instanceTypes"}));
    auto found = root.find("instanceTypes");
    if (found == root.end()) return parser.Fail("instanceTypes", "required");
    if (!found->is_array()) {
      return parser.Fail("instanceTypes", fmt::format("expected an array of instance types, got {}",
                                                      found->type_name()));
    }
    for (const json& item : *found) items.push_back(&item);
  } else {
    for (const Document& document : *documents) items.push_back(&document.value);
  }
  std::vector<InstanceType> catalog;
  catalog.reserve(items.size());
  std::set<std::string, std::less<>> names;
  for (size_t i = 0; i < items.size(); ++i) {
    Result<InstanceType> type = parser.ParseInstanceType(*items[i], i);
    if (!type.ok()) return type.error();
    if (!names.insert(type->name).second) {
      return parser.Fail(fmt::format("instanceTypes[{}].name", i),
                         fmt::format("duplicate instance type {}", Quote(type->name)));
    }
    catalog.push_back(std::move(*type));
  }
  return catalog;
}

Result<std::vector<InstanceType>> LoadCatalog(std::string_view name_or_path) {
  if (const int size = FakeCatalogSize(name_or_path); size > 0) {
    if (size > kMaxFakeCatalogSize) {
      return Error{fmt::format("catalog {}: at most {} fake instance types", Quote(name_or_path),
                               kMaxFakeCatalogSize)};
    }
    return BuildFakeCatalog(size);
  }
  if (name_or_path.empty()) {
    return Error{"catalog: empty name (want aws, fake400 or a JSON file path)"};
  }
  const std::string path(name_or_path);
  std::ifstream probe(path);
  if (!probe && name_or_path.find('/') == std::string_view::npos &&
      name_or_path.find('.') == std::string_view::npos) {
    return Error{fmt::format("catalog {}: unknown catalog (want aws, fake400 or a JSON file path)",
                             Quote(name_or_path))};
  }
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseCatalogJson(text, path);
}

}  // namespace karpenter::cloud
