// AL2023: nodeadm reads NodeConfig documents (node.eks.aws/v1alpha1) from MIME parts.

#include <cctype>

#include "aws/userdata/families.h"
#include "aws/userdata/mime.h"
#include "aws/userdata/user_data.h"
#include "common/document.h"
#include "fmt/format.h"
#include "yaml-cpp/yaml.h"

namespace karpenter::aws::userdata {
namespace {

// True when YAML would read `text`, written plainly, as something other than a string (a number,
// a boolean, null, a date): nodeadm decodes YAML through JSON, so `cpu: 1` would not be a string.
bool LooksTyped(std::string_view text) {
  if (text.empty()) return true;
  std::string lower;
  for (const char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string_view word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null",
                                      "~", ".inf", "-.inf", "+.inf", ".nan"}) {
    if (lower == word) return true;
  }
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (digit(text[0])) return true;
  return text.size() > 1 && (text[0] == '-' || text[0] == '+' || text[0] == '.') &&
         (digit(text[1]) || text[1] == '.');
}

// A string value that reads back as a string.
void EmitString(YAML::Emitter& out, std::string_view text) {
  if (LooksTyped(text)) out << YAML::DoubleQuoted;
  out << std::string(text);
}

void EmitMap(YAML::Emitter& out, std::string_view key, const api::Labels& map) {
  if (map.empty()) return;
  out << YAML::Key << std::string(key) << YAML::Value << YAML::BeginMap;
  for (const auto& [name, value] : map) {
    out << YAML::Key << name << YAML::Value;
    EmitString(out, value);
  }
  out << YAML::EndMap;
}

// The kubelet configuration fields we set, in alphabetical order.
void EmitKubeletConfig(YAML::Emitter& out, const NodeBootstrap& bootstrap) {
  const api::KubeletConfiguration kubelet = bootstrap.kubelet.value_or(api::KubeletConfiguration{});
  out << YAML::Key << "config" << YAML::Value << YAML::BeginMap;
  if (!kubelet.cluster_dns.empty()) {
    out << YAML::Key << "clusterDNS" << YAML::Value << YAML::BeginSeq;
    for (const std::string& ip : kubelet.cluster_dns) EmitString(out, ip);
    out << YAML::EndSeq;
  }
  if (kubelet.cpu_cfs_quota) {
    out << YAML::Key << "cpuCFSQuota" << YAML::Value << *kubelet.cpu_cfs_quota;
  }
  EmitMap(out, "evictionHard", kubelet.eviction_hard);
  if (kubelet.eviction_max_pod_grace_period) {
    out << YAML::Key << "evictionMaxPodGracePeriod" << YAML::Value
        << *kubelet.eviction_max_pod_grace_period;
  }
  EmitMap(out, "evictionSoft", kubelet.eviction_soft);
  EmitMap(out, "evictionSoftGracePeriod", kubelet.eviction_soft_grace_period);
  if (kubelet.image_gc_high_threshold_percent) {
    out << YAML::Key << "imageGCHighThresholdPercent" << YAML::Value
        << *kubelet.image_gc_high_threshold_percent;
  }
  if (kubelet.image_gc_low_threshold_percent) {
    out << YAML::Key << "imageGCLowThresholdPercent" << YAML::Value
        << *kubelet.image_gc_low_threshold_percent;
  }
  EmitMap(out, "kubeReserved", kubelet.kube_reserved);
  if (const auto max_pods = MaxPods(bootstrap)) {
    out << YAML::Key << "maxPods" << YAML::Value << *max_pods;
  }
  if (kubelet.pods_per_core) {
    out << YAML::Key << "podsPerCore" << YAML::Value << *kubelet.pods_per_core;
  }
  const std::vector<api::Taint> taints = RegistrationTaints(bootstrap);
  if (!taints.empty()) {
    out << YAML::Key << "registerWithTaints" << YAML::Value << YAML::BeginSeq;
    for (const api::Taint& taint : taints) {
      out << YAML::BeginMap << YAML::Key << "key" << YAML::Value;
      EmitString(out, taint.key);
      if (!taint.value.empty()) {
        out << YAML::Key << "value" << YAML::Value;
        EmitString(out, taint.value);
      }
      out << YAML::Key << "effect" << YAML::Value << std::string(api::ToString(taint.effect))
          << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  EmitMap(out, "systemReserved", kubelet.system_reserved);
  out << YAML::EndMap;
}

std::string NodeConfig(const NodeBootstrap& bootstrap) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "node.eks.aws/v1alpha1";
  out << YAML::Key << "kind" << YAML::Value << "NodeConfig";
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  EmitString(out, bootstrap.cluster_name);
  out << YAML::Key << "apiServerEndpoint" << YAML::Value;
  EmitString(out, bootstrap.cluster_endpoint);
  out << YAML::Key << "certificateAuthority" << YAML::Value;
  EmitString(out, bootstrap.certificate_authority);
  if (!bootstrap.service_cidr.empty()) {
    out << YAML::Key << "cidr" << YAML::Value;
    EmitString(out, bootstrap.service_cidr);
  }
  out << YAML::EndMap;
  out << YAML::Key << "kubelet" << YAML::Value << YAML::BeginMap;
  EmitKubeletConfig(out, bootstrap);
  if (!bootstrap.labels.empty()) {
    out << YAML::Key << "flags" << YAML::Value << YAML::BeginSeq
        << "--node-labels=" + LabelSpec(bootstrap.labels) << YAML::EndSeq;
  }
  out << YAML::EndMap;
  if (bootstrap.instance_store_raid0) {
    out << YAML::Key << "instance" << YAML::Value << YAML::BeginMap << YAML::Key << "localStorage"
        << YAML::Value << YAML::BeginMap << YAML::Key << "strategy" << YAML::Value << "RAID0"
        << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndMap << YAML::EndMap;
  return out.c_str();
}

Result<api::Taint> ReadTaint(const YAML::Node& node) {
  if (!node.IsMap() || !node["key"] || !node["effect"]) {
    return Error{"registerWithTaints: each taint needs a key and an effect"};
  }
  api::Taint taint;
  taint.key = node["key"].as<std::string>();
  if (node["value"]) taint.value = node["value"].as<std::string>();
  const std::string effect = node["effect"].as<std::string>();
  const auto parsed = api::ParseTaintEffect(effect);
  if (!parsed) return Error{fmt::format("registerWithTaints: unknown effect \"{}\"", effect)};
  taint.effect = *parsed;
  return taint;
}

}  // namespace

Result<std::string> RenderAl2023(const NodeBootstrap& bootstrap) {
  auto parts = UserMimeParts(bootstrap);
  if (!parts.ok()) return parts.error();
  MimePart ours;
  ours.headers.emplace_back("Content-Type", std::string(kNodeConfigMediaType));
  ours.body = NodeConfig(bootstrap);
  parts->push_back(std::move(ours));
  return RenderMultipart(*parts, kBoundary);
}

Status ReadNodeConfig(std::string_view yaml, NodeRegistration& registration,
                      std::vector<std::string>& flags) {
  // yaml-cpp's LoadAll never returns on some stray tokens (a ',' outside [ ] or { }), where
  // ParseDocuments stops with an error: it reads the text first.
  if (Result<std::vector<Document>> checked = ParseDocuments(yaml, "NodeConfig"); !checked.ok()) {
    return checked.error();
  }
  try {
    for (const YAML::Node& document : YAML::LoadAll(std::string(yaml))) {
      if (!document.IsMap() || !document["kind"] ||
          document["kind"].as<std::string>() != "NodeConfig") {
        continue;
      }
      const YAML::Node spec = document["spec"];
      if (!spec || !spec.IsMap()) continue;
      if (spec["cluster"] && spec["cluster"]["name"]) {
        registration.cluster_name = spec["cluster"]["name"].as<std::string>();
      }
      const YAML::Node kubelet = spec["kubelet"];
      if (!kubelet || !kubelet.IsMap()) continue;
      if (const YAML::Node config = kubelet["config"]; config && config.IsMap()) {
        if (config["maxPods"]) registration.max_pods = config["maxPods"].as<int32_t>();
        if (const YAML::Node taints = config["registerWithTaints"]) {
          registration.taints.clear();
          for (const YAML::Node& node : taints) {
            auto taint = ReadTaint(node);
            if (!taint.ok()) return Error{"NodeConfig: " + taint.error().message};
            registration.taints.push_back(std::move(*taint));
          }
        }
      }
      if (const YAML::Node list = kubelet["flags"]; list && list.IsSequence()) {
        for (const YAML::Node& flag : list) flags.push_back(flag.as<std::string>());
      }
    }
  } catch (const YAML::Exception& error) {
    return Error{fmt::format("NodeConfig: {}", error.what())};
  }
  return {};
}

}  // namespace karpenter::aws::userdata
