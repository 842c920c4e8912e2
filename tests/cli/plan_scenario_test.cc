// Table-driven scheduling scenarios: every tests/testdata/scheduling/*.yaml holds manifests plus
// one `kind: Expectation` document. Each scenario runs the plan command (`karpenter plan --output
// json`, in process) on the file and checks the plan against the expectation, so the decoder,
// workload expansion, catalog and scheduler are exercised together.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "cli/plan_command.h"
#include "common/json.h"

namespace karpenter {
namespace {

namespace fs = std::filesystem;
using json = Json;

std::string PlanJson(const std::string& file, const std::string& catalog) {
  cli::PlanOptions options;
  options.files = {file};
  options.catalog = catalog;
  options.output = "json";
  std::ostringstream out;
  std::ostringstream err;
  if (cli::RunPlan(options, out, err) != 0) return "karpenter plan failed: " + err.str();
  return out.str();
}

YAML::Node FindExpectation(const std::string& file) {
  for (const auto& doc : YAML::LoadAllFromFile(file)) {
    if (doc["kind"] && doc["kind"].as<std::string>() == "Expectation") return doc;
  }
  return {};
}

// Index of the nodeclaim (or "existing:<node>") hosting each pod.
std::map<std::string, std::string> Hosts(const json& plan) {
  std::map<std::string, std::string> hosts;
  for (size_t i = 0; i < plan["nodeclaims"].size(); ++i) {
    for (const auto& pod : plan["nodeclaims"][i]["pods"]) hosts[pod] = "claim:" + std::to_string(i);
  }
  for (const auto& node : plan["existingNodes"]) {
    for (const auto& pod : node["pods"]) hosts[pod] = "existing:" + node["name"].get<std::string>();
  }
  return hosts;
}

const json* ClaimOf(const json& plan, const std::string& pod) {
  for (const auto& nc : plan["nodeclaims"]) {
    for (const auto& p : nc["pods"]) {
      if (p == pod) return &nc;
    }
  }
  return nullptr;
}

bool Contains(const json& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

class Scenario : public testing::TestWithParam<std::string> {};

TEST_P(Scenario, MatchesExpectation) {
  const std::string file = GetParam();
  YAML::Node expect = FindExpectation(file);
  ASSERT_TRUE(expect) << file << " has no Expectation document";
  std::string catalog = expect["catalog"] ? expect["catalog"].as<std::string>() : "fake400";
  std::string output = PlanJson(file, catalog);
  ASSERT_FALSE(output.empty()) << "karpenter plan printed nothing for " << file;
  ASSERT_EQ(output.rfind("karpenter plan failed", 0), std::string::npos) << file << ": " << output;
  json plan = json::parse(output);
  auto hosts = Hosts(plan);

  if (expect["nodeclaims"]) {
    EXPECT_EQ(plan["nodeclaims"].size(), expect["nodeclaims"].as<size_t>()) << plan.dump(1);
  }
  if (expect["scheduled"]) {
    EXPECT_EQ(plan["summary"]["scheduled"].get<size_t>(), expect["scheduled"].as<size_t>())
        << plan.dump(1);
  }
  if (expect["unschedulable"]) {
    std::set<std::string> want;
    for (const auto& p : expect["unschedulable"]) want.insert(p.as<std::string>());
    std::set<std::string> got;
    for (const auto& u : plan["unschedulable"]) got.insert(u["pod"].get<std::string>());
    EXPECT_EQ(got, want) << plan.dump(1);
  }
  for (const auto& entry : expect["reasons"]) {
    std::string pod = entry.first.as<std::string>();
    std::string substring = entry.second.as<std::string>();
    bool found = false;
    for (const auto& u : plan["unschedulable"]) {
      if (u["pod"] == pod) {
        found = true;
        EXPECT_NE(u["reason"].get<std::string>().find(substring), std::string::npos)
            << pod << ": reason \"" << u["reason"].get<std::string>() << "\" lacks \"" << substring
            << "\"";
      }
    }
    EXPECT_TRUE(found) << pod << " was expected to be unschedulable";
  }
  for (const auto& group : expect["sameNode"]) {
    std::set<std::string> nodes;
    for (const auto& p : group) nodes.insert(hosts[p.as<std::string>()]);
    EXPECT_EQ(nodes.size(), 1u) << "pods expected on one node\n" << plan.dump(1);
  }
  for (const auto& group : expect["differentNodes"]) {
    std::set<std::string> nodes;
    for (const auto& p : group) nodes.insert(hosts[p.as<std::string>()]);
    EXPECT_EQ(nodes.size(), group.size()) << "pods expected on distinct nodes\n" << plan.dump(1);
  }
  for (const auto& entry : expect["existing"]) {
    for (const auto& p : entry.second) {
      EXPECT_EQ(hosts[p.as<std::string>()], "existing:" + entry.first.as<std::string>())
          << p.as<std::string>();
    }
  }
  for (const auto& entry : expect["nodeClaimFor"]) {
    std::string pod = entry.first.as<std::string>();
    const json* nc = ClaimOf(plan, pod);
    ASSERT_NE(nc, nullptr) << pod << " is not on a new nodeclaim\n" << plan.dump(1);
    const YAML::Node& want = entry.second;
    if (want["zones"]) {
      std::vector<std::string> zones = want["zones"].as<std::vector<std::string>>();
      EXPECT_EQ((*nc)["zones"].get<std::vector<std::string>>(), zones) << pod;
    }
    if (want["capacityTypes"]) {
      EXPECT_EQ((*nc)["capacityTypes"].get<std::vector<std::string>>(),
                want["capacityTypes"].as<std::vector<std::string>>())
          << pod;
    }
    if (want["firstInstanceType"]) {
      EXPECT_EQ((*nc)["instanceTypes"][0], want["firstInstanceType"].as<std::string>()) << pod;
    }
    for (const auto& t : want["instanceTypesInclude"]) {
      EXPECT_TRUE(Contains((*nc)["instanceTypes"], t.as<std::string>())) << pod << " lacks " << t;
    }
    for (const auto& t : want["instanceTypesExclude"]) {
      EXPECT_FALSE(Contains((*nc)["instanceTypes"], t.as<std::string>())) << pod << " has " << t;
    }
    if (want["instanceTypesPrefix"]) {
      // Every option's name starts with one of the prefixes (e.g. families).
      auto prefixes = want["instanceTypesPrefix"].as<std::vector<std::string>>();
      for (const auto& t : (*nc)["instanceTypes"]) {
        std::string name = t;
        bool ok = std::any_of(prefixes.begin(), prefixes.end(),
                              [&](const std::string& p) { return name.rfind(p, 0) == 0; });
        EXPECT_TRUE(ok) << pod << ": unexpected instance type " << name;
      }
    }
    if (want["cpu"]) {
      EXPECT_EQ((*nc)["requests"]["cpu"], want["cpu"].as<std::string>()) << pod;
    }
    if (want["nodepool"]) {
      EXPECT_EQ((*nc)["nodepool"], want["nodepool"].as<std::string>()) << pod;
    }
  }
  // Pods whose names start with a prefix, grouped by zone of their (single-zone) nodeclaim.
  for (const auto& entry : expect["zoneSpread"]) {
    std::string prefix = entry.first.as<std::string>();
    std::map<std::string, int> per_zone;
    for (const auto& nc : plan["nodeclaims"]) {
      for (const auto& p : nc["pods"]) {
        if (p.get<std::string>().rfind(prefix, 0) != 0) continue;
        ASSERT_EQ(nc["zones"].size(), 1u) << "spread pod on a multi-zone nodeclaim";
        ++per_zone[nc["zones"][0]];
      }
    }
    int lo = INT32_MAX;
    int hi = 0;
    for (const auto& [zone, n] : per_zone) {
      lo = std::min(lo, n);
      hi = std::max(hi, n);
    }
    EXPECT_EQ(per_zone.size(), entry.second["zones"].as<size_t>()) << plan.dump(1);
    EXPECT_LE(hi - lo, entry.second["maxSkew"].as<int>()) << plan.dump(1);
  }
  for (const auto& entry : expect["maxPerNode"]) {
    std::string prefix = entry.first.as<std::string>();
    std::map<std::string, int> per_node;
    for (const auto& [pod, host] : hosts) {
      if (pod.rfind(prefix, 0) == 0) ++per_node[host];
    }
    for (const auto& [host, n] : per_node) {
      EXPECT_LE(n, entry.second.as<int>()) << host << " holds too many " << prefix;
    }
  }
}

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(fs::path(KARPENTER_TESTDATA) / "scheduling")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

INSTANTIATE_TEST_SUITE_P(Scheduling, Scenario, testing::ValuesIn(ScenarioFiles()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = fs::path(info.param).stem().string();
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace karpenter
