// spec.userData merged into what each AMI family boots with (MIME multipart, TOML for
// Bottlerocket, NodeConfig YAML for AL2023, PowerShell for Windows), then read back as a kubelet
// would register; and MIME and TOML parsed on their own.

#include <string>

#include "aws/userdata/mime.h"
#include "aws/userdata/toml.h"
#include "aws/userdata/user_data.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace karpenter;  // NOLINT(google-build-using-namespace): a fuzz entry point
  constexpr const char* kFamilies[] = {"AL2023", "AL2", "Bottlerocket", "Custom", "Windows2022"};
  constexpr size_t kFamilyCount = sizeof(kFamilies) / sizeof(kFamilies[0]);
  const fuzz::Selected selected = fuzz::Select(fuzz::Text(data, size), kFamilyCount + 2);
  if (selected.choice == kFamilyCount) {
    (void)aws::ParseMime(selected.rest);
    return 0;
  }
  if (selected.choice == kFamilyCount + 1) {
    (void)aws::ParseToml(selected.rest);
    return 0;
  }
  aws::NodeBootstrap bootstrap;
  bootstrap.cluster_name = "fuzz";
  bootstrap.cluster_endpoint = "https://example.com";
  bootstrap.certificate_authority = "Y2E=";
  bootstrap.service_cidr = "10.100.0.0/16";
  bootstrap.ami_family = kFamilies[selected.choice];
  bootstrap.labels = {{"karpenter.sh/nodepool", "default"}};
  bootstrap.custom_user_data = std::string(selected.rest);
  const Result<std::string> rendered = aws::RenderUserData(bootstrap);
  if (rendered.ok()) (void)aws::ParseNodeRegistration(*rendered);
  return 0;
}
