#pragma once
// The catalogs the CLI, the simulated cloud and the benchmarks choose by name: "aws", the embedded
// EC2 catalog (us-east-1; see aws_catalog.h) built with the given options
// (options.spot_prices_file, when set, overrides modelled spot prices; see spot_price_model.h), or
// any catalog cloud::LoadCatalog knows (fake<N>, a JSON file).

#include <string_view>
#include <vector>

#include "aws/catalog/aws_catalog.h"
#include "cloud/instance_type.h"
#include "common/result.h"

namespace karpenter::aws {

Result<std::vector<cloud::InstanceType>> LoadCatalog(std::string_view name_or_path,
                                                     const AwsCatalogOptions& options = {});

}  // namespace karpenter::aws
