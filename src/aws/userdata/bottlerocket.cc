// Bottlerocket: TOML settings, the user's merged with ours under settings.kubernetes.

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "aws/userdata/families.h"
#include "aws/userdata/toml.h"
#include "aws/userdata/user_data.h"
#include "fmt/format.h"

namespace karpenter::aws::userdata {
namespace {

std::vector<std::string> KubernetesPath() { return {"settings", "kubernetes"}; }

// The bootstrap command that puts ephemeral storage on the instance store (its name sorts first).
constexpr const char* kRaid0Command = "000-mount-instance-storage";

void SetMap(TomlTable& kubernetes, const std::string& key, const api::Labels& map) {
  if (map.empty()) return;
  TomlTable& table = TomlSubtable(kubernetes, {key});
  for (const auto& [name, value] : map) table[name] = TomlValue{value};
}

Result<api::Taint> ReadTaintValue(const std::string& key, const TomlValue& value) {
  const auto* text = std::get_if<std::string>(&value.value);
  if (text == nullptr) {
    return Error{fmt::format("settings.kubernetes.node-taints.\"{}\": expected strings", key)};
  }
  const size_t colon = text->rfind(':');
  const auto effect =
      colon == std::string::npos ? std::nullopt : api::ParseTaintEffect(text->substr(colon + 1));
  if (!effect) {
    return Error{fmt::format("settings.kubernetes.node-taints.\"{}\": \"{}\" is not value:Effect",
                             key, *text)};
  }
  api::Taint taint;
  taint.key = key;
  taint.value = text->substr(0, colon);
  taint.effect = *effect;
  return taint;
}

}  // namespace

Result<std::string> RenderBottlerocket(const NodeBootstrap& bootstrap) {
  TomlTable root;
  if (!bootstrap.custom_user_data.empty()) {
    auto parsed = ParseToml(bootstrap.custom_user_data);
    if (!parsed.ok()) {
      return Error{
          fmt::format("{}: invalid TOML: {}", UserDataField(bootstrap), parsed.error().message)};
    }
    root = std::move(*parsed);
  }
  TomlTable& kubernetes = TomlSubtable(root, KubernetesPath());
  kubernetes["cluster-name"] = TomlValue{bootstrap.cluster_name};
  kubernetes["api-server"] = TomlValue{bootstrap.cluster_endpoint};
  kubernetes["cluster-certificate"] = TomlValue{bootstrap.certificate_authority};
  const api::KubeletConfiguration kubelet = bootstrap.kubelet.value_or(api::KubeletConfiguration{});
  if (kubelet.cluster_dns.size() > 1) {
    TomlArray ips;
    for (const std::string& ip : kubelet.cluster_dns) ips.push_back(TomlValue{ip});
    kubernetes["cluster-dns-ip"] = TomlValue{std::move(ips)};
  } else if (const std::string dns = ClusterDnsIp(bootstrap); !dns.empty()) {
    kubernetes["cluster-dns-ip"] = TomlValue{dns};
  }
  if (const auto max_pods = MaxPods(bootstrap)) {
    kubernetes["max-pods"] = TomlValue{int64_t{*max_pods}};
  }
  SetMap(kubernetes, "node-labels", bootstrap.labels);
  std::map<std::string, TomlArray> taints;  // ours replace the user's of the same key
  for (const api::Taint& taint : RegistrationTaints(bootstrap)) {
    taints[taint.key].push_back(
        TomlValue{fmt::format("{}:{}", taint.value, api::ToString(taint.effect))});
  }
  if (!taints.empty()) {
    TomlTable& table = TomlSubtable(kubernetes, {"node-taints"});
    for (auto& [key, values] : taints) table[key] = TomlValue{std::move(values)};
  }
  SetMap(kubernetes, "kube-reserved", kubelet.kube_reserved);
  SetMap(kubernetes, "system-reserved", kubelet.system_reserved);
  SetMap(kubernetes, "eviction-hard", kubelet.eviction_hard);
  SetMap(kubernetes, "eviction-soft", kubelet.eviction_soft);
  SetMap(kubernetes, "eviction-soft-grace-period", kubelet.eviction_soft_grace_period);
  if (kubelet.eviction_max_pod_grace_period) {
    kubernetes["eviction-max-pod-grace-period"] =
        TomlValue{int64_t{*kubelet.eviction_max_pod_grace_period}};
  }
  if (kubelet.image_gc_high_threshold_percent) {
    kubernetes["image-gc-high-threshold-percent"] =
        TomlValue{int64_t{*kubelet.image_gc_high_threshold_percent}};
  }
  if (kubelet.image_gc_low_threshold_percent) {
    kubernetes["image-gc-low-threshold-percent"] =
        TomlValue{int64_t{*kubelet.image_gc_low_threshold_percent}};
  }
  if (kubelet.cpu_cfs_quota) {
    kubernetes["cpu-cfs-quota-enforced"] = TomlValue{*kubelet.cpu_cfs_quota};
  }
  if (bootstrap.instance_store_raid0) {
    // Bottlerocket stripes the instance store disks and mounts the kubelet's, containerd's and
    // the pod logs' directories on it before the kubelet starts (what upstream asks for too).
    auto command = [](std::initializer_list<const char*> words) {
      TomlArray out;
      for (const char* word : words) out.push_back(TomlValue{std::string(word)});
      return TomlValue{std::move(out)};
    };
    TomlTable& mount = TomlSubtable(root, {"settings", "bootstrap-commands", kRaid0Command});
    mount["commands"] =
        TomlValue{TomlArray{command({"apiclient", "ephemeral-storage", "init"}),
                            command({"apiclient", "ephemeral-storage", "bind", "--dirs",
                                     "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods"})}};
    mount["mode"] = TomlValue{std::string("always")};
    mount["essential"] = TomlValue{true};
  }
  return RenderToml(root);
}

Status ReadBottlerocket(std::string_view toml, NodeRegistration& registration) {
  auto root = ParseToml(toml);
  if (!root.ok()) return Error{"Bottlerocket settings: invalid TOML: " + root.error().message};
  const TomlTable* kubernetes = FindTomlTable(*root, KubernetesPath());
  if (kubernetes == nullptr) return {};
  if (const auto it = kubernetes->find("cluster-name"); it != kubernetes->end()) {
    if (const auto* name = std::get_if<std::string>(&it->second.value)) {
      registration.cluster_name = *name;
    }
  }
  if (const auto it = kubernetes->find("max-pods"); it != kubernetes->end()) {
    const auto* max_pods = std::get_if<int64_t>(&it->second.value);
    if (max_pods == nullptr) return Error{"settings.kubernetes.max-pods: expected an integer"};
    registration.max_pods = static_cast<int32_t>(*max_pods);
  }
  if (const TomlTable* labels = FindTomlTable(*kubernetes, {"node-labels"})) {
    for (const auto& [key, value] : *labels) {
      const auto* text = std::get_if<std::string>(&value.value);
      if (text == nullptr) {
        return Error{fmt::format("settings.kubernetes.node-labels.\"{}\": expected a string", key)};
      }
      registration.labels[key] = *text;
    }
  }
  if (const TomlTable* taints = FindTomlTable(*kubernetes, {"node-taints"})) {
    registration.taints.clear();
    for (const auto& [key, value] : *taints) {
      const auto* array = std::get_if<TomlArray>(&value.value);
      const TomlArray values = array != nullptr ? *array : TomlArray{value};
      for (const TomlValue& item : values) {
        auto taint = ReadTaintValue(key, item);
        if (!taint.ok()) return taint.error();
        registration.taints.push_back(std::move(*taint));
      }
    }
  }
  return {};
}

}  // namespace karpenter::aws::userdata
