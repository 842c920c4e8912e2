#include "cloud/node_overlays.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/labels.h"
#include "support/matchers.h"

namespace karpenter::cloud {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;

constexpr int64_t kGi = int64_t{1} << 30;

InstanceType Type(std::string name, std::string family, double price) {
  InstanceType type;
  type.name = name;
  type.requirements.Add(scheduling::Requirement::In(std::string(api::kLabelInstanceType), {name}));
  type.requirements.Add(
      scheduling::Requirement::In(std::string(api::kLabelInstanceFamily), {std::move(family)}));
  type.requirements.Add(
      scheduling::Requirement::In(std::string(api::kLabelZone), {"zone-a", "zone-b"}));
  type.requirements.Add(
      scheduling::Requirement::In(std::string(api::kLabelCapacityType), {"on-demand", "spot"}));
  type.capacity.Set(api::kResourceCpu, Quantity::FromUnits(2));
  type.capacity.Set(api::kResourceMemory, Quantity::FromUnits(8 * kGi));
  for (const char* zone : {"zone-a", "zone-b"}) {
    type.offerings.push_back({zone, "on-demand", price});
    type.offerings.push_back({zone, "spot", price / 3});
  }
  return type;
}

std::shared_ptr<const std::vector<InstanceType>> Catalog() {
  return std::make_shared<const std::vector<InstanceType>>(
      std::vector<InstanceType>{Type("m5.large", "m5", 0.096), Type("c5.large", "c5", 0.085)});
}

api::NodeSelectorRequirement In(std::string_view key, std::vector<std::string> values) {
  return {std::string(key), api::NodeSelectorOperator::kIn, std::move(values), std::nullopt};
}

api::NodeOverlay Overlay(std::string name, std::optional<int32_t> weight,
                         std::vector<api::NodeSelectorRequirement> requirements) {
  api::NodeOverlay overlay;
  overlay.metadata.name = std::move(name);
  overlay.spec.weight = weight;
  overlay.spec.requirements = std::move(requirements);
  return overlay;
}

api::NodeOverlay Priced(std::string name, std::optional<int32_t> weight,
                        std::vector<api::NodeSelectorRequirement> requirements,
                        std::string adjustment) {
  api::NodeOverlay overlay = Overlay(std::move(name), weight, std::move(requirements));
  overlay.spec.price_adjustment = std::move(adjustment);
  return overlay;
}

std::vector<OverlayTarget> Pools(const api::Labels& labels = {}) {
  return {{"default", labels, Catalog()}, {"batch", {}, Catalog()}};
}

// The price of `type`'s offering in `zone` of `capacity_type` after `evaluation`, for `pool`.
double PriceOf(const OverlayEvaluation& evaluation, std::string_view pool, std::string_view type,
               std::string_view zone, std::string_view capacity_type) {
  const auto types = ApplyOverlayChanges(evaluation.node_pools.find(pool)->second, Catalog());
  for (const InstanceType& candidate : *types) {
    if (candidate.name != type) continue;
    for (const Offering& offering : candidate.offerings) {
      if (offering.zone == zone && offering.capacity_type == capacity_type) return offering.price;
    }
  }
  ADD_FAILURE() << "no offering " << type << " " << zone << " " << capacity_type;
  return -1;
}

TEST(NodeOverlaysTest, RequirementsSelectTypesAndOfferings) {
  const std::vector<api::NodeOverlay> overlays = {
      Priced("savings-plan", 10,
             {In(api::kLabelInstanceFamily, {"m5"}), In(api::kLabelCapacityType, {"on-demand"}),
              In(api::kLabelZone, {"zone-b"})},
             "-50%")};
  const std::vector<OverlayTarget> targets = Pools();
  const OverlayEvaluation evaluation = EvaluateOverlays(overlays, targets);
  EXPECT_THAT(evaluation.conflicts, IsEmpty());
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "default", "m5.large", "zone-b", "on-demand"), 0.048);
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "default", "m5.large", "zone-a", "on-demand"), 0.096);
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "default", "m5.large", "zone-b", "spot"), 0.032);
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "default", "c5.large", "zone-b", "on-demand"), 0.085);
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "batch", "m5.large", "zone-b", "on-demand"), 0.048);
}

TEST(NodeOverlaysTest, NodePoolNameAndTemplateLabelsSelect) {
  const std::vector<api::NodeOverlay> overlays = {
      Priced("licence", std::nullopt, {In(api::kLabelNodePool, {"batch"})}, "+0.5"),
      Priced("team", std::nullopt, {In("example.com/team", {"web"})}, "+1")};
  const std::vector<OverlayTarget> targets = Pools({{"example.com/team", "web"}});
  const OverlayEvaluation evaluation = EvaluateOverlays(overlays, targets);
  EXPECT_THAT(evaluation.conflicts, IsEmpty());
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "batch", "c5.large", "zone-a", "on-demand"), 0.585);
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "default", "c5.large", "zone-a", "on-demand"), 1.085);
}

TEST(NodeOverlaysTest, HeaviestPricesFirstAndPricesDoNotStack) {
  const std::vector<api::NodeOverlay> overlays = {
      Priced("light", 1, {}, "+1"),
      Priced("heavy", 50, {In(api::kLabelInstanceFamily, {"m5"})}, "-50%")};
  const std::vector<OverlayTarget> targets = Pools();
  const OverlayEvaluation evaluation = EvaluateOverlays(overlays, targets);
  EXPECT_THAT(evaluation.conflicts, IsEmpty());
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "default", "m5.large", "zone-a", "on-demand"), 0.048);
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "default", "c5.large", "zone-a", "on-demand"), 1.085);
}

TEST(NodeOverlaysTest, EqualWeightsOnTheSamePriceConflictAndTheEarlierNameLoses) {
  const std::vector<api::NodeOverlay> overlays = {
      Priced("overlay-a", 10, {In(api::kLabelInstanceFamily, {"m5"})}, "-10%"),
      Priced("overlay-b", 10, {}, "+10%"),
      // Same weight, no overlap with either: applied.
      Priced("overlay-c", 10, {In(api::kLabelInstanceFamily, {"r5"})}, "+1")};
  const std::vector<OverlayTarget> targets = Pools();
  const OverlayEvaluation evaluation = EvaluateOverlays(overlays, targets);
  ASSERT_EQ(evaluation.conflicts.size(), 1u);
  EXPECT_EQ(evaluation.conflicts[0].overlay, "overlay-a");
  EXPECT_EQ(evaluation.conflicts[0].with, "overlay-b");
  EXPECT_THAT(evaluation.conflicts[0].what, testing::HasSubstr("the price of m5.large"));
  // overlay-a applies nowhere, not even to the offerings overlay-b left alone.
  EXPECT_DOUBLE_EQ(PriceOf(evaluation, "default", "m5.large", "zone-a", "on-demand"), 0.096 * 1.1);
}

TEST(NodeOverlaysTest, CapacityMergesAcrossWeightsAndConflictsOnlyOnTheSameName) {
  api::NodeOverlay heavy = Overlay("heavy", 10, {In(api::kLabelInstanceFamily, {"m5"})});
  heavy.spec.capacity.Set("example.com/fuse", Quantity::FromUnits(2));
  api::NodeOverlay light = Overlay("light", 5, {});
  light.spec.capacity.Set("example.com/fuse", Quantity::FromUnits(9));
  light.spec.capacity.Set("hugepages-2Mi", Quantity::FromUnits(kGi));
  api::NodeOverlay twin = Overlay("twin", 5, {});
  twin.spec.capacity.Set("example.com/gpu.shared", Quantity::FromUnits(3));
  api::NodeOverlay clash = Overlay("clash", 5, {In(api::kLabelInstanceFamily, {"c5"})});
  clash.spec.capacity.Set("hugepages-2Mi", Quantity::FromUnits(1));
  const std::vector<api::NodeOverlay> overlays = {heavy, light, twin, clash};
  const std::vector<OverlayTarget> targets = Pools();
  const OverlayEvaluation evaluation = EvaluateOverlays(overlays, targets);
  // "twin" sorts after "light", "light" after "clash": clash meets light's hugepages on c5.
  EXPECT_THAT(evaluation.conflicts, ElementsAre(Field(&OverlayConflict::overlay, "clash")));
  const auto types = ApplyOverlayChanges(evaluation.node_pools.find("default")->second, Catalog());
  const InstanceType& m5 = (*types)[0];
  EXPECT_EQ(m5.capacity.Get("example.com/fuse"), Quantity::FromUnits(2));
  EXPECT_EQ(m5.capacity.Get("example.com/gpu.shared"), Quantity::FromUnits(3));
  EXPECT_EQ(m5.capacity.Get("hugepages-2Mi"), Quantity::FromUnits(kGi));
  // Huge pages come out of the memory pods may request.
  EXPECT_EQ(m5.capacity.memory(), Quantity::FromUnits(7 * kGi));
  const InstanceType& c5 = (*types)[1];
  EXPECT_EQ(c5.capacity.Get("example.com/fuse"), Quantity::FromUnits(9));
}

TEST(NodeOverlaysTest, StoreWaitsForEvaluationAndKeepsResultsWhileNothingChanges) {
  OverlayStore store;
  const auto base = Catalog();
  Result<std::shared_ptr<const std::vector<InstanceType>>> waiting = store.Apply("default", base);
  ASSERT_FALSE(waiting.ok());
  EXPECT_EQ(waiting.error().reason, kReasonAwaitingOverlays);

  const std::vector<api::NodeOverlay> overlays = {Priced("all", 1, {}, "+1")};
  std::vector<OverlayTarget> targets = {{"default", {}, base}, {"untouched", {}, base}};
  targets[1].template_labels = {{"example.com/x", "y"}};
  store.Publish(EvaluateOverlays(overlays, targets));
  EXPECT_EQ(store.generation(), 1u);
  Result<std::shared_ptr<const std::vector<InstanceType>>> first = store.Apply("default", base);
  ASSERT_THAT(first, IsOk());
  EXPECT_NE(first->get(), base.get());
  EXPECT_DOUBLE_EQ((**first)[0].offerings[0].price, 1.096);
  Result<std::shared_ptr<const std::vector<InstanceType>>> again = store.Apply("default", base);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->get(), first->get());

  // The same evaluation again changes nothing, not even the address handed out.
  store.Publish(EvaluateOverlays(overlays, targets));
  EXPECT_EQ(store.generation(), 1u);
  EXPECT_EQ(store.Apply("default", base)->get(), first->get());
  // No overlay selects nothing: the cloud's own list.
  store.Publish(EvaluateOverlays({}, targets));
  EXPECT_EQ(store.generation(), 2u);
  EXPECT_EQ(store.Apply("untouched", base)->get(), base.get());
}

}  // namespace
}  // namespace karpenter::cloud
