#include "aws/api/pricing_api.h"

#include <fmt/format.h>

#include <charconv>
#include <string_view>
#include <utility>

#include "aws/sdk/json_protocol.h"
#include "aws/sdk/pagination.h"
#include "common/json.h"

namespace karpenter::aws {
namespace {

constexpr int kMaxResults = 100;  // GetProducts' largest page

Json TermMatch(std::string_view field, std::string_view value) {
  return {{"Type", "TERM_MATCH"}, {"Field", field}, {"Value", value}};
}

// The text of a string member, or nullptr when it is missing or not a string.
const std::string* StringAt(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return nullptr;
  return it->get_ptr<const std::string*>();
}

}  // namespace

Result<OnDemandPriceEntry> ParseOnDemandPriceEntry(const std::string& document) {
  Json entry = Json::parse(document, nullptr, /*allow_exceptions=*/false);
  if (entry.is_discarded()) return Error{"not JSON"};
  if (!entry.is_object()) return Error{"not a JSON object"};
  const Json attributes = entry.value("/product/attributes"_json_pointer, Json());
  const std::string* instance_type = StringAt(attributes, "instanceType");
  if (instance_type == nullptr || instance_type->empty()) {
    return Error{"no string product.attributes.instanceType"};
  }
  const Json on_demand = entry.value("/terms/OnDemand"_json_pointer, Json());
  if (!on_demand.is_object() || on_demand.empty()) {
    return Error{fmt::format("{}: no terms.OnDemand", *instance_type)};
  }
  // One offer term holding price dimensions; take the first USD price per hour.
  for (const auto& [sku, term] : on_demand.items()) {
    const Json dimensions = term.is_object() ? term.value("priceDimensions", Json()) : Json();
    if (!dimensions.is_object()) continue;
    for (const auto& [rate_code, dimension] : dimensions.items()) {
      const Json price_per_unit =
          dimension.is_object() ? dimension.value("pricePerUnit", Json()) : Json();
      const std::string* usd = StringAt(price_per_unit, "USD");
      if (usd == nullptr) continue;
      double price = 0;
      auto [end, ec] = std::from_chars(usd->data(), usd->data() + usd->size(), price);
      if (ec != std::errc() || end != usd->data() + usd->size() || !(price >= 0)) {
        return Error{
            fmt::format("{}: terms.OnDemand.{}.priceDimensions.{}.pricePerUnit.USD "
                        "\"{}\" is not a price",
                        *instance_type, sku, rate_code, *usd)};
      }
      return OnDemandPriceEntry{*instance_type, price};
    }
  }
  return Error{fmt::format("{}: no USD pricePerUnit in terms.OnDemand", *instance_type)};
}

Result<OnDemandPriceList> PricingApi::GetOnDemandPrices(const std::string& region) {
  const Json filters = Json::array({
      TermMatch("regionCode", region),
      TermMatch("operatingSystem", "Linux"),
      TermMatch("tenancy", "Shared"),
      TermMatch("capacitystatus", "Used"),
      TermMatch("preInstalledSw", "NA"),
      TermMatch("marketoption", "OnDemand"),
  });
  OnDemandPriceList list;
  const std::string operation = "pricing GetProducts (AmazonEC2, " + region + ")";
  Status status = Paginate(operation, [&](const std::string& token) -> Result<std::string> {
    Json input = {{"ServiceCode", "AmazonEC2"},
                  {"Filters", filters},
                  {"FormatVersion", "aws_v1"},
                  {"MaxResults", kMaxResults}};
    if (!token.empty()) input["NextToken"] = token;
    ASSIGN_OR_RETURN(Json output, CallJson(client_, kPricingJson, "GetProducts", input));
    const Json entries = output.value("PriceList", Json::array());
    if (!entries.is_array()) return Error{operation + ": PriceList is not a list"};
    for (const Json& item : entries) {
      ++list.entries;
      Result<OnDemandPriceEntry> entry =
          item.is_string() ? ParseOnDemandPriceEntry(item.get<std::string>())
                           : Result<OnDemandPriceEntry>(Error{"a PriceList entry is not a string"});
      if (!entry.ok()) {
        if (list.skipped++ == 0) list.first_problem = entry.error().message;
        continue;
      }
      if (!(entry->price > 0)) continue;
      auto [it, inserted] = list.prices.emplace(entry->instance_type, entry->price);
      if (!inserted && entry->price < it->second) it->second = entry->price;
    }
    const std::string* next = StringAt(output, "NextToken");
    return next == nullptr ? std::string() : *next;
  });
  if (!status.ok()) return status.error();
  return list;
}

}  // namespace karpenter::aws
