#include "e2e.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/cluster.h"
#include "support/crds.h"

namespace karpenter::bench {
namespace {

constexpr const char* kNamespace = "bench-e2e";

// Four deployments of different sizes sharing the pods, on the seed's NodePool.
std::vector<kube::Object> Workload(int pods) {
  std::vector<kube::Object> objects;
  objects.push_back(
      {{"apiVersion", "karpenter.k8s.aws/v1"},
       {"kind", "EC2NodeClass"},
       {"metadata", {{"name", "default"}}},
       {"spec",
        {{"role", "KarpenterNodeRole-bench"},
         {"amiSelectorTerms", {{{"alias", "al2023@latest"}}}},
         {"subnetSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", "bench"}}}}}},
         {"securityGroupSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", "bench"}}}}}}}}});
  objects.push_back(
      {{"apiVersion", "karpenter.sh/v1"},
       {"kind", "NodePool"},
       {"metadata", {{"name", "default"}}},
       {"spec",
        {{"template",
          {{"spec",
            {{"requirements",
              {{{"key", "kubernetes.io/arch"}, {"operator", "In"}, {"values", {"amd64"}}},
               {{"key", "karpenter.sh/capacity-type"}, {"operator", "In"}, {"values", {"spot"}}},
               {{"key", "karpenter.k8s.aws/instance-category"},
                {"operator", "In"},
                {"values", {"c", "m", "r"}}},
               {{"key", "karpenter.k8s.aws/instance-generation"},
                {"operator", "Gt"},
                {"values", {"2"}}}}},
             {"nodeClassRef",
              {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}}},
         {"limits", {{"cpu", 100000}}}}}});
  objects.push_back(
      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kNamespace}}}});
  const std::pair<const char*, const char*> sizes[] = {
      {"100m", "128Mi"}, {"250m", "512Mi"}, {"500m", "1Gi"}, {"1", "2Gi"}};
  for (int i = 0; i < 4; ++i) {
    const int replicas = pods / 4 + (i < pods % 4 ? 1 : 0);
    const std::string app = "bench-" + std::to_string(i);
    objects.push_back(
        {{"apiVersion", "apps/v1"},
         {"kind", "Deployment"},
         {"metadata", {{"name", app}, {"namespace", kNamespace}}},
         {"spec",
          {{"replicas", replicas},
           {"selector", {{"matchLabels", {{"app", app}}}}},
           {"template",
            {{"metadata", {{"labels", {{"app", app}}}}},
             {"spec",
              {{"containers",
                {{{"name", "app"},
                  {"image", "registry.k8s.io/pause:3.10"},
                  {"resources",
                   {{"requests",
                     {{"cpu", sizes[i].first}, {"memory", sizes[i].second}}}}}}}}}}}}}}});
  }
  return objects;
}

Result<size_t> CountRunning(kube::Client& client) {
  kube::ListOptions options;
  options.namespace_ = kNamespace;
  options.field_selector = "status.phase=Running";
  ASSIGN_OR_RETURN(kube::ObjectList pods, client.List(kube::resources::kPods, options));
  return pods.items.size();
}

int Fail(const std::string& message) {
  std::cerr << "karpenter-bench e2e: " << message << '\n';
  return 1;
}

}  // namespace

std::string BesideThisExecutable(const std::string& name) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return (self.parent_path() / name).string();
}

Result<std::unique_ptr<kube::Client>> TestClusterWithCrds(const std::string& kubeconfig,
                                                          const std::string& source_dir) {
  ASSIGN_OR_RETURN(std::unique_ptr<kube::Client> client, support::ClusterClient(kubeconfig));
  RETURN_IF_ERROR(support::InstallCrds(
      *client, source_dir.empty() ? std::string(KARPENTER_SOURCE_DIR) : source_dir));
  return client;
}

int RunEndToEnd(const EndToEndArgs& args) {
  if (args.kubeconfig.empty()) return Fail("--kubeconfig is required");
  Result<std::unique_ptr<kube::Client>> client =
      TestClusterWithCrds(args.kubeconfig, args.source_dir);
  if (!client.ok()) return Fail(client.error().message);
  kube::Client& cluster = **client;
  if (Status clean = support::CleanUp(cluster, {kNamespace}); !clean.ok()) {
    return Fail(clean.error().message);
  }

  const std::string log = std::filesystem::temp_directory_path() /
                          ("karpenter-bench-e2e-" + std::to_string(getpid()) + ".log");
  // The controller runs as the chart runs it: the identity scripts/testenv/identity gave the
  // cluster of the kubeconfig (in its folder).
  Result<support::ChartIdentity> identity =
      support::ReadChartIdentity(std::filesystem::absolute(args.kubeconfig).parent_path().string());
  if (!identity.ok()) return Fail(identity.error().message);
  support::ControllerProcess controller(
      args.karpenter_binary.empty() ? BesideThisExecutable("karpenter") : args.karpenter_binary,
      support::SimControllerArgs(*identity), log, identity->env);
  if (Status leading = support::AwaitLeadership(controller, std::chrono::seconds(60));
      !leading.ok()) {
    return Fail(leading.error().message);
  }
  const auto started = std::chrono::steady_clock::now();
  for (const kube::Object& object : Workload(args.pods)) {
    if (Status applied = support::Apply(cluster, object); !applied.ok()) {
      return Fail(applied.error().message);
    }
  }
  double cpu_seconds = 0;
  double peak_rss_mb = 0;
  const bool done = support::WaitFor(
      [&] {
        cpu_seconds = std::max(cpu_seconds, controller.CpuSeconds());
        peak_rss_mb = std::max(peak_rss_mb, controller.PeakRssMb());
        Result<size_t> running = CountRunning(cluster);
        return running.ok() && *running == static_cast<size_t>(args.pods);
      },
      std::chrono::seconds(args.timeout_seconds), std::chrono::milliseconds(250));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  Result<kube::ObjectList> claims = cluster.List(kube::resources::kNodeClaims, {});
  controller.Stop();
  if (!done) {
    return Fail("not every pod was Running after " + std::to_string(args.timeout_seconds) +
                " s; controller log: " + log);
  }
  (void)support::CleanUp(cluster, {kNamespace});
  nlohmann::ordered_json out = {{"pods", args.pods},
                                {"seconds", seconds},
                                {"nodes", claims.ok() ? claims->items.size() : 0},
                                {"controllerPeakRssMb", peak_rss_mb},
                                {"controllerCpuSeconds", cpu_seconds}};
  std::cout << out.dump() << '\n';
  std::filesystem::remove(log);
  return 0;
}

}  // namespace karpenter::bench
