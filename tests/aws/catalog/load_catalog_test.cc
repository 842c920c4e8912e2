#include "aws/catalog/load_catalog.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using cloud::InstanceType;
using cloud::Offering;

std::string WriteTempFile(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string ErrorOf(const Result<std::vector<InstanceType>>& result) {
  return result.ok() ? std::string("ok") : result.error().message;
}

TEST(LoadCatalogTest, EmbeddedAwsCatalog) {
  Result<std::vector<InstanceType>> aws = LoadCatalog("aws");
  ASSERT_THAT(aws, IsOk()) << ErrorOf(aws);
  EXPECT_EQ(aws->size(), 1345u);
}

TEST(LoadCatalogTest, OtherNamesAreTheProviderNeutralCatalogs) {
  Result<std::vector<InstanceType>> fake = LoadCatalog("fake12");
  ASSERT_THAT(fake, IsOk()) << ErrorOf(fake);
  EXPECT_EQ(fake->size(), 12u);
  EXPECT_NE(ErrorOf(LoadCatalog("azure")).find("unknown catalog"), std::string::npos);
}

TEST(LoadCatalogTest, AwsOptionsAreValidatedAndSpotPricesLoaded) {
  AwsCatalogOptions options;
  options.zones = {"us-east-1a", "us-east-1q"};
  EXPECT_NE(ErrorOf(LoadCatalog("aws", options)).find("\"us-east-1q\""), std::string::npos);

  options = {};
  options.spot_prices_file = WriteTempFile("catalog-spot.json", R"({"m5.xlarge": 0.0123})");
  Result<std::vector<InstanceType>> aws = LoadCatalog("aws", options);
  ASSERT_THAT(aws, IsOk()) << ErrorOf(aws);
  bool found = false;
  for (const InstanceType& t : *aws) {
    if (t.name != "m5.xlarge") continue;
    found = true;
    for (const Offering& o : t.offerings) {
      if (o.capacity_type == "spot") {
        EXPECT_DOUBLE_EQ(o.price, 0.0123);
      }
    }
  }
  EXPECT_TRUE(found);

  options.spot_prices_file = WriteTempFile("catalog-spot-bad.json", R"({"m5.xlarge": "x"})");
  const std::string error = ErrorOf(LoadCatalog("aws", options));
  EXPECT_NE(error.find("catalog-spot-bad.json"), std::string::npos) << error;
  EXPECT_NE(error.find("\"m5.xlarge\""), std::string::npos) << error;
}

}  // namespace
}  // namespace karpenter::aws
