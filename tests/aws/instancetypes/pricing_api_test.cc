// The Pricing API client against a loopback stand-in answering with fixture pages (moto does not
// implement the Pricing API).

#include "aws/api/pricing_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pricing_server.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

Json Filter(const std::string& field, const std::string& value) {
  return {{"Type", "TERM_MATCH"}, {"Field", field}, {"Value", value}};
}

TEST(PricingApiTest, ReadsEveryPageSkippingAndCountingBrokenEntries) {
  testing::PricingServer server;
  AwsClients clients = server.Clients("us-east-1");
  PricingApi api(clients.pricing());
  Result<OnDemandPriceList> list = api.GetOnDemandPrices("us-west-2");
  ASSERT_THAT(list, IsOk());
  // m5.large is on both pages: the lower price wins; t3.nano's zero price is ignored.
  EXPECT_THAT(list->prices, ElementsAre(Pair("c5.xlarge", 0.17), Pair("m5.large", 0.096),
                                        Pair("m6g.large", 0.077)));
  EXPECT_EQ(list->entries, 8U);
  EXPECT_EQ(list->skipped, 3U);  // not JSON, no instanceType, a price that is not a number
  EXPECT_THAT(list->first_problem, HasSubstr("not JSON"));

  const std::vector<Json> requests = server.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_FALSE(requests[0].contains("NextToken"));
  EXPECT_EQ(requests[1]["NextToken"], "page-2");
  for (const Json& request : requests) {
    EXPECT_EQ(request["ServiceCode"], "AmazonEC2");
    EXPECT_EQ(request["FormatVersion"], "aws_v1");
    const Json& filters = request["Filters"];
    EXPECT_THAT(filters, Contains(Filter("regionCode", "us-west-2")));
    EXPECT_THAT(filters, Contains(Filter("operatingSystem", "Linux")));
    EXPECT_THAT(filters, Contains(Filter("tenancy", "Shared")));
    EXPECT_THAT(filters, Contains(Filter("capacitystatus", "Used")));
    EXPECT_THAT(filters, Contains(Filter("preInstalledSw", "NA")));
  }
}

TEST(PricingApiTest, AnErrorNamesTheOperationAndKeepsTheAwsCode) {
  testing::PricingServer server;
  server.set_fail(true);
  AwsClients clients = server.Clients("us-east-1");
  PricingApi api(clients.pricing());
  Result<OnDemandPriceList> list = api.GetOnDemandPrices("us-west-2");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().reason, "InternalErrorException");
  EXPECT_THAT(list.error().message, HasSubstr("GetProducts"));
}

TEST(ParseOnDemandPriceEntryTest, ReadsTheTypeAndTheUsdPrice) {
  const std::string document = R"({"product":{"attributes":{"instanceType":"r7g.medium"}},
    "terms":{"OnDemand":{"A.B":{"priceDimensions":{"A.B.C":{"unit":"Hrs",
    "pricePerUnit":{"USD":"0.0535000000"}}}}}}})";
  Result<OnDemandPriceEntry> entry = ParseOnDemandPriceEntry(document);
  ASSERT_THAT(entry, IsOk());
  EXPECT_EQ(entry->instance_type, "r7g.medium");
  EXPECT_DOUBLE_EQ(entry->price, 0.0535);
}

TEST(ParseOnDemandPriceEntryTest, SaysWhatIsMissing) {
  EXPECT_THAT(ParseOnDemandPriceEntry("[1,2]").error().message, HasSubstr("not a JSON object"));
  EXPECT_THAT(ParseOnDemandPriceEntry(R"({"product":{}})").error().message,
              HasSubstr("instanceType"));
  EXPECT_THAT(ParseOnDemandPriceEntry(R"({"product":{"attributes":{"instanceType":"m5.large"}}})")
                  .error()
                  .message,
              HasSubstr("m5.large: no terms.OnDemand"));
  EXPECT_THAT(ParseOnDemandPriceEntry(
                  R"({"product":{"attributes":{"instanceType":"m5.large"}},
                      "terms":{"OnDemand":{"A":{"priceDimensions":{"B":{"pricePerUnit":{"EUR":"1"}}}}}}})")
                  .error()
                  .message,
              HasSubstr("no USD pricePerUnit"));
}

}  // namespace
}  // namespace karpenter::aws
