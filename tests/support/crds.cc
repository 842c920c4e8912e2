#include "support/crds.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "kube/object.h"
#include "kube/resource.h"

namespace karpenter::support {
namespace {

using kube::resources::kCustomResourceDefinitions;

constexpr auto kEstablishTimeout = std::chrono::seconds(60);
constexpr auto kPollInterval = std::chrono::milliseconds(100);
// The API server's request handlers learn of a changed CRD from a watch of CRDs, and nothing says
// when they have: after replacing a schema, give them this long before anyone relies on it.
constexpr auto kSchemaSettleTime = std::chrono::seconds(2);
constexpr int kConflictRetries = 5;

bool ConditionIsTrue(const kube::Object& crd, std::string_view type) {
  const auto status = crd.find("status");
  if (status == crd.end() || !status->is_object()) return false;
  const auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return false;
  return std::any_of(conditions->begin(), conditions->end(), [&](const Json& c) {
    return c.is_object() && c.value("type", "") == type && c.value("status", "") == "True";
  });
}

Status WaitEstablished(kube::Client& client, std::string_view name) {
  const auto deadline = std::chrono::steady_clock::now() + kEstablishTimeout;
  while (true) {
    Result<kube::Object> crd = client.Get(kCustomResourceDefinitions, "", name);
    if (!crd.ok()) return crd.error();
    if (ConditionIsTrue(*crd, "Established") && ConditionIsTrue(*crd, "NamesAccepted")) return {};
    if (std::chrono::steady_clock::now() > deadline) {
      return Error{fmt::format("CRD {} is not Established after {}s: status {}", name,
                               kEstablishTimeout.count(), crd->value("status", Json()).dump())};
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

// Creates or replaces one CRD; true when it replaced one whose spec then changed.
Result<bool> Apply(kube::Client& client, const kube::Object& crd) {
  const std::string_view name = kube::Name(crd);
  for (int attempt = 0;; ++attempt) {
    Result<kube::Object> existing = client.Get(kCustomResourceDefinitions, "", name);
    if (!existing.ok() && existing.error().status == 404) {
      Result<kube::Object> created = client.Create(kCustomResourceDefinitions, crd, {});
      if (created.ok()) return false;
      if (created.error().status == 409 && attempt < kConflictRetries) continue;  // raced a create
      return created.error();
    }
    if (!existing.ok()) return existing.error();
    kube::Object replacement = crd;
    replacement["metadata"]["resourceVersion"] = std::string(kube::ResourceVersion(*existing));
    Result<kube::Object> updated =
        client.Update(kCustomResourceDefinitions, replacement, kube::Subresource::kNone);
    if (updated.ok()) return kube::Generation(*updated) != kube::Generation(*existing);
    if (updated.error().status == 409 && attempt < kConflictRetries) continue;  // raced a write
    return updated.error();
  }
}

}  // namespace

Result<std::vector<Document>> ReadDocuments(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Error{fmt::format("{}: cannot read", path)};
  std::ostringstream text;
  text << file.rdbuf();
  return ParseDocuments(text.view(), path);
}

Status InstallCrds(kube::Client& client, const std::string& source_dir) {
  const std::filesystem::path dir = std::filesystem::path(source_dir) / "deploy" / "crds";
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  if (error) return Error{fmt::format("{}: cannot list: {}", dir.string(), error.message())};
  if (files.empty()) return Error{fmt::format("{}: no CRDs (*.yaml)", dir.string())};
  std::sort(files.begin(), files.end());

  std::vector<std::string> names;
  bool changed = false;
  for (const std::filesystem::path& file : files) {
    Result<std::vector<Document>> documents = ReadDocuments(file.string());
    if (!documents.ok()) return documents.error();
    for (const Document& document : *documents) {
      const std::string_view name = kube::Name(document.value);
      if (document.value.value("kind", "") != "CustomResourceDefinition" || name.empty()) {
        return Error{fmt::format("{}:{}: not a named CustomResourceDefinition", file.string(),
                                 document.line)};
      }
      Result<bool> replaced = Apply(client, document.value);
      if (!replaced.ok()) {
        return Error{
            fmt::format("{}: installing CRD {}: {}", file.string(), name, replaced.error().message),
            replaced.error().status, replaced.error().reason};
      }
      changed = changed || *replaced;
      names.emplace_back(name);
    }
  }
  for (const std::string& name : names) {
    if (Status established = WaitEstablished(client, name); !established.ok()) return established;
  }
  if (changed) std::this_thread::sleep_for(kSchemaSettleTime);
  return {};
}

}  // namespace karpenter::support
