#include "chaos.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/api/ec2_api.h"
#include "aws/api/sqs_api.h"
#include "aws/provider/aws_cloud_provider.h"
#include "aws/sdk/curl_transport.h"
#include "chaos_audit.h"
#include "common/clock.h"
#include "e2e.h"
#include "kube/object.h"
#include "support/cluster.h"
#include "support/crds.h"
#include "support/moto_account.h"
#include "support/node_registrar.h"
#include "support/run_command.h"
#include "support/tcp_relay.h"

namespace karpenter::bench {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Steady = std::chrono::steady_clock;

constexpr const char* kNamespace = "chaos";

// The workloads: a Deployment of each shape, its replicas drawn in waves up to `most`, and a
// PodDisruptionBudget allowing one pod of it down at a time.
struct Shape {
  const char* cpu;
  const char* memory;
  int most;
};
constexpr Shape kShapes[] = {
    {"250m", "512Mi", 12}, {"500m", "1Gi", 10}, {"1", "2Gi", 8}, {"2", "4Gi", 4}};
constexpr int kWorkloads = static_cast<int>(std::size(kShapes));

std::string App(int i) { return "chaos-" + std::to_string(i); }

kube::Object Deployment(int i, int replicas) {
  return {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", App(i)}, {"namespace", kNamespace}}},
      {"spec",
       {{"replicas", replicas},
        {"selector", {{"matchLabels", {{"app", App(i)}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", App(i)}}}}},
          {"spec",
           {{"terminationGracePeriodSeconds", 5},
            {"containers",
             {{{"name", "app"},
               {"image", "registry.k8s.io/pause:3.10"},
               {"resources",
                {{"requests", {{"cpu", kShapes[i].cpu}, {"memory", kShapes[i].memory}}}}}}}}}}}}}}};
}

kube::Object Budget(int i, int max_unavailable) {
  return {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", App(i)}, {"namespace", kNamespace}}},
      {"spec",
       {{"maxUnavailable", max_unavailable}, {"selector", {{"matchLabels", {{"app", App(i)}}}}}}}};
}

// The seed's EC2NodeClass for the seeded cluster, and a NodePool of small spot and on-demand
// nodes (so a few dozen pods make many nodes to disrupt) that consolidates quickly; the template
// label `generation` is what a drift changes.
std::vector<kube::Object> Pools(const support::MotoAccount& account, int generation) {
  const std::string cluster = account.Seeded("cluster");
  return {
      {{"apiVersion", "karpenter.k8s.aws/v1"},
       {"kind", "EC2NodeClass"},
       {"metadata", {{"name", "default"}}},
       {"spec",
        {{"role", account.Seeded("node_role")},
         {"amiSelectorTerms", {{{"alias", "al2023@latest"}}}},
         {"subnetSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", cluster}}}}}},
         {"securityGroupSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", cluster}}}}}}}}},
      {{"apiVersion", "karpenter.sh/v1"},
       {"kind", "NodePool"},
       {"metadata", {{"name", "default"}}},
       {"spec",
        {{"template",
          {{"metadata", {{"labels", {{"chaos/generation", std::to_string(generation)}}}}},
           {"spec",
            {{"requirements",
              {{{"key", "kubernetes.io/arch"}, {"operator", "In"}, {"values", {"amd64"}}},
               {{"key", "karpenter.sh/capacity-type"},
                {"operator", "In"},
                {"values", {"spot", "on-demand"}}},
               {{"key", "karpenter.k8s.aws/instance-category"},
                {"operator", "In"},
                {"values", {"c", "m", "r"}}},
               {{"key", "karpenter.k8s.aws/instance-size"},
                {"operator", "In"},
                {"values", {"large", "xlarge", "2xlarge"}}}}},
             {"nodeClassRef",
              {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}}},
         {"limits", {{"cpu", 1000}}},
         {"disruption",
          {{"consolidationPolicy", "WhenEmptyOrUnderutilized"},
           {"consolidateAfter", "10s"},
           {"budgets", {{{"nodes", "2"}}}}}}}}}};
}

bool IsReady(const kube::Object& pod) {
  if (!kube::StringAt(pod, {"metadata", "deletionTimestamp"}).empty()) return false;
  for (const kube::Object& condition :
       pod.value("status", kube::Object::object()).value("conditions", kube::Object::array())) {
    if (condition.value("type", "") == "Ready") return condition.value("status", "") == "True";
  }
  return false;
}

std::string Tail(const std::string& text, size_t bytes) {
  return text.substr(text.size() > bytes ? text.size() - bytes : 0);
}

// The counts the report prints.
struct Counts {
  int kills = 0;
  int contenders = 0;
  int apiserver_restarts = 0;
  int watch_cuts = 0;
  int connections_cut = 0;
  int throttled = 0;
  int ice_injected = 0;
  int held_requests = 0;
  int interruptions = 0;
  int redeliveries = 0;
  int waves = 0;
  int drifts = 0;
  int leadership_lost = 0;
  int crashes = 0;
};

class ChaosRun {
 public:
  explicit ChaosRun(ChaosArgs args) : args_(std::move(args)) {}

  int Run();

 private:
  Status SetUp();
  std::unique_ptr<support::ControllerProcess> StartController(const std::string& role);
  // One pass of the benchmark's own loop: register booted machines, sample the cluster, restart
  // a controller that exited on its own (a crash).
  void Tick();
  void InjectFault();
  // Counts what the proxy injected so far and reads what it has left, lets `change` edit the
  // faults, and sets them (which zeroes the proxy's counts).
  void ChangeFaults(const std::function<void()>& change);
  Result<std::vector<aws::Instance>> OwnedInstances(const std::vector<std::string>& states) {
    return account_->ClusterInstances(*ec2_, states);
  }
  bool Settled(std::string& why);
  Status InjectViolations();
  kube::Object Audit();
  void CleanUp();

  const ChaosArgs args_;
  std::mt19937_64 random_;
  std::filesystem::path run_dir_;
  std::unique_ptr<kube::Client> client_;
  std::optional<support::MotoAccount> account_;
  aws::CurlTransport transport_;
  RealClock clock_;
  std::optional<aws::AwsClients> clients_;
  std::optional<aws::Ec2Api> ec2_;
  std::optional<aws::SqsApi> sqs_;
  std::optional<support::NodeRegistrar> registrar_;
  support::ChartIdentity identity_;
  std::unique_ptr<support::TcpRelay> relay_;
  std::string relay_kubeconfig_;
  std::unique_ptr<support::ControllerProcess> primary_;
  std::unique_ptr<support::ControllerProcess> contender_;
  Steady::time_point contender_until_;
  int controllers_started_ = 0;

  TimePoint started_wall_;
  std::vector<int> replicas_;
  int generation_ = 0;
  // The proxy's faults now: a zone without capacity until a time, throttling, held requests.
  std::string ice_zone_;
  Steady::time_point ice_until_;
  int throttle_ = 0;
  int hold_ = 0;

  Counts counts_;
  std::vector<std::string> crash_logs_;
  std::vector<ClusterSample> samples_;
  std::map<std::string, ClaimSighting> claims_;
  std::vector<std::string> notes_;  // what the run met that a reader should know
};

Status ChaosRun::SetUp() {
  const std::filesystem::path testenv = args_.testenv_dir;
  ASSIGN_OR_RETURN(client_, support::ClusterClient((testenv / "kubeconfig").string()));
  ASSIGN_OR_RETURN(support::MotoAccount account, support::MotoAccount::Read(args_.moto_dir));
  account_.emplace(std::move(account));
  ASSIGN_OR_RETURN(identity_, support::ReadChartIdentity(args_.testenv_dir));
  const std::string source_dir =
      args_.source_dir.empty() ? std::string(KARPENTER_SOURCE_DIR) : args_.source_dir;
  RETURN_IF_ERROR(support::InstallCrds(*client_, source_dir));
  RETURN_IF_ERROR(support::CleanUp(*client_, {kNamespace}));

  // The benchmark's own AWS clients talk to moto directly, with the test credentials.
  ASSIGN_OR_RETURN(aws::AwsClients clients,
                   aws::AwsClients::Create(account_->TestEnvironment(), account_->Seeded("region"),
                                           transport_, clock_));
  clients_.emplace(std::move(clients));
  ec2_.emplace(clients_->ec2());
  sqs_.emplace(clients_->sqs());
  registrar_.emplace(*client_, *ec2_, account_->Seeded("cluster"));
  RETURN_IF_ERROR(account_->TerminateClusterInstances(*ec2_));
  RETURN_IF_ERROR(account_->SetFaults(kube::Object::object()));
  // What an earlier run left is gone: the audit starts here.
  started_wall_ = clock_.Now();
  ASSIGN_OR_RETURN(kube::Object policy, account_->GeneratedPolicy(args_.karpenter_binary));
  RETURN_IF_ERROR(account_->SetControllerPolicy(policy));

  // The controllers reach the API server through a relay that can cut their connections.
  std::ifstream in(identity_.kubeconfig);
  std::string kubeconfig((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch server;
  if (!std::regex_search(kubeconfig, server, std::regex(R"(https://127\.0\.0\.1:(\d+))"))) {
    return Error(identity_.kubeconfig + ": no https://127.0.0.1:PORT server in it");
  }
  ASSIGN_OR_RETURN(relay_, support::TcpRelay::Start(std::stoi(server[1].str())));
  relay_kubeconfig_ = (run_dir_ / "kubeconfig").string();
  std::ofstream(relay_kubeconfig_)
      << std::regex_replace(kubeconfig, std::regex(R"(https://127\.0\.0\.1:\d+)"),
                            "https://127.0.0.1:" + std::to_string(relay_->port()));

  for (const kube::Object& object : Pools(*account_, generation_)) {
    RETURN_IF_ERROR(support::Apply(*client_, object));
  }
  RETURN_IF_ERROR(support::Apply(
      *client_,
      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kNamespace}}}}));
  for (int i = 0; i < kWorkloads; ++i) {
    replicas_.push_back(1 + static_cast<int>(random_() % static_cast<uint64_t>(kShapes[i].most)));
    RETURN_IF_ERROR(support::Apply(*client_, Budget(i, 1)));
    RETURN_IF_ERROR(support::Apply(*client_, Deployment(i, replicas_[i])));
  }
  primary_ = StartController("primary");
  return support::AwaitLeadership(*primary_, seconds(60));
}

std::unique_ptr<support::ControllerProcess> ChaosRun::StartController(const std::string& role) {
  const std::string log =
      (run_dir_ / (std::to_string(++controllers_started_) + "-" + role + ".log")).string();
  return std::make_unique<support::ControllerProcess>(
      args_.karpenter_binary,
      std::vector<std::string>{"--kubeconfig", relay_kubeconfig_, "--health-probe-port", "0",
                               "--metrics-port", "0"},
      log, account_->ControllerEnvironment(identity_.env));
}

void ChaosRun::Tick() {
  if (Status registered = registrar_->Register(); !registered.ok()) {
    // The API server may be restarting; the next tick registers what this one could not.
    if (notes_.size() < 20) notes_.push_back("registering: " + registered.error().message);
  }
  for (std::unique_ptr<support::ControllerProcess>* process : {&primary_, &contender_}) {
    if (!*process || (*process)->Running()) continue;
    // A leader that could not renew its Lease in time exits (1) by design, as upstream's does, and
    // its pod restarts; anything else is a crash.
    const std::string log = Tail((*process)->Log(), 3000);
    const int status = (*process)->exit_status();
    if (WIFEXITED(status) && WEXITSTATUS(status) == 1 &&
        log.find("lost leadership") != std::string::npos) {
      ++counts_.leadership_lost;
    } else {
      ++counts_.crashes;
      crash_logs_.push_back("exit status " + std::to_string(status) + ":\n" + log);
    }
    *process = process == &primary_ ? StartController("primary-restarted") : nullptr;
  }
  if (contender_ && Steady::now() >= contender_until_) {
    contender_->Stop();
    contender_.reset();
  }

  ClusterSample sample;
  sample.at = clock_.Now();
  kube::ListOptions in_namespace;
  in_namespace.namespace_ = kNamespace;
  Result<kube::ObjectList> pods = client_->List(kube::resources::kPods, in_namespace);
  Result<kube::ObjectList> budgets =
      client_->List(kube::resources::kPodDisruptionBudgets, in_namespace);
  if (pods.ok() && budgets.ok()) {
    for (const kube::SharedObject& shared : pods->items) {
      const kube::Object& pod = *shared;
      if (IsReady(pod)) sample.ready_pods[std::string(kube::Name(pod))] = kube::Label(pod, "app");
    }
    for (const kube::SharedObject& shared : budgets->items) {
      const kube::Object& budget = *shared;
      sample.disruptions_allowed[std::string(kube::Name(budget))] =
          budget.value("status", kube::Object::object()).value("disruptionsAllowed", 0);
    }
    samples_.push_back(std::move(sample));
  }
  Result<kube::ObjectList> claims = client_->List(kube::resources::kNodeClaims, {});
  if (claims.ok()) {
    for (const kube::SharedObject& shared : claims->items) {
      const kube::Object& claim = *shared;
      ClaimSighting& sighting = claims_[std::string(kube::Name(claim))];
      if (const std::optional<TimePoint> created =
              ParseTime(kube::StringAt(claim, {"metadata", "creationTimestamp"}))) {
        sighting.created = *created;
      }
      bool registered = false;
      for (const kube::Object& condition : claim.value("status", kube::Object::object())
                                               .value("conditions", kube::Object::array())) {
        registered |=
            condition.value("type", "") == "Registered" && condition.value("status", "") == "True";
      }
      if (!registered && kube::StringAt(claim, {"metadata", "deletionTimestamp"}).empty()) {
        sighting.last_in_flight = sample.at;
      }
    }
  }
}

void ChaosRun::ChangeFaults(const std::function<void()>& change) {
  if (Result<kube::Object> state = account_->FaultState(); state.ok()) {
    const kube::Object injected = state->value("injected", kube::Object::object());
    counts_.throttled += injected.value("throttled", 0);
    counts_.ice_injected += injected.value("insufficient_capacity", 0);
    counts_.held_requests += injected.value("delayed", 0);
    throttle_ = state->value("throttle", 0);
    hold_ = state->value("delay", kube::Object::object()).value("count", 0);
  }
  change();
  kube::Object faults = kube::Object::object();
  if (!ice_zone_.empty()) {
    faults["insufficient_capacity"] = {{{"instance_type", ""}, {"zone", ice_zone_}}};
  }
  if (throttle_ > 0) faults["throttle"] = throttle_;
  // Held past the SDK's 30 s timeout (src/aws/sdk/curl_transport.h): the request fails and is
  // retried while moto may still act on the held one.
  if (hold_ > 0) faults["delay"] = {{"count", hold_}, {"seconds", 35}};
  if (Status set = account_->SetFaults(faults); !set.ok()) notes_.push_back(set.error().message);
}

void ChaosRun::InjectFault() {
  enum Fault { kKill, kContender, kApiserver, kCut, kThrottle, kIce, kHold, kSpot, kWave, kDrift };
  // Waves and interruptions are the weather; the others are the faults.
  static constexpr Fault kDeck[] = {kKill, kContender, kApiserver, kCut,  kThrottle, kIce,
                                    kHold, kSpot,      kSpot,      kWave, kWave,     kDrift};
  const Fault fault = kDeck[random_() % std::size(kDeck)];
  switch (fault) {
    case kKill:
      primary_->Kill();
      ++counts_.kills;
      primary_ = StartController("primary-after-kill");
      break;
    case kContender:
      if (!contender_) {
        contender_ = StartController("contender");
        contender_until_ = Steady::now() + seconds(20 + random_() % 40);
        ++counts_.contenders;
      }
      break;
    case kApiserver: {
      const std::filesystem::path script =
          std::filesystem::path(args_.source_dir.empty() ? KARPENTER_SOURCE_DIR
                                                         : args_.source_dir) /
          "scripts/testenv/restart-apiserver";
      try {
        support::RunCommand(script.string() + " " + args_.testenv_dir + " 2>&1");
        ++counts_.apiserver_restarts;
      } catch (const std::exception& error) {
        notes_.push_back(std::string("restarting the API server: ") + error.what());
      }
      break;
    }
    case kCut:
      counts_.connections_cut += relay_->Cut();
      ++counts_.watch_cuts;
      break;
    case kThrottle:
      ChangeFaults([&] { throttle_ += 5 + static_cast<int>(random_() % 20); });
      break;
    case kIce:
      ChangeFaults([&] {
        const kube::Object& subnets = account_->seed()["subnets"];
        ice_zone_ = subnets[random_() % subnets.size()].value("zone", "");
        ice_until_ = Steady::now() + seconds(30 + random_() % 60);
      });
      break;
    case kHold:
      ChangeFaults([&] { hold_ += 1 + static_cast<int>(random_() % 2); });
      break;
    case kSpot: {
      Result<std::vector<aws::Instance>> running = OwnedInstances({"running"});
      if (!running.ok()) break;
      std::erase_if(*running, [](const aws::Instance& i) { return i.lifecycle != "spot"; });
      if (running->empty()) break;
      const std::string id = (*running)[random_() % running->size()].instance_id;
      Result<std::string> queue = sqs_->GetQueueUrl(account_->Seeded("cluster"));
      if (!queue.ok()) break;
      const std::string message =
          R"({"version":"0","detail-type":"EC2 Spot Instance Interruption Warning",)"
          R"("source":"aws.ec2","detail":{"instance-id":")" +
          id + R"(","instance-action":"terminate"}})";
      if (!sqs_->SendMessage(*queue, message).ok()) break;
      ++counts_.interruptions;
      if (random_() % 2 == 0 && sqs_->SendMessage(*queue, message).ok()) ++counts_.redeliveries;
      break;
    }
    case kWave: {
      const int i = static_cast<int>(random_() % kWorkloads);
      replicas_[i] = static_cast<int>(random_() % static_cast<uint64_t>(kShapes[i].most + 1));
      if (support::Apply(*client_, Deployment(i, replicas_[i])).ok()) ++counts_.waves;
      break;
    }
    case kDrift:
      ++generation_;
      if (support::Apply(*client_, Pools(*account_, generation_)[1]).ok()) ++counts_.drifts;
      break;
  }
}

// Whether the cluster came to rest: every pod Running, every NodeClaim registered, none going, and
// EC2's instances those of the NodeClaims.
bool ChaosRun::Settled(std::string& why) {
  kube::ListOptions in_namespace;
  in_namespace.namespace_ = kNamespace;
  Result<kube::ObjectList> pods = client_->List(kube::resources::kPods, in_namespace);
  Result<kube::ObjectList> claims = client_->List(kube::resources::kNodeClaims, {});
  Result<std::vector<aws::Instance>> instances = OwnedInstances({"pending", "running"});
  if (!pods.ok() || !claims.ok() || !instances.ok()) {
    why = "cannot read the cluster or EC2";
    return false;
  }
  int wanted = 0;
  for (const int replicas : replicas_) wanted += replicas;
  const auto running = std::count_if(pods->items.begin(), pods->items.end(),
                                     [](const kube::SharedObject& pod) { return IsReady(*pod); });
  if (running != wanted || static_cast<int>(pods->items.size()) != wanted) {
    why = std::to_string(running) + " of " + std::to_string(wanted) + " pods Ready (" +
          std::to_string(pods->items.size()) + " pods)";
    return false;
  }
  std::set<std::string> claimed;
  for (const kube::SharedObject& shared : claims->items) {
    const kube::Object& claim = *shared;
    if (!kube::StringAt(claim, {"metadata", "deletionTimestamp"}).empty()) {
      why = "NodeClaim " + std::string(kube::Name(claim)) + " is being deleted";
      return false;
    }
    claimed.insert(aws::InstanceIdOf(kube::StringAt(claim, {"status", "providerID"})));
  }
  std::set<std::string> owned;
  for (const aws::Instance& instance : *instances) owned.insert(instance.instance_id);
  if (owned != claimed) {
    why = std::to_string(owned.size()) + " instances, " + std::to_string(claimed.size()) +
          " NodeClaims naming instances";
    return false;
  }
  return true;
}

// Behind the controller's back, once it is stopped: a Ready pod deleted while its budget allows
// nothing, and an instance tagged as a NodePool's with no NodeClaim.
Status ChaosRun::InjectViolations() {
  RETURN_IF_ERROR(support::Apply(*client_, Budget(0, 0)));
  std::string victim;
  const bool allowed_none = support::WaitFor(
      [&] {
        Tick();
        const ClusterSample& last = samples_.back();
        const auto budget = last.disruptions_allowed.find(App(0));
        if (budget == last.disruptions_allowed.end() || budget->second != 0) return false;
        for (const auto& [pod, app] : last.ready_pods) {
          if (app == App(0)) victim = pod;
        }
        return !victim.empty();
      },
      seconds(60));
  if (!allowed_none) return Error("the budget of " + App(0) + " never allowed none");
  RETURN_IF_ERROR(client_->Delete(kube::resources::kPods, kNamespace, victim, {}));

  RETURN_IF_ERROR(account_->LeakInstance(*ec2_));
  return {};
}

kube::Object ChaosRun::Audit() {
  kube::Object problems = kube::Object::object();
  // Instances and NodeClaims.
  std::set<std::string> claimed;
  Result<kube::ObjectList> claims = client_->List(kube::resources::kNodeClaims, {});
  if (claims.ok()) {
    for (const kube::SharedObject& shared : claims->items) {
      const kube::Object& claim = *shared;
      claimed.insert(aws::InstanceIdOf(kube::StringAt(claim, {"status", "providerID"})));
    }
  }
  std::set<std::string> owned;
  if (Result<std::vector<aws::Instance>> instances = OwnedInstances({"pending", "running"});
      instances.ok()) {
    for (const aws::Instance& instance : *instances) owned.insert(instance.instance_id);
  }
  kube::Object leaks = kube::Object::array();
  kube::Object orphans = kube::Object::array();
  for (const std::string& id : owned) {
    if (!claimed.contains(id)) leaks.push_back(id);
  }
  for (const std::string& id : claimed) {
    if (!owned.contains(id)) orphans.push_back(id);
  }
  problems["leaks"] = leaks;
  problems["orphans"] = orphans;

  // Duplicate launches: from the nominations, and instances per NodeClaim since the run began.
  std::vector<Nomination> nominations;
  kube::ListOptions in_namespace;
  in_namespace.namespace_ = kNamespace;
  if (Result<kube::ObjectList> events = client_->List(kube::resources::kEvents, in_namespace);
      events.ok()) {
    static const std::regex kClaim(R"(^Pod should schedule on: nodeclaim/(\S+)$)");
    for (const kube::SharedObject& shared : events->items) {
      const kube::Object& event = *shared;
      std::smatch claim;
      const std::string message = event.value("message", "");
      if (event.value("reason", "") != "Nominated" || !std::regex_match(message, claim, kClaim)) {
        continue;
      }
      const std::optional<TimePoint> at = ParseTime(event.value("firstTimestamp", ""));
      if (at) {
        nominations.push_back(
            {std::string(kube::StringAt(event, {"involvedObject", "name"})), claim[1].str(), *at});
      }
    }
  }
  kube::Object duplicates = kube::Object::array();
  for (const std::string& claim : DuplicateClaims(nominations, claims_)) {
    duplicates.push_back(claim + ": launched for pods another NodeClaim in flight held");
  }
  std::map<std::string, std::set<std::string>> instances_by_claim;
  if (Result<std::vector<aws::Instance>> all = OwnedInstances(
          {"pending", "running", "shutting-down", "stopping", "stopped", "terminated"});
      all.ok()) {
    for (const aws::Instance& instance : *all) {
      if (!instance.launch_time || *instance.launch_time < started_wall_ - seconds(5)) continue;
      const auto tag = instance.tags.find("karpenter.sh/nodeclaim");
      if (tag != instance.tags.end()) instances_by_claim[tag->second].insert(instance.instance_id);
    }
  }
  for (const auto& [claim, count] : ClaimsLaunchedTwice(instances_by_claim)) {
    duplicates.push_back(claim + ": " + std::to_string(count) + " instances");
  }
  problems["duplicates"] = duplicates;

  // Budgets: the audit log's pod removals against the samples.
  std::ifstream audit(std::filesystem::path(args_.testenv_dir) / "logs" / "audit.log");
  const std::vector<PdbViolation> violations =
      PdbViolations(ReadPodRemovals(audit, kNamespace, started_wall_), samples_);
  kube::Object broken = kube::Object::array();
  for (const PdbViolation& violation : violations) {
    broken.push_back({{"pod", violation.pod},
                      {"workload", violation.workload},
                      {"by", violation.by},
                      {"at", FormatMicroTime(violation.at)}});
  }
  problems["pdbViolations"] = broken;

  // The instance Karpenter does not own.
  Result<std::vector<aws::Instance>> unmanaged =
      ec2_->DescribeInstances({account_->Seeded("unmanaged_instance")});
  problems["unmanagedTouched"] =
      !unmanaged.ok() || unmanaged->size() != 1 || unmanaged->front().state != "running";
  return problems;
}

void ChaosRun::CleanUp() {
  contender_.reset();
  primary_.reset();
  (void)account_->SetFaults(kube::Object::object());
  (void)account_->SetControllerPolicy(nullptr);
  (void)support::CleanUp(*client_, {kNamespace});
  (void)account_->TerminateClusterInstances(*ec2_);
}

int ChaosRun::Run() {
  uint64_t seed = args_.seed;
  if (seed == 0) seed = static_cast<uint64_t>(Steady::now().time_since_epoch().count()) | 1;
  random_.seed(seed);
  run_dir_ =
      std::filesystem::temp_directory_path() / ("karpenter-chaos-" + std::to_string(getpid()));
  std::filesystem::create_directories(run_dir_);
  std::cerr << "karpenter-bench chaos: seed " << seed << ", logs in " << run_dir_.string() << '\n';
  if (Status ready = SetUp(); !ready.ok()) {
    std::cerr << "karpenter-bench chaos: " << ready.error().message << '\n';
    if (client_ && account_ && ec2_) CleanUp();
    return 1;
  }

  const Steady::time_point start = Steady::now();
  const Steady::time_point end = start + seconds(args_.duration_seconds);
  Steady::time_point next_fault = start + seconds(3 + random_() % 10);
  while (Steady::now() < end) {
    Tick();
    if (!ice_zone_.empty() && Steady::now() >= ice_until_) {
      ChangeFaults([&] { ice_zone_.clear(); });
    }
    if (Steady::now() >= next_fault) {
      InjectFault();
      next_fault = Steady::now() + seconds(3 + random_() % 10);
    }
    std::this_thread::sleep_for(milliseconds(500));
  }

  // Faults stop; the cluster settles with one controller.
  ChangeFaults([&] {
    ice_zone_.clear();
    throttle_ = 0;
    hold_ = 0;
  });
  if (contender_) contender_->Stop();
  contender_.reset();
  const Steady::time_point settle_start = Steady::now();
  std::string unsettled;
  const bool settled = support::WaitFor(
      [&] {
        Tick();
        return Settled(unsettled);
      },
      seconds(args_.settle_seconds), seconds(1));
  const double settle_seconds = std::chrono::duration<double>(Steady::now() - settle_start).count();
  Tick();
  const int pods_lost = [&] {
    int wanted = 0;
    for (const int replicas : replicas_) wanted += replicas;
    const size_t ready = samples_.empty() ? 0 : samples_.back().ready_pods.size();
    return std::max(0, wanted - static_cast<int>(ready));
  }();
  const std::string primary_log = primary_ ? Tail(primary_->Log(), 4000) : "";
  primary_.reset();  // stops it

  Result<kube::ObjectList> claims = client_->List(kube::resources::kNodeClaims, {});
  Status injected;
  if (args_.inject_violations) injected = InjectViolations();
  kube::Object problems = Audit();

  const int leaks = static_cast<int>(problems["leaks"].size());
  const int pdb_violations = static_cast<int>(problems["pdbViolations"].size());
  const int duplicates = static_cast<int>(problems["duplicates"].size());
  nlohmann::ordered_json out = {
      {"seconds", args_.duration_seconds},
      {"seed", seed},
      {"kills", counts_.kills},
      {"contenders", counts_.contenders},
      {"apiserverRestarts", counts_.apiserver_restarts},
      {"watchCuts", counts_.watch_cuts},
      {"connectionsCut", counts_.connections_cut},
      {"throttled", counts_.throttled},
      {"iceInjected", counts_.ice_injected},
      {"heldRequests", counts_.held_requests},
      {"interruptions", counts_.interruptions},
      {"redeliveries", counts_.redeliveries},
      {"waves", counts_.waves},
      {"drifts", counts_.drifts},
      {"nodeClaims", claims_.size()},
      {"nodeClaimsLeft", claims.ok() ? claims->items.size() : 0},
      {"leaks", leaks},
      {"orphans", problems["orphans"].size()},
      {"duplicates", duplicates},
      {"pdbViolations", pdb_violations},
      {"podsLost", pods_lost},
      {"leadershipLost", counts_.leadership_lost},
      {"crashes", counts_.crashes},
      {"unmanagedTouched", problems["unmanagedTouched"].get<bool>() ? 1 : 0},
      {"settleSeconds", settle_seconds}};
  std::cout << out.dump() << '\n';

  const int expected = args_.inject_violations ? 1 : 0;
  const bool held = settled && injected.ok() && leaks == expected && pdb_violations == expected &&
                    problems["orphans"].empty() && duplicates == 0 && pods_lost == 0 &&
                    counts_.crashes == 0 && !problems["unmanagedTouched"].get<bool>();
  if (!held && args_.keep_on_failure) {
    std::cerr << "karpenter-bench chaos: left as it was for inspection (namespace " << kNamespace
              << ")\n";
  } else {
    CleanUp();
  }
  if (!held) {
    std::cerr << "karpenter-bench chaos: an invariant was broken (seed " << seed << ")\n";
    if (!settled)
      std::cerr << "not settled after " << args_.settle_seconds << " s: " << unsettled << '\n';
    if (!injected.ok()) std::cerr << "injecting violations: " << injected.error().message << '\n';
    std::cerr << "details: " << problems.dump(2) << '\n';
    for (const std::string& crash : crash_logs_) std::cerr << "crash: " << crash << '\n';
    for (const std::string& note : notes_) std::cerr << "note: " << note << '\n';
    std::cerr << "last controller's log:\n" << primary_log << '\n';
    std::cerr << "controller logs: " << run_dir_.string() << '\n';
    return 1;
  }
  std::filesystem::remove_all(run_dir_);
  return 0;
}

}  // namespace

int RunChaos(const ChaosArgs& args) {
  ChaosArgs resolved = args;
  if (resolved.karpenter_binary.empty())
    resolved.karpenter_binary = BesideThisExecutable("karpenter");
  return ChaosRun(std::move(resolved)).Run();
}

}  // namespace karpenter::bench
