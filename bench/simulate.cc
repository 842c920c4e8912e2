#include "simulate.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/encode.h"
#include "aws/catalog/load_catalog.h"
#include "cli/builtin_example.h"
#include "common/document.h"
#include "common/duration.h"
#include "common/json.h"
#include "peak_rss.h"
#include "simulate/inputs.h"
#include "simulate/simulation.h"

namespace karpenter::bench {
namespace {

using json = Json;

constexpr int kNodesPerGroup = 500;
constexpr int kReplicas = 100;
constexpr size_t kDeploymentsPerNamespace = 10;
constexpr std::string_view kInstanceType = "m5.2xlarge";
constexpr std::array<std::string_view, 3> kZones = {"us-east-1a", "us-east-1b", "us-east-1c"};
// Requests cycle through these, so pods of a node differ in size.
constexpr std::array<std::string_view, 3> kCpu = {"400m", "600m", "800m"};
constexpr std::array<std::string_view, 3> kMemory = {"1Gi", "2Gi", "3Gi"};
// The burst: this many Deployments double at t=5m and return at t=35m.
constexpr size_t kBurstDeployments = 50;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

json Container(size_t deployment) {
  return json::array({{{"name", "main"},
                       {"image", "app"},
                       {"resources",
                        {{"requests",
                          {{"cpu", kCpu[deployment % kCpu.size()]},
                           {"memory", kMemory[(deployment / kCpu.size()) % kMemory.size()]}}}}}}});
}

// The snapshot's objects: Nodes, Deployments with their PDBs, and their pods bound round-robin.
std::vector<json> Snapshot(const SimulateArgs& args, const cloud::InstanceType& type) {
  std::vector<json> objects;
  objects.reserve(static_cast<size_t>(args.nodes + args.pods) + 2 * args.pods / kReplicas + 2);
  const json allocatable = api::Encode(type.Allocatable());
  std::vector<std::string> names;
  for (int i = 0; i < args.nodes; ++i) {
    const std::string name = fmt::format("ip-10-1-{}-{}.ec2.internal", i / 250, i % 250);
    const std::string_view zone = kZones[static_cast<size_t>(i) % kZones.size()];
    objects.push_back(
        {{"apiVersion", "v1"},
         {"kind", "Node"},
         {"metadata",
          {{"name", name},
           {"labels",
            {{"eks.amazonaws.com/nodegroup", fmt::format("ng-{}", i / kNodesPerGroup)},
             {"eks.amazonaws.com/capacityType", "ON_DEMAND"},
             {"node.kubernetes.io/instance-type", kInstanceType},
             {"topology.kubernetes.io/zone", zone},
             {"kubernetes.io/arch", "amd64"},
             {"kubernetes.io/os", "linux"},
             {"kubernetes.io/hostname", name}}}}},
         {"spec", {{"providerID", fmt::format("aws:///{}/i-{:017x}", zone, i)}}},
         {"status",
          {{"allocatable", allocatable},
           {"capacity", allocatable},
           {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
    names.push_back(name);
  }
  int placed = 0;
  for (size_t d = 0; placed < args.pods; ++d) {
    const int replicas = std::min(kReplicas, args.pods - placed);
    const std::string name = fmt::format("app-{}", d);
    const std::string ns = fmt::format("team-{}", d / kDeploymentsPerNamespace);
    const std::string hash = fmt::format("h{:08x}", d);
    const std::string replica_set = fmt::format("{}-{}", name, hash);
    const json labels = {{"app", name}};
    objects.push_back(
        {{"apiVersion", "apps/v1"},
         {"kind", "Deployment"},
         {"metadata", {{"name", name}, {"namespace", ns}}},
         {"spec",
          {{"replicas", replicas},
           {"selector", {{"matchLabels", labels}}},
           {"template",
            {{"metadata", {{"labels", labels}}}, {"spec", {{"containers", Container(d)}}}}}}}});
    objects.push_back(
        {{"apiVersion", "policy/v1"},
         {"kind", "PodDisruptionBudget"},
         {"metadata", {{"name", name}, {"namespace", ns}}},
         {"spec", {{"maxUnavailable", "10%"}, {"selector", {{"matchLabels", labels}}}}}});
    for (int r = 0; r < replicas; ++r, ++placed) {
      json pod_labels = labels;
      pod_labels["pod-template-hash"] = hash;
      objects.push_back(
          {{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata",
            {{"name", fmt::format("{}-{}-{}", name, hash, r)},
             {"namespace", ns},
             {"labels", std::move(pod_labels)},
             {"ownerReferences", json::array({{{"apiVersion", "apps/v1"},
                                               {"kind", "ReplicaSet"},
                                               {"name", replica_set},
                                               {"uid", name},
                                               {"controller", true}}})}}},
           {"spec",
            {{"nodeName", names[static_cast<size_t>(placed) % names.size()]},
             {"containers", Container(d)}}},
           {"status",
            {{"phase", "Running"},
             {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
    }
  }
  return objects;
}

// What `kubectl get -o json` shows of a pod on EKS beyond what the simulation reads: the
// fields the API server and the kubelet fill in, probes, environment, the service-account token
// volume, the container statuses.
void DressPod(json& pod, size_t index) {
  const std::string token_volume = fmt::format("kube-api-access-{:05x}", index % 0xfffff);
  const std::string ip =
      fmt::format("10.{}.{}.{}", 1 + index / 65536, (index / 256) % 256, index % 256);
  json& metadata = pod["metadata"];
  metadata["uid"] = fmt::format("{:08x}-0000-4000-8000-{:012x}", index, index);
  metadata["resourceVersion"] = std::to_string(1000 + index);
  metadata["creationTimestamp"] = "2026-11-30T08:00:00Z";
  metadata["generateName"] = metadata["name"].get<std::string>().substr(
      0, metadata["name"].get<std::string>().rfind('-') + 1);
  metadata["ownerReferences"][0]["blockOwnerDeletion"] = true;
  metadata["annotations"] = {{"kubectl.kubernetes.io/restartedAt", "2026-11-29T10:00:00Z"}};
  const json probe = {{"failureThreshold", 3},
                      {"httpGet", {{"path", "/healthz"}, {"port", 8080}, {"scheme", "HTTP"}}},
                      {"periodSeconds", 10},
                      {"successThreshold", 1},
                      {"timeoutSeconds", 1}};
  json env = json::array();
  for (const char* name : {"LOG_LEVEL", "REGION", "CLUSTER", "FEATURE_FLAGS", "OTEL_ENDPOINT"}) {
    env.push_back({{"name", name}, {"value", fmt::format("value-of-{}", name)}});
  }
  for (json& container : pod["spec"]["containers"]) {
    container["image"] = "123456789012.dkr.ecr.us-east-1.amazonaws.com/app:1.42.0";
    container["imagePullPolicy"] = "IfNotPresent";
    container["env"] = env;
    container["ports"] = {{{"containerPort", 8080}, {"name", "http"}, {"protocol", "TCP"}}};
    container["livenessProbe"] = probe;
    container["readinessProbe"] = probe;
    container["resources"]["limits"] = {{"memory", container["resources"]["requests"]["memory"]}};
    container["terminationMessagePath"] = "/dev/termination-log";
    container["terminationMessagePolicy"] = "File";
    container["volumeMounts"] = {{{"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
                                  {"name", token_volume},
                                  {"readOnly", true}}};
  }
  json& spec = pod["spec"];
  spec["dnsPolicy"] = "ClusterFirst";
  spec["enableServiceLinks"] = true;
  spec["preemptionPolicy"] = "PreemptLowerPriority";
  spec["priority"] = 0;
  spec["restartPolicy"] = "Always";
  spec["schedulerName"] = "default-scheduler";
  spec["securityContext"] = json::object();
  spec["serviceAccount"] = "default";
  spec["serviceAccountName"] = "default";
  spec["terminationGracePeriodSeconds"] = 30;
  spec["tolerations"] = json::array();
  for (const char* taint : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    spec["tolerations"].push_back({{"effect", "NoExecute"},
                                   {"key", taint},
                                   {"operator", "Exists"},
                                   {"tolerationSeconds", 300}});
  }
  spec["volumes"] = {
      {{"name", token_volume},
       {"projected",
        {{"defaultMode", 420},
         {"sources",
          {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
           {{"configMap",
             {{"items", {{{"key", "ca.crt"}, {"path", "ca.crt"}}}}, {"name", "kube-root-ca.crt"}}}},
           {{"downwardAPI",
             {{"items",
               {{{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}},
                 {"path", "namespace"}}}}}}}}}}}}};
  json& status = pod["status"];
  status["conditions"] = json::array();
  for (const char* type : {"Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
    status["conditions"].push_back({{"lastProbeTime", nullptr},
                                    {"lastTransitionTime", "2026-11-30T08:00:05Z"},
                                    {"status", "True"},
                                    {"type", type}});
  }
  status["containerStatuses"] = {
      {{"containerID", fmt::format("containerd://{:064x}", index)},
       {"image", "123456789012.dkr.ecr.us-east-1.amazonaws.com/app:1.42.0"},
       {"imageID",
        fmt::format("123456789012.dkr.ecr.us-east-1.amazonaws.com/app@sha256:{:064x}", index % 97)},
       {"lastState", json::object()},
       {"name", "main"},
       {"ready", true},
       {"restartCount", 0},
       {"started", true},
       {"state", {{"running", {{"startedAt", "2026-11-30T08:00:04Z"}}}}}}};
  status["hostIP"] = ip;
  status["hostIPs"] = {{{"ip", ip}}};
  status["podIP"] = ip;
  status["podIPs"] = {{{"ip", ip}}};
  status["qosClass"] = "Burstable";
  status["startTime"] = "2026-11-30T08:00:01Z";
}

// What kubectl shows of an EKS node beyond what the simulation reads.
void DressNode(json& node, size_t index) {
  json& metadata = node["metadata"];
  metadata["uid"] = fmt::format("{:08x}-0000-4000-9000-{:012x}", index, index);
  metadata["resourceVersion"] = std::to_string(500 + index);
  metadata["creationTimestamp"] = "2026-11-30T07:50:00Z";
  metadata["annotations"] = {{"alpha.kubernetes.io/provided-node-ip", "10.1.0.1"},
                             {"node.alpha.kubernetes.io/ttl", "0"},
                             {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}};
  json& labels = metadata["labels"];
  labels["beta.kubernetes.io/arch"] = "amd64";
  labels["beta.kubernetes.io/os"] = "linux";
  labels["beta.kubernetes.io/instance-type"] = kInstanceType;
  labels["eks.amazonaws.com/nodegroup-image"] = "ami-0123456789abcdef0";
  labels["eks.amazonaws.com/sourceLaunchTemplateId"] = "lt-0123456789abcdef0";
  labels["eks.amazonaws.com/sourceLaunchTemplateVersion"] = "1";
  labels["failure-domain.beta.kubernetes.io/region"] = "us-east-1";
  const json zone = labels["topology.kubernetes.io/zone"];  // a copy: inserting moves members
  labels["failure-domain.beta.kubernetes.io/zone"] = zone;
  labels["k8s.io/cloud-provider-aws"] = "0123456789abcdef0123456789abcdef";
  labels["topology.ebs.csi.aws.com/zone"] = zone;
  labels["topology.kubernetes.io/region"] = "us-east-1";
  const std::string name = metadata["name"];
  json& status = node["status"];  // may move `metadata` (common/json.h): not used after
  status["addresses"] = {{{"address", "10.1.0.1"}, {"type", "InternalIP"}},
                         {{"address", name}, {"type", "InternalDNS"}},
                         {{"address", name}, {"type", "Hostname"}}};
  status["conditions"] = json::array();
  for (const char* type : {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
    const bool ready = std::string_view(type) == "Ready";
    status["conditions"].push_back(
        {{"lastHeartbeatTime", "2026-11-30T09:00:00Z"},
         {"lastTransitionTime", "2026-11-30T07:51:00Z"},
         {"message", ready ? "kubelet is posting ready status" : "kubelet has no pressure"},
         {"reason", ready ? "KubeletReady" : "KubeletHasNoPressure"},
         {"status", ready ? "True" : "False"},
         {"type", type}});
  }
  status["daemonEndpoints"] = {{"kubeletEndpoint", {{"Port", 10250}}}};
  status["images"] = json::array();
  for (int i = 0; i < 20; ++i) {
    status["images"].push_back(
        {{"names",
          {fmt::format("602401143452.dkr.ecr.us-east-1.amazonaws.com/image-{}@sha256:{:064x}", i,
                       i),
           fmt::format("602401143452.dkr.ecr.us-east-1.amazonaws.com/image-{}:v1.{}", i, i)}},
         {"sizeBytes", 10000000 + i * 1000}});
  }
  status["nodeInfo"] = {{"architecture", "amd64"},
                        {"bootID", fmt::format("{:032x}", index)},
                        {"containerRuntimeVersion", "containerd://1.7.22"},
                        {"kernelVersion", "6.1.112-122.189.amzn2023.x86_64"},
                        {"kubeProxyVersion", "v1.31.2-eks-7f9249a"},
                        {"kubeletVersion", "v1.31.2-eks-7f9249a"},
                        {"machineID", fmt::format("{:032x}", index)},
                        {"operatingSystem", "linux"},
                        {"osImage", "Amazon Linux 2023.6.20241121"},
                        {"systemUUID", fmt::format("ec2{:029x}", index)}};
}

// The snapshot as `kubectl get nodes,pods,pdb,deploy -A -o json` prints it: one List.
std::string KubectlJson(std::vector<json> objects) {
  size_t index = 0;
  for (json& object : objects) {
    const std::string kind = object.value("kind", "");
    if (kind == "Pod") DressPod(object, index);
    if (kind == "Node") DressNode(object, index);
    ++index;
  }
  const json list = {{"apiVersion", "v1"},
                     {"kind", "List"},
                     {"items", std::move(objects)},
                     {"metadata", {{"resourceVersion", ""}}}};
  return list.dump(4);  // kubectl indents by four
}

}  // namespace

int RunSimulate(const SimulateArgs& args) {
  if (args.nodes < 1 || args.pods < 0) {
    std::cerr << "error: --nodes must be at least 1 and --pods not negative\n";
    return 1;
  }
  Result<Duration> duration = Duration::Parse(args.duration, /*allow_never=*/false);
  if (!duration.ok() || duration->value().count() <= 0) {
    std::cerr << "error: --duration: \"" << args.duration << "\" is not a positive duration\n";
    return 1;
  }
  Result<std::vector<cloud::InstanceType>> catalog = aws::LoadCatalog("aws");
  if (!catalog.ok()) {
    std::cerr << "error: " << catalog.error().message << '\n';
    return 1;
  }
  const auto type =
      std::find_if(catalog->begin(), catalog->end(),
                   [](const cloud::InstanceType& t) { return t.name == kInstanceType; });
  simulate::SimulationInput input;
  input.scenario = "karpenter-bench simulate";
  input.seed = args.seed;
  input.duration = duration->value();
  nlohmann::ordered_json out;
  auto start = std::chrono::steady_clock::now();
  if (args.kubectl_json) {
    const std::string text = KubectlJson(Snapshot(args, *type));
    start = std::chrono::steady_clock::now();
    std::vector<std::string> errors;
    simulate::AddManifests(text, "<snapshot>", input, errors);
    if (!errors.empty()) {
      std::cerr << "error: " << errors.front() << '\n';
      return 1;
    }
    out["snapshotMb"] = static_cast<double>(text.size()) / (1024.0 * 1024.0);
    out["decodeSeconds"] = SecondsSince(start);
  } else {
    input.objects = Snapshot(args, *type);
  }
  Result<std::vector<Document>> seed = ParseDocuments(cli::SeedNodePoolManifests(), "<seed>");
  if (!seed.ok()) {
    std::cerr << "error: " << seed.error().message << '\n';
    return 1;
  }
  for (Document& document : *seed) {
    // The seed's 1000-vCPU limit would leave most of a cluster this size pending: the benchmark
    // measures the simulation, not the limit.
    if (document.value.value("kind", "") == "NodePool") {
      document.value["spec"]["limits"]["cpu"] = args.nodes * 100;
    }
    input.objects.push_back(std::move(document.value));
  }
  const int retired = std::min(args.nodes, kNodesPerGroup);
  input.timeline.actions.push_back(
      {std::chrono::minutes(1), simulate::ScaleNodeGroup{"ng-0", 0, 25}});
  const size_t deployments = (static_cast<size_t>(args.pods) + kReplicas - 1) / kReplicas;
  for (size_t d = 0; d < std::min(deployments, kBurstDeployments); ++d) {
    const std::string name = fmt::format("app-{}", d);
    const std::string ns = fmt::format("team-{}", d / kDeploymentsPerNamespace);
    input.timeline.actions.push_back(
        {std::chrono::minutes(5), simulate::ScaleWorkload{"Deployment", ns, name, 2 * kReplicas}});
    input.timeline.actions.push_back(
        {std::chrono::minutes(35), simulate::ScaleWorkload{"Deployment", ns, name, kReplicas}});
  }
  std::stable_sort(
      input.timeline.actions.begin(), input.timeline.actions.end(),
      [](const simulate::Action& a, const simulate::Action& b) { return a.at < b.at; });
  input.catalog = std::move(*catalog);

  // The first progress report comes at the first instant: everything loaded and synced.
  std::optional<double> load_seconds;
  const auto simulate_start = std::chrono::steady_clock::now();
  Result<simulate::SimulationResult> result =
      simulate::Simulate(std::move(input), [&](double /*done*/) {
        if (!load_seconds) load_seconds = SecondsSince(start);
      });
  const double seconds = SecondsSince(simulate_start);
  if (!result.ok()) {
    std::cerr << "error: " << result.error().message << '\n';
    return 1;
  }
  size_t launched = 0;
  for (const simulate::TimelineEvent& event : result->timeline) {
    if (event.event == "Launched") ++launched;
  }
  if (args.kubectl_json && load_seconds) out["loadSeconds"] = *load_seconds;
  out["nodes"] = args.nodes;
  out["pods"] = args.pods;
  out["virtualSeconds"] = result->virtual_seconds;
  out["seconds"] = seconds;
  out["peakRssMb"] = PeakRssMb();
  out["nodesRetired"] = retired;
  out["nodesAfter"] = result->after.nodes;
  out["pricePerHourAfter"] = result->after.price_per_hour;
  out["lowerBoundPricePerHourAfter"] = result->after.lower_bound_price_per_hour;
  out["lowerBoundWithKeptNodesPricePerHourAfter"] = result->after.kept_lower_bound_price_per_hour;
  out["launched"] = launched;
  out["decisions"] = result->decisions.size();
  out["podsDisrupted"] = result->pods_disrupted;
  out["pdbViolations"] = result->pdb_violations;
  out["unschedulablePods"] = result->unschedulable_pods;
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace karpenter::bench
