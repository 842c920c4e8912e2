#include "operator/operator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "kube/http/config.h"
#include "kube/http/http_client.h"
#include "kube/leader_election.h"
#include "metrics/exposition.h"
#include "metrics/process_collector.h"
#include "operator/http_server.h"
#include "operator/manager.h"

namespace karpenter::op {
namespace {

// NodeClaims the lifecycle steps at once. Each step is a write or two to the API server (about
// 10 ms each on a busy test cluster), so one at a time a wave of 300 new Nodes took 20–40 s to
// register and initialize; 32 at once leave the client's own rate limit (KUBE_CLIENT_QPS) as the
// bound, as upstream's concurrent reconcilers do.
constexpr size_t kLifecycleWorkers = 32;

std::string Identity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  return fmt::format("{}_{:08x}", host[0] != '\0' ? host : "karpenter", random());
}

// karpenter_build_info: 1, its labels naming the build. Upstream's goversion and goarch name the
// Go toolchain; ours name the C++ compiler and the architecture in Go's words, so that panels
// grouping by them still work.
void RegisterBuildInfo(prometheus::Registry& registry, const BuildInfo& build) {
#if defined(__x86_64__)
  constexpr const char* kArch = "amd64";
#elif defined(__aarch64__)
  constexpr const char* kArch = "arm64";
#else
  constexpr const char* kArch = "unknown";
#endif
#if defined(__clang__)
  const std::string compiler = fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  const std::string compiler = fmt::format("gcc {}", __VERSION__);
#else
  const std::string compiler = "unknown";
#endif
  prometheus::BuildGauge()
      .Name("karpenter_build_info")
      .Help("1, with the version and commit the controller was built from.")
      .Register(registry)
      .Add({{"version", build.version},
            {"commit", build.commit},
            {"goversion", compiler},
            {"goarch", kArch}})
      .Set(1);
}

}  // namespace

Status RunOperator(const Options& options, const BuildInfo& build, const Logger& logger,
                   const std::stop_token& stop, const CloudBackendFactory& new_backend) {
  const RealClock clock;
  ASSIGN_OR_RETURN(kube::http::Config config, options.kubeconfig.empty()
                                                  ? kube::http::InClusterConfig()
                                                  : kube::http::LoadKubeconfig(options.kubeconfig));
  config.qps = options.kube_client_qps;
  config.burst = options.kube_client_burst;
  ASSIGN_OR_RETURN(std::unique_ptr<kube::Client> client, kube::http::NewClient(config));
  ASSIGN_OR_RETURN(std::unique_ptr<CloudBackend> backend, new_backend(options, config, clock));

  ManagerOptions manager_options;
  manager_options.batch.idle = options.batch_idle_duration.value();
  manager_options.batch.max = options.batch_max_duration.value();
  manager_options.lifecycle.workers = kLifecycleWorkers;
  manager_options.disruption.engine.spot_to_spot_consolidation =
      options.FeatureGate("SpotToSpotConsolidation");
  manager_options.node_repair = options.FeatureGate("NodeRepair");
  manager_options.static_capacity = options.FeatureGate("StaticCapacity");
  manager_options.node_overlays = options.FeatureGate("NodeOverlay");
  manager_options.capacity_buffers = options.FeatureGate("CapacityBuffer");
  manager_options.disruption.engine.balanced_consolidation =
      options.FeatureGate("BalancedConsolidation");
  manager_options.scheduling = {
      .ignore_preferences = options.preference_policy == PreferencePolicy::kIgnore,
      .min_values_best_effort = options.min_values_policy == MinValuesPolicy::kBestEffort};
  manager_options.seed = std::random_device()();
  Manager manager(*client, backend->cloud(), clock, logger.Named("controller"), manager_options);
  // Declared after the manager: they read the manager's informers, so they must stop first.
  ASSIGN_OR_RETURN(std::vector<std::jthread> backend_threads,
                   backend->Attach(*client, manager, logger));

  HttpServerConfig health;
  health.name = "health probe server";
  health.port = options.health_probe_port;
  // A replica waiting for the leader Lease is ready: it serves its purpose by standing by, and the
  // chart's PodDisruptionBudget counts it as available (an unready standby would block every drain
  // of the leader's node). The leader is ready once its caches have synced.
  std::atomic<bool> leading = !options.leader_elect;
  health.routes = HealthRoutes(
      [&manager, &leading]() -> Status {
        if (!leading.load() || manager.cluster().synced()) return {};
        return Error("informer caches are not synced yet");
      },
      {});
  if (options.debug_endpoints) {
    // Off by default: it names nodes, pods and NodeClaims to whoever reaches the port.
    health.routes["/debug/state"] = [&manager] {
      Result<kube::Object> state = manager.DebugState(std::chrono::seconds(5));
      if (!state.ok()) return HttpAnswer{503, "text/plain", state.error().message + "\n"};
      return HttpAnswer{200, "application/json", state->dump(2) + "\n"};
    };
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HttpServer> health_server, HttpServer::Start(std::move(health)));
  logger.Info("serving health probes", {{"port", health_server->port()}});

  // Every replica serves its metrics; a standby's say what a standby knows (its caches are
  // empty until it leads, so its state series are empty, and cluster_state_synced is 0).
  prometheus::Registry build_registry;
  RegisterBuildInfo(build_registry, build);
  const metrics::ProcessCollector process;
  const std::vector<const prometheus::Collectable*> sources = {&build_registry,
                                                               &process,
                                                               &manager.registry(),
                                                               &manager.state_metrics(),
                                                               &manager.instance_type_metrics(),
                                                               &manager.event_metrics()};
  HttpServerConfig scrape;
  scrape.name = "metrics server";
  scrape.port = options.metrics_port;
  scrape.routes["/metrics"] = [&sources] {
    return HttpAnswer{200, std::string(metrics::kTextContentType),
                      metrics::TextExposition(sources)};
  };
  ASSIGN_OR_RETURN(std::unique_ptr<HttpServer> metrics_server,
                   HttpServer::Start(std::move(scrape)));
  logger.Info("serving metrics", {{"port", metrics_server->port()}});

  std::unique_ptr<kube::LeaderElector> elector;
  if (options.leader_elect) {
    kube::LeaderElectionOptions election;
    election.namespace_ = options.leader_election_namespace;
    election.lease_name = options.leader_election_name;
    election.identity = Identity();
    elector = std::make_unique<kube::LeaderElector>(*client, clock, election);
    logger.Info("waiting for leadership",
                {{"lease", election.namespace_ + "/" + election.lease_name},
                 {"identity", election.identity}});
    const bool acquired = elector->AwaitLeadership(stop, [&logger](const Error& error) {
      logger.Warn("leader election", {logkey::Err(error)});
    });
    if (!acquired) return {};
    leading = true;
    logger.Info("acquired leadership", {{"identity", election.identity}});
  }

  std::stop_source manager_stop;
  std::jthread controllers([&manager, token = manager_stop.get_token()] { manager.Run(token); });
  Status outcome;
  if (elector) {
    outcome = elector->HoldLeadership(stop);
  } else {
    while (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  manager_stop.request_stop();
  controllers.join();
  if (elector && outcome.ok()) (void)elector->Release();
  metrics_server->Stop();
  health_server->Stop();
  logger.Info("stopped");
  return outcome;
}

}  // namespace karpenter::op
