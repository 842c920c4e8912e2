// Windows: a <powershell> block that runs the user's script, then the EKS AMI's
// Start-EKSBootstrap.ps1 with the kubelet arguments.

#include "aws/userdata/families.h"
#include "fmt/format.h"

namespace karpenter::aws::userdata {
namespace {

constexpr std::string_view kOpen = "<powershell>";
constexpr std::string_view kClose = "</powershell>";

// The user's script without its <powershell> tags and surrounding blank lines.
std::string UserScript(std::string_view data) {
  std::string script(data);
  for (const std::string_view tag : {kOpen, kClose}) {
    for (size_t at = script.find(tag); at != std::string::npos; at = script.find(tag, at)) {
      script.erase(at, tag.size());
    }
  }
  const size_t first = script.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const size_t last = script.find_last_not_of(" \t\r\n");
  return script.substr(first, last - first + 1);
}

}  // namespace

Result<std::string> RenderWindows(const NodeBootstrap& bootstrap) {
  std::string out = std::string(kOpen) + "\n";
  if (const std::string user = UserScript(bootstrap.custom_user_data); !user.empty()) {
    out += user + "\n";
  }
  out +=
      "[string]$EKSBootstrapScriptFile = "
      "\"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n";
  out += fmt::format(
      "& $EKSBootstrapScriptFile -EKSClusterName {} -APIServerEndpoint {} "
      "-Base64ClusterCA {}",
      PowerShellQuote(bootstrap.cluster_name), PowerShellQuote(bootstrap.cluster_endpoint),
      PowerShellQuote(bootstrap.certificate_authority));
  if (const auto flags = KubeletFlags(bootstrap); !flags.empty()) {
    std::string joined;
    for (const std::string& flag : flags) {
      if (!joined.empty()) joined += ' ';
      joined += flag;
    }
    out += " -KubeletExtraArgs " + PowerShellQuote(joined);
  }
  if (const std::string dns = ClusterDnsIp(bootstrap); !dns.empty()) {
    out += " -DNSClusterIP " + PowerShellQuote(dns);
  }
  out += '\n';
  out += kClose;
  out += '\n';
  return out;
}

Status ReadPowerShell(std::string_view script, NodeRegistration& registration) {
  for (std::string_view rest = script; !rest.empty();) {
    const size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (line.find("-EKSClusterName") == std::string_view::npos &&
        line.find("-KubeletExtraArgs") == std::string_view::npos) {
      continue;
    }
    const std::vector<std::string> words = PowerShellWords(line);
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "-EKSClusterName") registration.cluster_name = words[i + 1];
      if (words[i] == "-KubeletExtraArgs") {
        if (Status status = ApplyKubeletFlags(SplitWords(words[i + 1]), registration);
            !status.ok()) {
          return Error{"Start-EKSBootstrap.ps1 -KubeletExtraArgs: " + status.error().message};
        }
      }
    }
  }
  return {};
}

}  // namespace karpenter::aws::userdata
