#include "aws/sdk/endpoints.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

#include "aws/sdk/url.h"

namespace karpenter::aws {
namespace {

struct Partition {
  std::string_view name;
  std::string_view dns_suffix;
};

constexpr Partition kAws{"aws", "amazonaws.com"};
constexpr Partition kAwsCn{"aws-cn", "amazonaws.com.cn"};
constexpr Partition kAwsUsGov{"aws-us-gov", "amazonaws.com"};

// Services whose endpoint is "<service>.<region>.<suffix>" in every partition.
constexpr std::array<std::string_view, 6> kRegionalServices = {"ec2", "ssm", "sqs",
                                                               "sts", "eks", "events"};
// Pricing answers only in these regions of the aws partition; other regions use the first.
constexpr std::array<std::string_view, 3> kPricingRegions = {"us-east-1", "eu-central-1",
                                                             "ap-south-1"};

// ASCII only, whatever the locale.
bool Lowercase(std::string_view word) {
  return !word.empty() &&
         std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}
bool Digits(std::string_view word) {
  return !word.empty() &&
         std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t end = text.find(separator); end != std::string_view::npos;
       end = text.find(separator, start)) {
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

// Region names look like "us-east-1", "ap-southeast-2", "us-gov-west-1": a two-letter area,
// words, and a number. Checking the shape keeps a typo from becoming a hostname.
Result<Partition> PartitionOf(std::string_view region) {
  const std::vector<std::string_view> parts = Split(region, '-');
  const bool shaped = parts.size() >= 3 && parts[0].size() == 2 && Lowercase(parts[0]) &&
                      Digits(parts.back()) &&
                      std::all_of(parts.begin() + 1, parts.end() - 1, Lowercase);
  if (!shaped) {
    return Error{"invalid AWS region \"" + std::string(region) +
                 "\": expected a name such as us-east-1"};
  }
  // The isolated partitions (us-iso-east-1, us-isob-east-1, …) use other DNS suffixes.
  if (parts[1].starts_with("iso")) {
    return Error{"AWS region " + std::string(region) +
                 " is in a partition this SDK does not serve"};
  }
  if (parts[0] == "cn") return kAwsCn;
  if (parts[0] == "us" && parts[1] == "gov") return kAwsUsGov;
  return kAws;
}

Result<Endpoint> DefaultEndpoint(std::string_view service, std::string_view region,
                                 const Partition& partition) {
  const std::string suffix(partition.dns_suffix);
  if (std::find(kRegionalServices.begin(), kRegionalServices.end(), service) !=
      kRegionalServices.end()) {
    const std::string name(service);
    return Endpoint{"https", name + "." + std::string(region) + "." + suffix, "",
                    std::string(region), name};
  }
  if (service == "iam") {
    // IAM is global: one endpoint per partition, signed for that partition's home region.
    if (partition.name == kAwsCn.name) {
      return Endpoint{"https", "iam.cn-north-1." + suffix, "", "cn-north-1", "iam"};
    }
    if (partition.name == kAwsUsGov.name) {
      return Endpoint{"https", "iam.us-gov." + suffix, "", "us-gov-west-1", "iam"};
    }
    return Endpoint{"https", "iam." + suffix, "", "us-east-1", "iam"};
  }
  if (service == "pricing") {
    std::string home;
    if (partition.name == kAwsCn.name) {
      home = "cn-northwest-1";
    } else if (partition.name == kAws.name) {
      const bool served = std::find(kPricingRegions.begin(), kPricingRegions.end(), region) !=
                          kPricingRegions.end();
      home = served ? std::string(region) : std::string(kPricingRegions[0]);
    } else {
      return Error{"the Pricing API has no endpoint in the " + std::string(partition.name) +
                   " partition (region " + std::string(region) + ")"};
    }
    return Endpoint{"https", "api.pricing." + home + "." + suffix, "", home, "pricing"};
  }
  return Error{"unknown AWS service \"" + std::string(service) +
               "\": expected ec2, ssm, sqs, sts, iam, pricing or eks"};
}

// The scheme, host (with port) and base path of override `url`; `variable` names it in errors.
Status ApplyUrl(std::string_view variable, std::string_view url, Endpoint& endpoint) {
  ASSIGN_OR_RETURN(Url parsed, ParseUrl(url, variable));
  if (!parsed.query.empty()) {
    return Error{std::string(variable) + " is not a valid endpoint URL: it has a query"};
  }
  std::string_view path = parsed.path;
  while (path.ends_with('/')) path.remove_suffix(1);  // request paths bring their own '/'
  endpoint.scheme = std::move(parsed.scheme);
  endpoint.host = std::move(parsed.host);
  endpoint.path = std::string(path);
  return {};
}

}  // namespace

Result<Endpoint> ResolveEndpoint(std::string_view service, std::string_view region,
                                 const Environment& environment) {
  ASSIGN_OR_RETURN(Partition partition, PartitionOf(region));
  Result<Endpoint> endpoint = DefaultEndpoint(service, region, partition);
  if (!endpoint.ok() || environment.IsTrue("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")) {
    return endpoint;
  }
  // The service id of every service we call is its name in capitals (EC2, SSM, PRICING, …).
  std::string specific = "AWS_ENDPOINT_URL_";
  for (const char c : service) {
    specific.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  const std::array<std::string_view, 2> variables = {specific, "AWS_ENDPOINT_URL"};
  for (const std::string_view variable : variables) {
    const std::string_view url = environment.Get(variable);
    if (url.empty()) continue;
    RETURN_IF_ERROR(ApplyUrl(variable, url, *endpoint));
    break;
  }
  return endpoint;
}

}  // namespace karpenter::aws
