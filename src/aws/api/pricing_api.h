#pragma once
// The AWS Price List query API (service "pricing", JSON 1.1): the on-demand hourly prices of the
// EC2 instance types of a region. GetProducts answers with pages of PriceList entries, each a JSON
// document in a string; entries that do not parse into an instance type and a USD price are
// skipped and counted, never fatal.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "aws/sdk/service_client.h"
#include "common/result.h"

namespace karpenter::aws {

struct OnDemandPriceList {
  std::map<std::string, double, std::less<>> prices;  // instance type → USD per hour
  size_t entries = 0;                                 // PriceList entries read, on all pages
  size_t skipped = 0;                                 // entries that did not parse
  std::string first_problem;                          // why the first skipped entry was skipped
};

// Not thread-safe, as its ServiceClient is not.
class PricingApi {
 public:
  // `client` is the pricing ServiceClient (AwsClients::pricing()) and must outlive this.
  explicit PricingApi(ServiceClient& client) : client_(client) {}

  // GetProducts for AmazonEC2 with TERM_MATCH filters regionCode=`region`, operatingSystem=Linux,
  // tenancy=Shared, capacitystatus=Used, preInstalledSw=NA and marketoption=OnDemand, following
  // NextToken to the last page. A type listed more than once keeps its lowest positive price;
  // zero prices are ignored.
  Result<OnDemandPriceList> GetOnDemandPrices(const std::string& region);

 private:
  ServiceClient& client_;
};

// Reads one PriceList entry: product.attributes.instanceType and the USD pricePerUnit of the
// OnDemand term's price dimension. Errors say what is missing. Exposed for tests.
struct OnDemandPriceEntry {
  std::string instance_type;
  double price = 0;
};
Result<OnDemandPriceEntry> ParseOnDemandPriceEntry(const std::string& document);

}  // namespace karpenter::aws
