// Helpers the family renderers and readers share.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>

#include "aws/userdata/families.h"
#include "aws/userdata/user_data.h"
#include "fmt/format.h"
#include "yaml-cpp/yaml.h"

namespace karpenter::aws::userdata {
namespace {

std::optional<uint32_t> ParseIpv4(std::string_view text) {
  uint32_t address = 0;
  for (int octet = 0; octet < 4; ++octet) {
    unsigned value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || value > 255) return std::nullopt;
    address = (address << 8) | value;
    text.remove_prefix(static_cast<size_t>(end - text.data()));
    if (octet < 3) {
      if (text.empty() || text.front() != '.') return std::nullopt;
      text.remove_prefix(1);
    }
  }
  if (!text.empty()) return std::nullopt;
  return address;
}

// "a=1,b=2" from a map, with `separator` between key and value.
std::string MapSpec(const api::Labels& map, std::string_view separator) {
  std::string out;
  for (const auto& [key, value] : map) {
    if (!out.empty()) out += ',';
    out += key;
    out += separator;
    out += value;
  }
  return out;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::string UserDataField(const NodeBootstrap& bootstrap) {
  if (bootstrap.node_class.empty()) return "spec.userData";
  return fmt::format("EC2NodeClass {}: spec.userData", bootstrap.node_class);
}

std::optional<int32_t> MaxPods(const NodeBootstrap& bootstrap) {
  if (bootstrap.max_pods) return bootstrap.max_pods;
  if (bootstrap.kubelet) return bootstrap.kubelet->max_pods;
  return std::nullopt;
}

std::string ClusterDnsIp(const NodeBootstrap& bootstrap) {
  if (bootstrap.kubelet && !bootstrap.kubelet->cluster_dns.empty()) {
    return bootstrap.kubelet->cluster_dns.front();
  }
  const std::string_view cidr = bootstrap.service_cidr;
  const size_t slash = cidr.find('/');
  if (slash == std::string_view::npos) return "";
  const std::string_view address = cidr.substr(0, slash);
  unsigned prefix = 0;
  const std::string_view prefix_text = cidr.substr(slash + 1);
  if (std::from_chars(prefix_text.data(), prefix_text.data() + prefix_text.size(), prefix).ec !=
      std::errc()) {
    return "";
  }
  if (const auto ipv4 = ParseIpv4(address); ipv4 && prefix <= 30) {
    const uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
    const uint32_t dns = (*ipv4 & mask) + 10;
    return fmt::format("{}.{}.{}.{}", dns >> 24, (dns >> 16) & 0xff, (dns >> 8) & 0xff, dns & 0xff);
  }
  if (address.size() >= 2 && address.substr(address.size() - 2) == "::") {
    return std::string(address) + "a";
  }
  return "";
}

std::string TaintSpec(const api::Taint& taint) {
  std::string out = taint.key;
  if (!taint.value.empty()) out += "=" + taint.value;
  out += ':';
  out += api::ToString(taint.effect);
  return out;
}

Result<api::Taint> ParseTaintSpec(std::string_view spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string_view::npos) {
    return Error{fmt::format("taint \"{}\": no effect (key=value:Effect)", spec)};
  }
  const auto effect = api::ParseTaintEffect(spec.substr(colon + 1));
  if (!effect) {
    return Error{fmt::format("taint \"{}\": unknown effect \"{}\"", spec, spec.substr(colon + 1))};
  }
  const std::string_view key_value = spec.substr(0, colon);
  const size_t eq = key_value.find('=');
  api::Taint taint;
  taint.key = std::string(key_value.substr(0, eq));
  if (eq != std::string_view::npos) taint.value = std::string(key_value.substr(eq + 1));
  taint.effect = *effect;
  if (taint.key.empty()) return Error{fmt::format("taint \"{}\": empty key", spec)};
  return taint;
}

std::string LabelSpec(const api::Labels& labels) { return MapSpec(labels, "="); }

std::vector<std::string> KubeletFlags(const NodeBootstrap& bootstrap) {
  std::vector<std::string> flags;
  if (!bootstrap.labels.empty()) flags.push_back("--node-labels=" + LabelSpec(bootstrap.labels));
  std::string taints;
  for (const api::Taint& taint : RegistrationTaints(bootstrap)) {
    if (!taints.empty()) taints += ',';
    taints += TaintSpec(taint);
  }
  if (!taints.empty()) flags.push_back("--register-with-taints=" + taints);
  if (const auto max_pods = MaxPods(bootstrap)) {
    flags.push_back(fmt::format("--max-pods={}", *max_pods));
  }
  if (!bootstrap.kubelet) return flags;
  const api::KubeletConfiguration& kubelet = *bootstrap.kubelet;
  if (kubelet.pods_per_core) {
    flags.push_back(fmt::format("--pods-per-core={}", *kubelet.pods_per_core));
  }
  const auto add_map = [&flags](std::string_view name, const api::Labels& map,
                                std::string_view separator) {
    if (!map.empty()) flags.push_back(fmt::format("--{}={}", name, MapSpec(map, separator)));
  };
  add_map("system-reserved", kubelet.system_reserved, "=");
  add_map("kube-reserved", kubelet.kube_reserved, "=");
  add_map("eviction-hard", kubelet.eviction_hard, "<");
  add_map("eviction-soft", kubelet.eviction_soft, "<");
  add_map("eviction-soft-grace-period", kubelet.eviction_soft_grace_period, "=");
  if (kubelet.eviction_max_pod_grace_period) {
    flags.push_back(
        fmt::format("--eviction-max-pod-grace-period={}", *kubelet.eviction_max_pod_grace_period));
  }
  if (kubelet.image_gc_high_threshold_percent) {
    flags.push_back(
        fmt::format("--image-gc-high-threshold={}", *kubelet.image_gc_high_threshold_percent));
  }
  if (kubelet.image_gc_low_threshold_percent) {
    flags.push_back(
        fmt::format("--image-gc-low-threshold={}", *kubelet.image_gc_low_threshold_percent));
  }
  if (kubelet.cpu_cfs_quota) {
    flags.push_back(fmt::format("--cpu-cfs-quota={}", *kubelet.cpu_cfs_quota ? "true" : "false"));
  }
  return flags;
}

Status ApplyKubeletFlags(const std::vector<std::string>& flags, NodeRegistration& registration) {
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string_view flag = flags[i];
    if (flag.rfind("--", 0) != 0) continue;
    const size_t eq = flag.find('=');
    const std::string_view name = flag.substr(2, eq == std::string_view::npos ? eq : eq - 2);
    std::string value;
    if (eq != std::string_view::npos) {
      value = std::string(flag.substr(eq + 1));
    } else if (name == "node-labels" || name == "register-with-taints" || name == "max-pods") {
      if (i + 1 >= flags.size()) return Error{fmt::format("kubelet flag --{}: no value", name)};
      value = flags[++i];
    }
    if (name == "node-labels") {
      for (std::string_view rest = value; !rest.empty();) {
        const size_t comma = rest.find(',');
        const std::string_view label = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (label.empty()) continue;
        const size_t label_eq = label.find('=');
        if (label_eq == std::string_view::npos || label_eq == 0) {
          return Error{fmt::format("kubelet flag --node-labels: \"{}\" is not key=value", label)};
        }
        registration.labels[std::string(label.substr(0, label_eq))] =
            std::string(label.substr(label_eq + 1));
      }
    } else if (name == "register-with-taints") {
      registration.taints.clear();
      for (std::string_view rest = value; !rest.empty();) {
        const size_t comma = rest.find(',');
        const std::string_view spec = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (spec.empty()) continue;
        auto taint = ParseTaintSpec(spec);
        if (!taint.ok()) {
          return Error{"kubelet flag --register-with-taints: " + taint.error().message};
        }
        registration.taints.push_back(std::move(*taint));
      }
    } else if (name == "max-pods") {
      int32_t max_pods = 0;
      const auto [end, error] =
          std::from_chars(value.data(), value.data() + value.size(), max_pods);
      if (error != std::errc() || end != value.data() + value.size()) {
        return Error{fmt::format("kubelet flag --max-pods: \"{}\" is not a number", value)};
      }
      registration.max_pods = max_pods;
    }
  }
  return {};
}

std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

std::string ShellQuote(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string PowerShellQuote(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

Result<std::vector<std::string>> ShellWords(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  const auto finish = [&] {
    if (in_word) words.push_back(std::move(word));
    word.clear();
    in_word = false;
  };
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\') {
      if (i + 1 < line.size() && line[i + 1] == '\n') {
        ++i;  // a line continuation
        continue;
      }
      if (i + 1 < line.size()) word += line[++i];
      in_word = true;
    } else if (c == '\'') {
      const size_t end = line.find('\'', i + 1);
      if (end == std::string_view::npos) return Error{"unterminated ' quote"};
      word += line.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == '"') {
      in_word = true;
      for (++i;; ++i) {
        if (i >= line.size()) return Error{"unterminated \" quote"};
        if (line[i] == '"') break;
        if (line[i] == '\\' && i + 1 < line.size() &&
            std::string_view("$`\"\\\n").find(line[i + 1]) != std::string_view::npos) {
          ++i;
          if (line[i] == '\n') continue;
        }
        word += line[i];
      }
    } else if (c == '#' && !in_word) {
      while (i + 1 < line.size() && line[i + 1] != '\n') ++i;
    } else if (c == ';' || c == '&' || c == '|' || c == '\n') {
      finish();
      words.emplace_back(1, c == '\n' ? ';' : c);
    } else if (IsSpace(c)) {
      finish();
    } else {
      word += c;
      in_word = true;
    }
  }
  finish();
  return words;
}

std::vector<std::string> PowerShellWords(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\'') {
      in_word = true;
      for (++i; i < line.size(); ++i) {
        if (line[i] == '\'') {
          if (i + 1 < line.size() && line[i + 1] == '\'') {
            word += '\'';
            ++i;
            continue;
          }
          break;
        }
        word += line[i];
      }
    } else if (c == '"') {
      in_word = true;
      for (++i; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] == '`' && i + 1 < line.size()) ++i;
        word += line[i];
      }
    } else if (IsSpace(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

bool IsNodeConfig(std::string_view text) {
  try {
    const YAML::Node node = YAML::Load(std::string(text));
    return node.IsMap() && node["kind"] && node["kind"].IsScalar() &&
           node["kind"].Scalar() == "NodeConfig";
  } catch (const YAML::Exception&) {
    return false;
  }
}

Result<std::vector<MimePart>> UserMimeParts(const NodeBootstrap& bootstrap) {
  std::string_view data = bootstrap.custom_user_data;
  if (std::all_of(data.begin(), data.end(), IsSpace)) return std::vector<MimePart>{};
  while (data.front() == '\n' || data.front() == '\r') data.remove_prefix(1);  // blank lines
  if (LooksLikeMime(data)) {
    auto parts = ParseMime(data);
    if (!parts.ok()) {
      return Error{fmt::format("{}: invalid MIME multipart document: {}", UserDataField(bootstrap),
                               parts.error().message)};
    }
    return parts;
  }
  MimePart part;
  std::string body(data);
  while (!body.empty() && IsSpace(body.back())) body.pop_back();
  if (IsNodeConfig(data)) {
    part.headers.emplace_back("Content-Type", std::string(kNodeConfigMediaType));
  } else if (data.rfind("#cloud-config", 0) == 0) {
    part.headers.emplace_back("Content-Type", "text/cloud-config; charset=\"us-ascii\"");
  } else {
    part.headers.emplace_back("Content-Type", "text/x-shellscript; charset=\"us-ascii\"");
  }
  part.body = std::move(body);
  return std::vector<MimePart>{std::move(part)};
}

}  // namespace karpenter::aws::userdata
