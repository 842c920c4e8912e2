// karpenter-bench: reproducible performance runs printing JSON figures.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "api/labels.h"
#include "api/manifest.h"
#include "aws/catalog/load_catalog.h"
#include "chaos.h"
#include "cli/builtin_example.h"
#include "consolidation.h"
#include "cost.h"
#include "e2e.h"
#include "end_state.h"
#include "fidelity.h"
#include "fuzz.h"
#include "peak_rss.h"
#include "policies.h"
#include "provisioning/fractional_fleet.h"
#include "provisioning/scheduler.h"
#include "simulate.h"
#include "workloads.h"

namespace karpenter::bench {
namespace {

struct SchedulingArgs {
  int pods = 1000;
  std::string workload = "diverse";
  std::string catalog = "fake400";
  std::string node_pool_file;
  int iterations = 3;
  uint64_t seed = 42;
};

int RunScheduling(const SchedulingArgs& args) {
  auto catalog = aws::LoadCatalog(args.catalog, aws::AwsCatalogOptions{});
  if (!catalog.ok()) {
    std::cerr << "error: " << catalog.error().message << '\n';
    return 1;
  }
  // Default: the seed's NodePool (the built-in plan example's) on the AWS catalog; on synthetic
  // catalogs, the same NodePool without requirements (their types carry no AWS labels).
  api::DecodeOutcome pools = args.node_pool_file.empty()
                                 ? api::DecodeManifest(cli::BuiltinPlanExample(), "<built-in>")
                                 : api::LoadManifestFile(args.node_pool_file);
  if (!pools.errors.empty() || pools.manifest.node_pools.empty()) {
    for (const auto& e : pools.errors) std::cerr << e << '\n';
    std::cerr << "error: no valid NodePool\n";
    return 1;
  }
  if (args.node_pool_file.empty() && args.catalog != "aws") {
    pools.manifest.node_pools.front().spec.template_.spec.requirements.clear();
  }
  // Limits would cap the pass; the benchmark measures the scheduler, not the NodePool's budget.
  pools.manifest.node_pools.front().spec.limited_resources.clear();
  const api::NodePool& node_pool = pools.manifest.node_pools.front();

  std::vector<double> seconds;
  provisioning::SchedulerResult result;
  std::vector<api::Pod> pods;
  for (int i = 0; i < std::max(1, args.iterations); ++i) {
    pods = args.workload == "generic" ? MakeGenericPods(args.pods, args.seed)
                                      : MakeDiversePods(args.pods, args.seed);
    provisioning::SchedulerInput input;
    provisioning::NodePoolOffer offer;
    offer.node_pool = &node_pool;
    for (const auto& it : *catalog) offer.instance_types.push_back(&it);
    input.node_pools.push_back(std::move(offer));
    for (const auto& pod : pods) input.pods.push_back(&pod);
    auto start = std::chrono::steady_clock::now();
    result = provisioning::Schedule(input);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];

  double cpu = 0;
  double memory = 0;
  for (const auto& pod : pods) {
    api::ResourceList r = api::EffectiveRequests(pod.spec);
    cpu += r.cpu().as_double();
    memory += r.memory().as_double() / (1024.0 * 1024 * 1024);
  }
  // The lower bound uses the same types the NodePool allows, at their cheapest allowed offering.
  std::vector<const cloud::InstanceType*> offered;
  for (const auto& it : *catalog) offered.push_back(&it);
  std::optional<double> bound;
  if (auto fleet = provisioning::CheapestFractionalFleet(
          provisioning::NodePoolFleetTypes(node_pool, offered),
          {cpu, memory, static_cast<double>(pods.size())})) {
    bound = fleet->price;
  }
  nlohmann::ordered_json out;
  out["pods"] = args.pods;
  out["scheduled"] = result.Scheduled();
  out["nodeclaims"] = result.node_claims.size();
  out["seconds"] = median;
  out["podsPerSecond"] = median > 0 ? args.pods / median : 0;
  out["peakRssMb"] = PeakRssMb();
  out["pricePerHour"] = result.PricePerHour();
  out["lowerBoundPricePerHour"] = bound ? nlohmann::ordered_json(*bound) : nullptr;
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace
}  // namespace karpenter::bench

int main(int argc, char** argv) {
  using karpenter::bench::RunScheduling;
  using karpenter::bench::SchedulingArgs;
  CLI::App app{"karpenter-bench: performance figures as JSON"};
  app.require_subcommand(1);
  SchedulingArgs scheduling;
  std::string output = "json";
  auto* cmd = app.add_subcommand("scheduling", "One provisioning pass over generated pods");
  cmd->add_option("--pods", scheduling.pods, "Number of pods")->capture_default_str();
  cmd->add_option("--workload", scheduling.workload, "diverse | generic")
      ->check(CLI::IsMember({"diverse", "generic"}))
      ->capture_default_str();
  cmd->add_option("--catalog", scheduling.catalog, "fake400 | aws | FILE")->capture_default_str();
  cmd->add_option("--nodepool", scheduling.node_pool_file, "NodePool manifest (default: seed's)");
  cmd->add_option("--iterations", scheduling.iterations, "Measured runs (median reported)")
      ->capture_default_str();
  cmd->add_option("--seed", scheduling.seed, "Workload seed")->capture_default_str();
  cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));

  karpenter::bench::EndToEndArgs e2e;
  auto* e2e_cmd = app.add_subcommand(
      "e2e", "Pending pods to Running on a test cluster, with our controller as a child process");
  e2e_cmd->add_option("--pods", e2e.pods, "Number of pods")->capture_default_str();
  e2e_cmd
      ->add_option("--kubeconfig", e2e.kubeconfig,
                   "DIR/kubeconfig of a test cluster (scripts/testenv/up DIR); the controller "
                   "runs as DIR/identity (scripts/testenv/identity)")
      ->required();
  e2e_cmd->add_option("--karpenter", e2e.karpenter_binary,
                      "The karpenter binary (default: beside this one)");
  e2e_cmd->add_option("--source-dir", e2e.source_dir, "Where deploy/crds is (default: the source)");
  e2e_cmd->add_option("--timeout", e2e.timeout_seconds, "Seconds to wait")->capture_default_str();
  e2e_cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));
  karpenter::bench::ConsolidationArgs consolidation;
  auto* consolidation_cmd = app.add_subcommand(
      "consolidation", "One disruption pass over a generated, 40% over-provisioned cluster");
  consolidation_cmd->add_option("--nodes", consolidation.nodes, "Number of nodes")
      ->capture_default_str();
  consolidation_cmd->add_option("--pods-per-node", consolidation.pods_per_node, "Pods per node")
      ->capture_default_str();
  consolidation_cmd->add_option("--catalog", consolidation.catalog, "aws | FILE")
      ->capture_default_str();
  consolidation_cmd->add_option("--budget", consolidation.budget,
                                "The NodePool's disruption budget (default: the seed's, 10%)");
  consolidation_cmd
      ->add_option("--utilization", consolidation.utilization,
                   "Share of each node's allocatable its pods request")
      ->capture_default_str();
  consolidation_cmd->add_option("--seed", consolidation.seed, "Generator seed")
      ->capture_default_str();
  consolidation_cmd->add_flag("--from-informers", consolidation.from_informers,
                              "Read the cluster from kube/memory through informers, as the "
                              "controller does, and time that too");
  consolidation_cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));
  karpenter::bench::SimulateArgs simulate;
  auto* simulate_cmd = app.add_subcommand(
      "simulate", "karpenter simulate on a generated snapshot: node groups retired, Karpenter in");
  simulate_cmd->add_option("--nodes", simulate.nodes, "Node-group nodes")->capture_default_str();
  simulate_cmd->add_option("--pods", simulate.pods, "Pods, in Deployments of 100")
      ->capture_default_str();
  simulate_cmd->add_option("--duration", simulate.duration, "Virtual time")->capture_default_str();
  simulate_cmd->add_option("--seed", simulate.seed, "Simulation seed")->capture_default_str();
  simulate_cmd->add_flag("--kubectl-json", simulate.kubectl_json,
                         "Load the snapshot from `kubectl get -A -o json` text, as EKS prints it");
  simulate_cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));
  karpenter::bench::CostArgs cost;
  bool cost_suite = false;
  auto* cost_cmd = app.add_subcommand(
      "cost", "The fleet's $/h against the LP lower bound over many workload mixes");
  cost_cmd->add_flag("--suite", cost_suite, "Every mix (the only mode)")->required();
  cost_cmd->add_option("--seed", cost.seed, "Seed of the random mixes (default: a new one)");
  cost_cmd->add_flag("--optimum", cost.optimum,
                     "Solve mixes without placement constraints exactly too (HiGHS MILP via "
                     "scripts/cost-optimum, which installs highspy from PyPI once)");
  cost_cmd
      ->add_option("--optimum-seconds", cost.optimum_seconds,
                   "The solver's time per mix (default 20); past it, its bound only")
      ->check(CLI::PositiveNumber);
  cost_cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));
  karpenter::bench::EndStateArgs end_state;
  auto* end_state_cmd = app.add_subcommand(
      "end-state",
      "The built-in scenario's end state against the cheapest fleets for its pods: the LP "
      "bound, the integer optimum, and the integer optimum that keeps the pods' zone spreads "
      "(scripts/cost-optimum, which installs highspy from PyPI once)");
  end_state_cmd->add_option("--seed", end_state.seed, "The simulation's seed")
      ->capture_default_str();
  end_state_cmd->add_option("--duration", end_state.duration, "Virtual time to simulate")
      ->capture_default_str();
  end_state_cmd->add_flag("--spot-to-spot", end_state.spot_to_spot,
                          "With the SpotToSpotConsolidation feature gate");
  end_state_cmd
      ->add_option("--optimum-seconds", end_state.optimum_seconds,
                   "The solver's time per model; past it, its bound only")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  end_state_cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));
  karpenter::bench::FuzzArgs fuzz;
  auto* fuzz_cmd = app.add_subcommand(
      "fuzz", "Every libFuzzer target of tests/fuzz from its seeds (scripts/fuzz builds them)");
  fuzz_cmd->add_option("--fuzzers", fuzz.fuzzers, "Folder of the *_fuzz executables");
  fuzz_cmd->add_option("--corpus", fuzz.corpus, "Folder of the seed corpora, one per target");
  fuzz_cmd->add_option("--seconds", fuzz.seconds, "Seconds per target")->capture_default_str();
  fuzz_cmd->add_option("--runs", fuzz.runs, "Executions per target (instead of --seconds)");
  fuzz_cmd->add_option("--seed", fuzz.seed, "libFuzzer's random seed (default: a new one)");
  fuzz_cmd->add_option("--targets", fuzz.targets, "Only these targets, e.g. cron,quantity")
      ->delimiter(',');
  fuzz_cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));
  karpenter::bench::ChaosArgs chaos;
  auto* chaos_cmd = app.add_subcommand(
      "chaos", "The controller under faults on a test cluster and moto; the invariants audited");
  chaos_cmd
      ->add_option("--testenv", chaos.testenv_dir,
                   "The test cluster's folder (scripts/testenv/up DIR, with DIR/identity)")
      ->required();
  chaos_cmd
      ->add_option("--moto", chaos.moto_dir,
                   "The AWS account's folder (scripts/testenv/moto-up DIR)")
      ->required();
  chaos_cmd->add_option("--duration", chaos.duration_seconds, "Seconds of faults")
      ->capture_default_str();
  chaos_cmd->add_option("--settle", chaos.settle_seconds, "Seconds the cluster may take to settle")
      ->capture_default_str();
  chaos_cmd->add_option("--seed", chaos.seed, "The fault schedule's seed (default: a new one)");
  chaos_cmd->add_flag("--inject-violations", chaos.inject_violations,
                      "After the settle, leak one instance and break one budget behind the "
                      "controller's back: the run must count exactly those");
  chaos_cmd->add_flag("--keep-on-failure", chaos.keep_on_failure,
                      "When an invariant broke, leave the cluster and EC2 as they were");
  chaos_cmd->add_option("--karpenter", chaos.karpenter_binary,
                        "The karpenter binary (default: beside this one)");
  chaos_cmd->add_option("--source-dir", chaos.source_dir,
                        "Where deploy/crds and scripts/ are (default: the source)");
  chaos_cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));
  karpenter::bench::PoliciesArgs policies;
  auto* policies_cmd = app.add_subcommand(
      "policies",
      "Balanced against WhenEmptyOrUnderutilized consolidation on one churning cluster");
  policies_cmd->add_option("--deployments", policies.deployments, "Deployments of mixed shapes")
      ->capture_default_str();
  policies_cmd->add_option("--duration", policies.duration_minutes, "Minutes of virtual time")
      ->capture_default_str();
  policies_cmd->add_option("--seeds", policies.seeds, "One workload per seed")
      ->delimiter(',')
      ->capture_default_str();
  policies_cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));

  karpenter::bench::FidelityArgs fidelity;
  auto* fidelity_cmd = app.add_subcommand(
      "fidelity", "karpenter simulate's forecast against the controller on a test cluster");
  fidelity_cmd->add_option("--testenv", fidelity.testenv_dir,
                           "A test cluster's directory (scripts/testenv/up DIR, then identity)");
  fidelity_cmd
      ->add_option("--runs", fidelity.runs, "Real runs per scenario (0: the simulation only)")
      ->capture_default_str();
  fidelity_cmd->add_option("--pods", fidelity.pods, "Pods per scenario")->capture_default_str();
  fidelity_cmd
      ->add_option("--sim-seeds", fidelity.sim_seeds,
                   "Simulations per scenario (seeds 1..N), compared by their medians")
      ->capture_default_str();
  fidelity_cmd->add_option("--duration", fidelity.duration_seconds, "Seconds each scenario runs")
      ->capture_default_str();
  fidelity_cmd->add_option("--seeds", fidelity.seeds, "One mixed scale-up per seed")
      ->delimiter(',')
      ->capture_default_str();
  fidelity_cmd
      ->add_option("--scenarios", fidelity.scenarios,
                   "mixed (one per seed), spread, scale-down, node-group-retirement, "
                   "spot-interruption (needs --moto)")
      ->delimiter(',')
      ->capture_default_str();
  fidelity_cmd->add_option("--moto", fidelity.moto_dir,
                           "moto's directory (scripts/testenv/moto-up DIR): spot-interruption's "
                           "SQS queue");
  fidelity_cmd->add_option("--karpenter", fidelity.karpenter_binary,
                           "The karpenter binary (default: beside this one)");
  fidelity_cmd->add_option("--source-dir", fidelity.source_dir,
                           "Where deploy/crds is (default: the source)");
  fidelity_cmd
      ->add_option("--series", fidelity.series_seconds,
                   "Every this many seconds, each run's and the simulation's figures (0: none)")
      ->capture_default_str();
  fidelity_cmd->add_option("--logs", fidelity.logs_dir,
                           "Keep each real run's controller log here (<scenario>-<run>.log)");
  fidelity_cmd->add_option("--output", output, "json")->check(CLI::IsMember({"json"}));
  CLI11_PARSE(app, argc, argv);
  if (fidelity_cmd->parsed()) return karpenter::bench::RunFidelity(fidelity);
  if (policies_cmd->parsed()) return karpenter::bench::RunPolicies(policies);
  if (chaos_cmd->parsed()) return karpenter::bench::RunChaos(chaos);
  if (fuzz_cmd->parsed()) return karpenter::bench::RunFuzz(fuzz);
  if (cost_cmd->parsed()) return karpenter::bench::RunCost(cost);
  if (end_state_cmd->parsed()) return karpenter::bench::RunEndState(end_state);
  if (simulate_cmd->parsed()) return karpenter::bench::RunSimulate(simulate);
  if (e2e_cmd->parsed()) return karpenter::bench::RunEndToEnd(e2e);
  if (consolidation_cmd->parsed()) return karpenter::bench::RunConsolidation(consolidation);
  return RunScheduling(scheduling);
}
