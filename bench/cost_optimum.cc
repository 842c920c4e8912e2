#include "cost_optimum.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace karpenter::bench {

Result<std::map<std::string, Json>> SolveOptimum(const Json& models) {
  const std::filesystem::path scratch = std::filesystem::temp_directory_path();
  const std::filesystem::path input = scratch / fmt::format("karpenter-cost-{}.json", ::getpid());
  const std::filesystem::path output =
      scratch / fmt::format("karpenter-cost-{}-results.json", ::getpid());
  std::ofstream(input) << Json{{"models", models}}.dump();
  // The solver's banner goes to stderr with the rest of what it says; the results to a file.
  const std::string command = fmt::format(
      "'{}' '{}' '{}' 1>&2",
      (std::filesystem::path(KARPENTER_SOURCE_DIR) / "scripts" / "cost-optimum").string(),
      input.string(), output.string());
  const int status = std::system(command.c_str());  // NOLINT(cert-env33-c): a benchmark's tool
  std::ifstream in(output);
  const Json parsed = Json::parse(in, nullptr, false);
  std::filesystem::remove(input);
  std::filesystem::remove(output);
  if (status != 0) return Error(fmt::format("{} failed (status {})", command, status));
  if (!parsed.is_object() || !parsed.contains("results")) {
    return Error(fmt::format("{} wrote no results to {}", command, output.string()));
  }
  std::map<std::string, Json> out;
  for (const Json& result : parsed["results"]) out[result.value("name", "")] = result;
  return out;
}

std::vector<provisioning::FleetType> ZoneFleetTypes(
    const api::NodePool& node_pool, const std::vector<const cloud::InstanceType*>& types,
    std::string_view zone, const api::ResourceList& overhead) {
  std::vector<cloud::InstanceType> in_zone;
  for (const cloud::InstanceType* type : types) {
    cloud::InstanceType copy = *type;
    std::erase_if(copy.offerings,
                  [&](const cloud::Offering& offering) { return offering.zone != zone; });
    if (!copy.offerings.empty()) in_zone.push_back(std::move(copy));
  }
  std::vector<const cloud::InstanceType*> pointers;
  pointers.reserve(in_zone.size());
  for (const cloud::InstanceType& type : in_zone) pointers.push_back(&type);
  return provisioning::NodePoolFleetTypes(node_pool, pointers, overhead);
}

}  // namespace karpenter::bench
