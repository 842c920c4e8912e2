#include "support/cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "kube/http/config.h"
#include "kube/http/http_client.h"
#include "support/crds.h"
#include "support/object_copies.h"

namespace karpenter::support {
namespace {

using std::chrono::milliseconds;

constexpr kube::Resource kKinds[] = {
    kube::resources::kNamespaces,
    kube::resources::kConfigMaps,
    kube::resources::kPods,
    kube::resources::kNodes,
    kube::resources::kDeployments,
    kube::resources::kStatefulSets,
    kube::resources::kDaemonSets,
    kube::resources::kReplicaSets,
    kube::resources::kJobs,
    kube::resources::kPodDisruptionBudgets,
    kube::resources::kNodePools,
    kube::resources::kNodeClaims,
    kube::resources::kEC2NodeClasses,
    kube::resources::kNodeOverlays,
    kube::resources::kCapacityBuffers,
    kube::resources::kPodTemplates,
    kube::resources::kPersistentVolumes,
    kube::resources::kPersistentVolumeClaims,
    kube::resources::kStorageClasses,
    kube::resources::kPriorityClasses,
};

Result<std::vector<kube::Object>> ListAll(kube::Client& client, const kube::Resource& resource) {
  Result<kube::ObjectList> list = client.List(resource, {});
  if (!list.ok()) return list.error();
  return Copies(list->items);
}

// Removes every finalizer and deletes the object; a missing object is fine.
Status ForceDelete(kube::Client& client, const kube::Resource& resource,
                   const kube::Object& object) {
  const std::string name(kube::Name(object));
  (void)client.Patch(resource, kube::Namespace(object), name, kube::PatchType::kMerge,
                     kube::Object{{"metadata", {{"finalizers", nullptr}}}},
                     kube::Subresource::kNone);
  Status deleted = client.Delete(resource, kube::Namespace(object), name, {});
  if (!deleted.ok() && deleted.error().status != 404) return deleted.error();
  return {};
}

// A Node of a machine our controller launched: the simulated cloud's, or EC2's (moto's).
bool IsCloudNode(const kube::Object& node) {
  const std::string provider_id =
      node.value("spec", kube::Object::object()).value("providerID", "");
  return provider_id.starts_with("sim://") || provider_id.starts_with("aws://");
}

}  // namespace

Result<std::unique_ptr<kube::Client>> ClusterClient(const std::string& kubeconfig) {
  Result<kube::http::Config> config = kube::http::LoadKubeconfig(kubeconfig);
  if (!config.ok()) return config.error();
  return kube::http::NewClient(*config);
}

const kube::Resource* ResourceForKind(std::string_view kind) {
  for (const kube::Resource& resource : kKinds) {
    if (resource.kind == kind) return &resource;
  }
  return nullptr;
}

Status Apply(kube::Client& client, const kube::Object& object) {
  const std::string kind = object.value("kind", "");
  const kube::Resource* resource = ResourceForKind(kind);
  if (resource == nullptr) return Error("cannot apply kind \"" + kind + "\"");
  Result<kube::Object> created = client.Create(*resource, object, {});
  if (created.ok()) return {};
  if (created.error().status != 409) return created.error();
  Result<kube::Object> current = client.Get(*resource, kube::Namespace(object), kube::Name(object));
  if (!current.ok()) return current.error();
  kube::Object replacement = object;
  replacement["metadata"]["resourceVersion"] = std::string(kube::ResourceVersion(*current));
  Result<kube::Object> updated = client.Update(*resource, replacement, kube::Subresource::kNone);
  if (!updated.ok()) return updated.error();
  return {};
}

Status ApplyFile(kube::Client& client, const std::string& path) {
  Result<std::vector<Document>> documents = ReadDocuments(path);
  if (!documents.ok()) return documents.error();
  for (const Document& document : *documents) {
    if (Status applied = Apply(client, document.value); !applied.ok()) {
      return Error(path + ": " + applied.error().message);
    }
  }
  return {};
}

bool WaitFor(const std::function<bool()>& done, milliseconds timeout, milliseconds poll) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(poll);
  }
}

Result<ChartIdentity> ReadChartIdentity(const std::string& testenv_dir, const std::string& name) {
  const std::string dir = testenv_dir + "/" + name + "/";
  std::ifstream env(dir + "env");
  if (!env || !std::ifstream(dir + "kubeconfig")) {
    return Error(dir + ": missing; run scripts/testenv/identity " + testenv_dir +
                 " REPO (ctest runs it as the testenv_identity fixture)");
  }
  ChartIdentity identity{dir + "kubeconfig", {}};
  for (std::string line; std::getline(env, line);) {
    if (line.find('=') == std::string::npos) return Error(dir + "env: not NAME=VALUE: " + line);
    identity.env.push_back(line);
  }
  return identity;
}

void SetVariable(std::vector<std::string>& env, std::string_view name, std::string_view value) {
  const std::string entry = std::string(name) + "=" + std::string(value);
  for (std::string& variable : env) {
    if (variable.size() > name.size() && variable.compare(0, name.size(), name) == 0 &&
        variable[name.size()] == '=') {
      variable = entry;
      return;
    }
  }
  env.push_back(entry);
}

ControllerProcess::ControllerProcess(const std::string& binary, std::vector<std::string> args,
                                     std::string log_path,
                                     std::optional<std::vector<std::string>> env)
    : log_path_(std::move(log_path)) {
  args.insert(args.begin(), {"karpenter", "controller"});
  std::vector<char*> envp;
  if (env) {
    for (std::string& variable : *env) envp.push_back(variable.data());
    envp.push_back(nullptr);
  }
  pid_ = fork();
  if (pid_ == 0) {
    const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log >= 0) {
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
    }
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    if (env) {
      execve(binary.c_str(), argv.data(), envp.data());
    } else {
      execv(binary.c_str(), argv.data());
    }
    _exit(127);
  }
}

ControllerProcess::~ControllerProcess() {
  if (pid_ > 0) Stop();
}

bool ControllerProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    exit_status_ = status;
    return false;
  }
  return true;
}

int ControllerProcess::Stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return status;
    }
    std::this_thread::sleep_for(milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

void ControllerProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

double ControllerProcess::CpuSeconds() const {
  std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) start after the last ')'.
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double ControllerProcess::PeakRssMb() const {
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

std::string ControllerProcess::Log() const {
  std::ifstream log(log_path_);
  return std::string((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
}

std::vector<std::string> SimControllerArgs(const ChartIdentity& identity) {
  return {"--kubeconfig",        identity.kubeconfig,
          "--cloud-provider",    "sim",
          "--health-probe-port", "0",
          "--metrics-port",      "0"};
}

Status AwaitLeadership(const ControllerProcess& controller, milliseconds timeout) {
  if (WaitFor([&] { return controller.Log().find("acquired leadership") != std::string::npos; },
              timeout)) {
    return {};
  }
  return Error("the controller did not acquire leadership in time; its log:\n" + controller.Log());
}

Status CleanUp(kube::Client& client, const std::vector<std::string>& namespaces) {
  for (const std::string& name : namespaces) {
    Status deleted = client.Delete(kube::resources::kNamespaces, "", name, {});
    if (!deleted.ok() && deleted.error().status != 404) return deleted.error();
    // Their pods go at once: a pod whose Node is deleted below would otherwise wait out its
    // grace period and the pod garbage collector (most of a minute) before the namespace goes.
    kube::ListOptions options;
    options.namespace_ = name;
    Result<kube::ObjectList> pods = client.List(kube::resources::kPods, options);
    if (!pods.ok()) return pods.error();
    for (const kube::SharedObject& pod : pods->items) {
      // A test may hold a pod with a finalizer of its own; one that failed left it there.
      if (const kube::Object* held = kube::Find(*pod, {"metadata", "finalizers"});
          held != nullptr && !held->empty()) {
        (void)client.Patch(kube::resources::kPods, name, kube::Name(*pod), kube::PatchType::kMerge,
                           kube::Object{{"metadata", {{"finalizers", nullptr}}}},
                           kube::Subresource::kNone);
      }
      Status gone = client.Delete(
          kube::resources::kPods, name, kube::Name(*pod),
          {.precondition_uid = "", .precondition_resource_version = "", .grace_period_seconds = 0});
      if (!gone.ok() && gone.error().status != 404) return gone.error();
    }
  }
  const kube::Resource* kinds[] = {&kube::resources::kNodePools, &kube::resources::kNodeClaims,
                                   &kube::resources::kNodes, &kube::resources::kEC2NodeClasses,
                                   &kube::resources::kNodeOverlays};
  for (const kube::Resource* kind : kinds) {
    Result<std::vector<kube::Object>> objects = ListAll(client, *kind);
    if (!objects.ok()) return objects.error();
    for (const kube::Object& object : *objects) {
      if (*kind == kube::resources::kNodes && !IsCloudNode(object)) continue;
      if (Status deleted = ForceDelete(client, *kind, object); !deleted.ok()) return deleted;
    }
  }
  Status last;
  const bool gone = WaitFor(
      [&] {
        for (const std::string& name : namespaces) {
          if (client.Get(kube::resources::kNamespaces, "", name).ok()) return false;
        }
        Result<std::vector<kube::Object>> claims = ListAll(client, kube::resources::kNodeClaims);
        Result<std::vector<kube::Object>> nodes = ListAll(client, kube::resources::kNodes);
        if (!claims.ok() || !nodes.ok()) {
          last = claims.ok() ? nodes.error() : claims.error();
          return false;
        }
        return claims->empty() && std::none_of(nodes->begin(), nodes->end(), IsCloudNode);
      },
      std::chrono::seconds(120));
  if (gone) return {};
  return Error("clean-up: objects of an earlier run did not go away in 2 minutes" +
               (last.ok() ? std::string() : ": " + last.error().message));
}

}  // namespace karpenter::support
