#include "support/scrape.h"

#include <httplib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "common/document.h"
#include "common/read_file.h"
#include "support/run_command.h"

namespace karpenter::support {
namespace {

const Json* Named(const Json& list, const std::string& name) {
  if (!list.is_array()) return nullptr;
  for (const Json& item : list) {
    if (item.value("name", "") == name) return &item;
  }
  return nullptr;
}

}  // namespace

Result<int> ChartMetricsPort(const std::string& testenv_dir) {
  const std::string path = testenv_dir + "/identity/karpenter.yaml";
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  ASSIGN_OR_RETURN(const std::vector<Document> documents, ParseDocuments(text, path));
  int container_port = 0;
  std::string env_port;
  std::string service_target;
  for (const Document& document : documents) {
    const Json& object = document.value;
    const std::string kind = object.value("kind", "");
    if (kind == "Deployment") {
      const Json& containers = object["spec"]["template"]["spec"]["containers"];
      const Json* controller = Named(containers, "controller");
      if (controller == nullptr) {
        return Error(path + ": the Deployment has no container controller");
      }
      const Json ports = controller->value("ports", Json());
      if (const Json* port = Named(ports, "http-metrics")) {
        container_port = port->value("containerPort", 0);
      }
      const Json env = controller->value("env", Json());
      if (const Json* variable = Named(env, "METRICS_PORT")) {
        env_port = variable->value("value", "");
      }
    } else if (kind == "Service") {
      const Json ports = object["spec"].value("ports", Json());
      if (const Json* port = Named(ports, "http-metrics")) {
        service_target = port->value("targetPort", "");
      }
    }
  }
  if (container_port == 0) return Error(path + ": no container port named http-metrics");
  if (env_port != std::to_string(container_port)) {
    return Error(path + ": METRICS_PORT " + env_port + " is not the http-metrics port " +
                 std::to_string(container_port));
  }
  if (service_target != "http-metrics") {
    return Error(path + ": the Service's http-metrics port targets '" + service_target + "'");
  }
  return container_port;
}

int PortFromLog(const std::string& log, const std::string& message) {
  const std::regex serving("\"" + message + R"re("[^\n]*"port":(\d+))re");
  std::smatch match;
  return std::regex_search(log, match, serving) ? std::stoi(match[1]) : 0;
}

namespace {

// GET http://127.0.0.1:`port``path`: the answer, when it is a 200.
Result<httplib::Response> Get200(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(5);
  client.set_read_timeout(10);
  httplib::Result response = client.Get(path);
  if (!response) {
    return Error("GET 127.0.0.1:" + std::to_string(port) + path + ": " +
                 httplib::to_string(response.error()));
  }
  if (response->status != 200) {
    return Error(path + ": HTTP " + std::to_string(response->status) + ": " + response->body);
  }
  return *response;
}

}  // namespace

Result<std::string> ScrapeText(int port) {
  ASSIGN_OR_RETURN(const httplib::Response response, Get200(port, "/metrics"));
  if (response.get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0) != 0) {
    return Error("/metrics: content type " + response.get_header_value("Content-Type"));
  }
  return response.body;
}

Result<kube::Object> DebugState(int port) {
  ASSIGN_OR_RETURN(const httplib::Response response, Get200(port, "/debug/state"));
  kube::Object state = kube::Object::parse(response.body, nullptr, false);
  if (state.is_discarded()) return Error("/debug/state: not JSON: " + response.body);
  return state;
}

std::string LintProblems(const std::string& source_dir, const std::string& text) {
  std::string file = "/tmp/karpenter-scrape-XXXXXX";
  const int descriptor = mkstemp(file.data());
  if (descriptor < 0) return "cannot create a temporary file for the scrape";
  close(descriptor);
  std::ofstream(file) << text;
  std::string command = RunCommand(source_dir + "/scripts/testenv/build-promlint");
  while (!command.empty() && command.back() == '\n') command.pop_back();
  for (const std::string& name : kUpstreamNamesTheLinterFlags) command += " -allow " + name;
  command += " < " + file + " 2>&1";
  std::string problems;
  try {
    RunCommand(command);
  } catch (const std::runtime_error& failed) {
    problems = failed.what();
  }
  std::remove(file.c_str());
  return problems;
}

}  // namespace karpenter::support
