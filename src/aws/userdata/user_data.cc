#include "aws/userdata/user_data.h"

#include <algorithm>

#include "api/labels.h"
#include "aws/userdata/families.h"
#include "aws/userdata/mime.h"
#include "fmt/format.h"

namespace karpenter::aws {

std::vector<api::Taint> RegistrationTaints(const NodeBootstrap& bootstrap) {
  std::vector<api::Taint> taints = bootstrap.taints;
  if (bootstrap.ami_family != "Custom") {
    taints.push_back(
        api::Taint{std::string(api::kTaintUnregistered), "", api::TaintEffect::kNoExecute});
  }
  std::sort(taints.begin(), taints.end());
  taints.erase(std::unique(taints.begin(), taints.end()), taints.end());
  return taints;
}

Result<std::string> RenderUserData(const NodeBootstrap& bootstrap) {
  const std::string_view family = bootstrap.ami_family;
  if (family == "Custom") return bootstrap.custom_user_data;
  if (bootstrap.cluster_name.empty()) {
    return Error{fmt::format("user data for amiFamily {}: the cluster name is empty", family)};
  }
  if (family == "AL2023") return userdata::RenderAl2023(bootstrap);
  if (family == "AL2") return userdata::RenderAl2(bootstrap);
  if (family == "Bottlerocket") return userdata::RenderBottlerocket(bootstrap);
  if (family == "Windows2019" || family == "Windows2022" || family == "Windows2025") {
    return userdata::RenderWindows(bootstrap);
  }
  const std::string object =
      bootstrap.node_class.empty() ? "" : fmt::format("EC2NodeClass {}: ", bootstrap.node_class);
  return Error{
      fmt::format("{}spec.amiFamily \"{}\": no user data for this family (expected AL2, "
                  "AL2023, Bottlerocket, Custom, Windows2019, Windows2022 or "
                  "Windows2025)",
                  object, family)};
}

Result<NodeRegistration> ParseNodeRegistration(std::string_view user_data) {
  NodeRegistration registration;
  const size_t first = user_data.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return registration;
  const std::string_view text = user_data.substr(first);
  std::vector<std::string> flags;  // NodeConfig kubelet flags, applied after every NodeConfig
  Status status;
  if (LooksLikeMime(text)) {
    auto parts = ParseMime(text);
    if (!parts.ok()) return Error{"user data: invalid MIME document: " + parts.error().message};
    for (const MimePart& part : *parts) {
      auto body = part.DecodedBody();
      if (!body.ok()) return Error{"user data: MIME part: " + body.error().message};
      const std::string media_type = part.MediaType();
      if (media_type == userdata::kNodeConfigMediaType) {
        status = userdata::ReadNodeConfig(*body, registration, flags);
      } else if (media_type == "text/x-shellscript") {
        status = userdata::ReadShellScript(*body, registration);
      }
      if (!status.ok()) break;
    }
  } else if (text.rfind("<powershell>", 0) == 0) {
    status = userdata::ReadPowerShell(text, registration);
  } else if (userdata::IsNodeConfig(text)) {
    status = userdata::ReadNodeConfig(text, registration, flags);
  } else if (text.rfind("#!", 0) == 0 || text.find("bootstrap.sh") != std::string_view::npos) {
    status = userdata::ReadShellScript(text, registration);
  } else if (text.find("[settings") != std::string_view::npos || text.rfind("settings.", 0) == 0) {
    status = userdata::ReadBottlerocket(text, registration);
  }
  if (status.ok()) status = userdata::ApplyKubeletFlags(flags, registration);
  if (!status.ok()) return Error{"user data: " + status.error().message};
  return registration;
}

}  // namespace karpenter::aws
