#include "cloud/catalog.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "api/labels.h"
#include "support/matchers.h"

namespace karpenter::cloud {
namespace {

std::string WriteTempFile(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::vector<std::string> Values(const InstanceType& type, std::string_view key) {
  const scheduling::Requirement* requirement = type.requirements.Get(key);
  return requirement == nullptr ? std::vector<std::string>{"<undefined>"} : requirement->Values();
}

std::string ErrorOf(const Result<std::vector<InstanceType>>& result) {
  return result.ok() ? std::string("ok") : result.error().message;
}

constexpr const char* kTwoTypes = R"({
  "instanceTypes": [
    {
      "name": "small-a",
      "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "tier": "gold"},
      "capacity": {"cpu": "2", "memory": "4Gi", "pods": 20, "nvidia.com/gpu": 1},
      "overhead": {"kubeReserved": {"cpu": "100m", "memory": "10Mi"},
                   "evictionThreshold": {"memory": "100Mi"}},
      "offerings": [
        {"zone": "zone-a", "capacityType": "on-demand", "price": 0.1},
        {"zone": "zone-b", "capacityType": "spot", "price": 0.03},
        {"zone": "zone-c", "capacityType": "spot", "price": 0.02, "available": false}
      ],
      "exotic": true
    },
    {
      "name": "big-b",
      "capacity": {"cpu": 0.5, "memory": "1.5Gi"},
      "offerings": [{"zone": "zone-a", "capacityType": "reserved", "price": 0}]
    }
  ]
})";

TEST(CatalogTest, FakeCatalogs) {
  Result<std::vector<InstanceType>> fake = LoadCatalog("fake400");
  ASSERT_THAT(fake, IsOk()) << ErrorOf(fake);
  EXPECT_EQ(fake->size(), 400u);
  EXPECT_EQ(fake->back().name, "fake-it-399");
  Result<std::vector<InstanceType>> small = LoadCatalog("fake12");
  ASSERT_THAT(small, IsOk());
  EXPECT_EQ(small->size(), 12u);
  EXPECT_NE(ErrorOf(LoadCatalog("fake1000000")).find("at most"), std::string::npos);
}

TEST(CatalogTest, LoadsAJsonFile) {
  const std::string path = WriteTempFile("catalog-two.json", kTwoTypes);
  Result<std::vector<InstanceType>> catalog = LoadCatalog(path);
  ASSERT_THAT(catalog, IsOk()) << ErrorOf(catalog);
  ASSERT_EQ(catalog->size(), 2u);
  const InstanceType& a = (*catalog)[0];
  EXPECT_EQ(a.name, "small-a");
  EXPECT_TRUE(a.exotic);
  EXPECT_EQ(a.capacity.cpu(), Quantity::FromUnits(2));
  EXPECT_EQ(a.capacity.memory(), Quantity::FromUnits(int64_t{4} << 30));
  EXPECT_EQ(a.capacity.pods(), Quantity::FromUnits(20));
  EXPECT_EQ(a.capacity.Get("nvidia.com/gpu"), Quantity::FromUnits(1));
  EXPECT_EQ(a.kube_reserved.cpu(), Quantity::FromMilli(100));
  EXPECT_EQ(a.eviction_threshold.memory(), Quantity::FromUnits(100 << 20));
  EXPECT_TRUE(a.system_reserved.empty());
  ASSERT_EQ(a.offerings.size(), 3u);
  EXPECT_FALSE(a.offerings[2].available);
  EXPECT_EQ(Values(a, api::kLabelInstanceType), std::vector<std::string>{"small-a"});
  EXPECT_EQ(Values(a, "tier"), std::vector<std::string>{"gold"});
  EXPECT_EQ(Values(a, api::kLabelZone), (std::vector<std::string>{"zone-a", "zone-b"}));
  EXPECT_EQ(Values(a, api::kLabelCapacityType), (std::vector<std::string>{"on-demand", "spot"}));

  const InstanceType& b = (*catalog)[1];
  EXPECT_EQ(b.capacity.cpu(), Quantity::FromMilli(500));
  EXPECT_EQ(b.capacity.pods(), Quantity::FromUnits(110));  // default
  EXPECT_FALSE(b.exotic);
  EXPECT_EQ(Values(b, api::kLabelCapacityType), std::vector<std::string>{"reserved"});
}

TEST(CatalogTest, AcceptsATopLevelArrayAndYaml) {
  Result<std::vector<InstanceType>> array = ParseCatalogJson(
      R"([{"name": "x", "capacity": {"cpu": 1, "memory": "1Gi"},
           "offerings": [{"zone": "z", "capacityType": "spot", "price": 0.01}]}])",
      "inline");
  ASSERT_THAT(array, IsOk()) << ErrorOf(array);
  EXPECT_EQ(array->size(), 1u);
  Result<std::vector<InstanceType>> yaml = ParseCatalogJson(
      "instanceTypes:\n"
      "- name: y\n"
      "  capacity: {cpu: 2, memory: 2Gi}\n"
      "  offerings:\n"
      "  - {zone: z, capacityType: on-demand, price: 0.02}\n",
      "inline.yaml");
  ASSERT_THAT(yaml, IsOk()) << ErrorOf(yaml);
  ASSERT_EQ(yaml->size(), 1u);
  EXPECT_EQ((*yaml)[0].capacity.cpu(), Quantity::FromUnits(2));
}

struct ErrorCase {
  const char* name;
  const char* text;
  const char* expected;
};

class CatalogErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(CatalogErrorTest, NamesTheFileAndTheField) {
  const ErrorCase& c = GetParam();
  const std::string path = WriteTempFile(std::string("catalog-") + c.name + ".json", c.text);
  const std::string error = ErrorOf(LoadCatalog(path));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find(c.expected), std::string::npos) << error;
}

#define OFFER R"("offerings": [{"zone": "z", "capacityType": "spot", "price": 0.01}])"
#define CAP R"("capacity": {"cpu": 1, "memory": "1Gi"})"

INSTANTIATE_TEST_SUITE_P(
    Errors, CatalogErrorTest,
    testing::Values(
        ErrorCase{"syntax", R"({"instanceTypes": [)", "JSON"},
        ErrorCase{"no-list", R"({"types": []})", "unknown field \"types\""},
        ErrorCase{"list-type", R"({"instanceTypes": 3})", "instanceTypes: expected an array"},
        ErrorCase{"no-name", R"({"instanceTypes": [{)" CAP "," OFFER "}]}",
                  "instanceTypes[0].name: required"},
        ErrorCase{"no-cpu",
                  R"({"instanceTypes": [{"name": "a", "capacity": {"memory": "1Gi"},)" OFFER "}]}",
                  "instanceTypes[0] (\"a\").capacity.cpu: required"},
        ErrorCase{
            "bad-quantity",
            R"({"instanceTypes": [{"name": "a", "capacity": {"cpu": 1, "memory": "4Gx"},)" OFFER
            "}]}",
            "instanceTypes[0] (\"a\").capacity.memory: invalid quantity \"4Gx\""},
        ErrorCase{
            "negative",
            R"({"instanceTypes": [{"name": "a", "capacity": {"cpu": -1, "memory": "1"},)" OFFER
            "}]}",
            "capacity.cpu: negative quantity"},
        ErrorCase{"no-offerings", R"({"instanceTypes": [{"name": "a", )" CAP "}]}",
                  "instanceTypes[0] (\"a\").offerings: required non-empty array"},
        ErrorCase{"bad-capacity-type",
                  R"({"instanceTypes": [{"name": "a", )" CAP
                  R"(, "offerings": [{"zone": "z", "capacityType": "cheap", "price": 1}]}]})",
                  "offerings[0].capacityType: \"cheap\" is not on-demand, spot or reserved"},
        ErrorCase{"bad-price",
                  R"({"instanceTypes": [{"name": "a", )" CAP
                  R"(, "offerings": [{"zone": "z", "capacityType": "spot", "price": "1"}]}]})",
                  "offerings[0].price: required number"},
        ErrorCase{"duplicate-offering",
                  R"({"instanceTypes": [{"name": "a", )" CAP
                  R"(, "offerings": [{"zone": "z", "capacityType": "spot", "price": 1},
                                     {"zone": "z", "capacityType": "spot", "price": 2}]}]})",
                  "offerings[1]: duplicate offering"},
        ErrorCase{"zone-label",
                  R"({"instanceTypes": [{"name": "a", )" CAP "," OFFER
                  R"(, "labels": {"topology.kubernetes.io/zone": "z"}}]})",
                  "labels.topology.kubernetes.io/zone: set by the offerings"},
        ErrorCase{"label-type",
                  R"({"instanceTypes": [{"name": "a", )" CAP "," OFFER
                  R"(, "labels": {"size": 3}}]})",
                  "labels.size: expected a string"},
        ErrorCase{"unknown-field",
                  R"({"instanceTypes": [{"name": "a", )" CAP "," OFFER R"(, "cost": 1}]})",
                  "instanceTypes[0] (\"a\"): unknown field \"cost\""},
        ErrorCase{"overhead",
                  R"({"instanceTypes": [{"name": "a", )" CAP "," OFFER
                  R"(, "overhead": {"kubeReserved": {"cpu": "lots"}}}]})",
                  "overhead.kubeReserved.cpu: invalid quantity \"lots\""},
        ErrorCase{"duplicate-name",
                  R"({"instanceTypes": [{"name": "a", )" CAP "," OFFER R"(}, {"name": "a", )" CAP
                  "," OFFER "}]}",
                  "instanceTypes[1].name: duplicate instance type \"a\""}),
    [](const testing::TestParamInfo<ErrorCase>& info) {
      std::string name = info.param.name;
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

#undef OFFER
#undef CAP

TEST(CatalogTest, UnknownNamesAndMissingFiles) {
  EXPECT_NE(ErrorOf(LoadCatalog("azure")).find("unknown catalog"), std::string::npos);
  EXPECT_NE(ErrorOf(LoadCatalog("")).find("empty name"), std::string::npos);
  const std::string missing = testing::TempDir() + "/no-such-catalog.json";
  const std::string error = ErrorOf(LoadCatalog(missing));
  EXPECT_NE(error.find(missing), std::string::npos) << error;
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

}  // namespace
}  // namespace karpenter::cloud
