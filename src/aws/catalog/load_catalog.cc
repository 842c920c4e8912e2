#include "aws/catalog/load_catalog.h"

#include "aws/catalog/spot_price_model.h"
#include "cloud/catalog.h"

namespace karpenter::aws {

Result<std::vector<cloud::InstanceType>> LoadCatalog(std::string_view name_or_path,
                                                     const AwsCatalogOptions& options) {
  if (name_or_path != "aws") return cloud::LoadCatalog(name_or_path);
  if (Status s = ValidateAwsCatalogOptions(options); !s.ok()) {
    return Error{"aws catalog: " + s.error().message};
  }
  SpotPriceModel spot(options.spot_seed);
  if (!options.spot_prices_file.empty()) {
    RETURN_IF_ERROR(spot.LoadSpotPrices(options.spot_prices_file));
  }
  return BuildAwsCatalog(options, spot);
}

}  // namespace karpenter::aws
