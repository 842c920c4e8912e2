// The other files users hand us: `karpenter simulate --timeline`, `--catalog FILE`, the AWS
// shared config and credentials files, credentials documents (container, IMDS, web identity),
// and endpoint URLs.

#include "aws/sdk/credentials_document.h"
#include "aws/sdk/shared_config.h"
#include "aws/sdk/url.h"
#include "cloud/catalog.h"
#include "fuzz/fuzz_input.h"
#include "simulate/timeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace karpenter;  // NOLINT(google-build-using-namespace): a fuzz entry point
  const fuzz::Selected selected = fuzz::Select(fuzz::Text(data, size), 6);
  switch (selected.choice) {
    case 0:
      (void)simulate::ParseTimeline(selected.rest, "timeline.yaml");
      break;
    case 1:
      (void)cloud::ParseCatalogJson(selected.rest, "catalog.json");
      break;
    case 2:
      (void)aws::ParseSharedFile(selected.rest, "credentials", aws::SharedFileKind::kCredentials);
      break;
    case 3:
      (void)aws::ParseSharedFile(selected.rest, "config", aws::SharedFileKind::kConfig);
      break;
    case 4:
      (void)aws::ParseCredentialsDocument(selected.rest, "document");
      break;
    default:
      (void)aws::ParseUrl(selected.rest, "endpoint");
      break;
  }
  return 0;
}
