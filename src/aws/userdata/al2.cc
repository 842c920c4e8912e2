// AL2: a shell script part that runs the EKS AMI's /etc/eks/bootstrap.sh.

#include "aws/userdata/families.h"
#include "aws/userdata/mime.h"
#include "fmt/format.h"

namespace karpenter::aws::userdata {
namespace {

constexpr std::string_view kBootstrapScript = "/etc/eks/bootstrap.sh";

std::string JoinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// One command line that runs bootstrap.sh: the cluster name and the kubelet arguments.
Status ReadBootstrapLine(std::string_view line, NodeRegistration& registration) {
  auto words = ShellWords(line);
  if (!words.ok()) return Error{"shell script: " + words.error().message};
  for (size_t i = 0; i < words->size(); ++i) {
    if (!EndsWith((*words)[i], "bootstrap.sh")) continue;
    // One command: its words up to the next ; & | or line end.
    size_t end = i + 1;
    while (end < words->size() && (*words)[end] != ";" && (*words)[end] != "&" &&
           (*words)[end] != "|") {
      ++end;
    }
    bool have_cluster = false;
    for (size_t j = i + 1; j < end; ++j) {
      const std::string& word = (*words)[j];
      if (word.rfind("--", 0) == 0) {
        const bool has_value = j + 1 < end;
        if (word == "--kubelet-extra-args" && has_value) {
          if (Status status = ApplyKubeletFlags(SplitWords((*words)[j + 1]), registration);
              !status.ok()) {
            return Error{"bootstrap.sh --kubelet-extra-args: " + status.error().message};
          }
        }
        if (word.find('=') == std::string::npos && has_value) ++j;  // every option has a value
        continue;
      }
      if (!have_cluster) {
        registration.cluster_name = word;
        have_cluster = true;
      }
    }
    i = end;
  }
  return {};
}

}  // namespace

Result<std::string> RenderAl2(const NodeBootstrap& bootstrap) {
  auto parts = UserMimeParts(bootstrap);
  if (!parts.ok()) return parts.error();
  std::string script = "#!/bin/bash -xe\n";
  script += "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n";
  script += fmt::format("{} {} --apiserver-endpoint {} --b64-cluster-ca {}", kBootstrapScript,
                        ShellQuote(bootstrap.cluster_name), ShellQuote(bootstrap.cluster_endpoint),
                        ShellQuote(bootstrap.certificate_authority));
  if (const std::string dns = ClusterDnsIp(bootstrap); !dns.empty()) {
    script += fmt::format(" \\\n--dns-cluster-ip {}", ShellQuote(dns));
  }
  if (bootstrap.service_cidr.find(':') != std::string::npos) script += " \\\n--ip-family ipv6";
  if (MaxPods(bootstrap)) script += " \\\n--use-max-pods false";
  if (bootstrap.instance_store_raid0) script += " \\\n--local-disks raid0";
  if (const auto flags = KubeletFlags(bootstrap); !flags.empty()) {
    script += fmt::format(" \\\n--kubelet-extra-args {}", ShellQuote(JoinWords(flags)));
  }
  MimePart ours;
  ours.headers.emplace_back("Content-Type", "text/x-shellscript; charset=\"us-ascii\"");
  ours.body = std::move(script);
  parts->push_back(std::move(ours));
  return RenderMultipart(*parts, kBoundary);
}

Status ReadShellScript(std::string_view script, NodeRegistration& registration) {
  // Only the logical lines (backslash-newline joins them) that run bootstrap.sh are read, so the
  // rest of a user's script (here-documents, odd quoting) never matters.
  for (std::string_view rest = script; !rest.empty();) {
    size_t end = rest.find('\n');
    while (end != std::string_view::npos && end > 0 && rest[end - 1] == '\\') {
      end = rest.find('\n', end + 1);
    }
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (line.find("bootstrap.sh") == std::string_view::npos) continue;
    if (Status status = ReadBootstrapLine(line, registration); !status.ok()) return status;
  }
  return {};
}

}  // namespace karpenter::aws::userdata
