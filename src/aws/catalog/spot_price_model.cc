#include "aws/catalog/spot_price_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "aws/catalog/aws_catalog.h"
#include "common/document.h"
#include "common/hash.h"
#include "common/json.h"

namespace karpenter::aws {
namespace {

// A uniform number in [0, 1) from (seed, family, zone), the same on every platform.
double Uniform(uint64_t seed, std::string_view family, std::string_view zone) {
  uint64_t hash = kFnv1a64Offset;
  for (int i = 0; i < 8; ++i) {
    const char byte = static_cast<char>((seed >> (8 * i)) & 0xff);
    hash = Fnv1a64(std::string_view(&byte, 1), hash);
  }
  hash = Fnv1a64(family, hash);
  hash = Fnv1a64(std::string_view("\0", 1), hash);
  hash = Fnv1a64(zone, hash);
  return UniformFromHash(hash);
}

std::string Quote(std::string_view text) { return fmt::format("\"{}\"", text); }

}  // namespace

double SpotPriceModel::Discount(std::string_view instance_type, std::string_view zone) const {
  const InstanceTypeNameParts parts = ParseInstanceTypeName(instance_type);
  const std::string_view family =
      parts.family.empty() ? instance_type : std::string_view{parts.family};
  int generation = kSpotNewestGeneration;
  if (!parts.generation.empty()) {
    std::from_chars(parts.generation.data(), parts.generation.data() + parts.generation.size(),
                    generation);
  }
  const double age =
      std::clamp(static_cast<double>(kSpotNewestGeneration - generation) / 6.0, 0.0, 1.0);
  const double u = Uniform(seed_, family, zone);
  return kSpotMinDiscount + (kSpotMaxDiscount - kSpotMinDiscount) * (u + age) / 2.0;
}

std::optional<double> SpotPriceModel::Override(std::string_view instance_type,
                                               std::string_view zone) const {
  auto it = overrides_.find(instance_type);
  if (it == overrides_.end()) return std::nullopt;
  std::optional<double> all_zones;
  for (const ZonePrice& entry : it->second) {
    if (entry.zone == zone) return entry.price;
    if (entry.zone.empty()) all_zones = entry.price;
  }
  return all_zones;
}

double SpotPriceModel::Price(std::string_view instance_type, std::string_view zone,
                             double on_demand) const {
  if (!overrides_.empty()) {
    if (std::optional<double> price = Override(instance_type, zone)) return *price;
  }
  if (!(on_demand > 0)) return 0;
  const double exact = on_demand * (1.0 - Discount(instance_type, zone));
  const double rounded = std::round(exact * 1e5) / 1e5;
  return rounded > 0 ? std::min(rounded, on_demand) : exact;
}

size_t SpotPriceModel::override_count() const {
  size_t count = 0;
  for (const auto& [name, prices] : overrides_) count += prices.size();
  return count;
}

Status SpotPriceModel::LoadSpotPrices(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error{
        fmt::format("spot prices file {}: cannot open: {}", Quote(path), std::strerror(errno))};
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{fmt::format("spot prices file {}: read failed", Quote(path))};
  return LoadSpotPricesJson(text.str(), path);
}

Status SpotPriceModel::LoadSpotPricesJson(std::string_view text, std::string_view source) {
  const std::string where = fmt::format("spot prices file {}", Quote(source));
  Result<std::vector<Document>> documents = ParseDocuments(text, source);
  if (!documents.ok()) return Error{"spot prices file: " + documents.error().message};
  if (documents->size() != 1) {
    return Error{
        fmt::format("{}: expected one object, got {} documents", where, documents->size())};
  }
  const Json& root = (*documents)[0].value;
  if (!root.is_object()) {
    return Error{fmt::format(
        "{}: expected an object keyed by instance type (price or {{zone: price}})", where)};
  }
  auto check_price = [&](const Json& value, const std::string& field) -> Result<double> {
    if (!value.is_number()) {
      return Error{fmt::format("{}: {}: expected a number (USD per hour), got {}", where, field,
                               value.type_name())};
    }
    const double price = value.get<double>();
    if (!(price >= 0) || !std::isfinite(price)) {
      return Error{fmt::format("{}: {}: price must be a non-negative number, got {}", where, field,
                               value.dump())};
    }
    return price;
  };
  // Validate everything before changing anything.
  std::vector<std::pair<std::string, ZonePrice>> loaded;
  for (const auto& [type, value] : root.items()) {
    if (type.empty()) return Error{fmt::format("{}: empty instance type name", where)};
    if (value.is_object()) {
      for (const auto& [zone, price_value] : value.items()) {
        const std::string field = fmt::format("{}.{}", Quote(type), Quote(zone));
        if (zone.empty()) return Error{fmt::format("{}: {}: empty zone name", where, field)};
        ASSIGN_OR_RETURN(double price, check_price(price_value, field));
        loaded.emplace_back(type, ZonePrice{zone, price});
      }
    } else {
      ASSIGN_OR_RETURN(double price, check_price(value, Quote(type)));
      loaded.emplace_back(type, ZonePrice{"", price});
    }
  }
  for (auto& [type, entry] : loaded) {
    std::vector<ZonePrice>& prices = overrides_[type];
    const std::string& zone = entry.zone;
    auto same = std::find_if(prices.begin(), prices.end(),
                             [&](const ZonePrice& p) { return p.zone == zone; });
    if (same != prices.end()) {
      same->price = entry.price;
    } else {
      prices.push_back(std::move(entry));
    }
  }
  return {};
}

}  // namespace karpenter::aws
