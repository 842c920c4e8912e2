#pragma once
// What the end-to-end tests of `karpenter controller --cloud-provider sim` on the test cluster
// share: reading the cluster without throwing, and a fixture that starts the controller.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kube/client.h"
#include "support/cluster.h"
#include "support/crds.h"
#include "support/matchers.h"
#include "support/metrics_text.h"
#include "support/object_copies.h"
#include "support/scrape.h"

namespace karpenter::integration {

#define ASSERT_OK(expression)            \
  do {                                   \
    const Status status_ = (expression); \
    ASSERT_THAT(status_, IsOk());        \
  } while (false)

inline const std::string kTestdata = std::string(KARPENTER_TESTDATA) + "/e2e/";

inline std::vector<kube::Object> List(kube::Client& client, const kube::Resource& resource,
                                      const std::string& namespace_ = "") {
  kube::ListOptions options;
  options.namespace_ = namespace_;
  Result<kube::ObjectList> list = client.List(resource, options);
  EXPECT_THAT(list, IsOk());
  return list.ok() ? support::Copies(list->items) : std::vector<kube::Object>{};
}

// A client of the test cluster as its administrator, for a test's own thread (a watcher, a
// stand-in controller); nullptr (and a test failure) when there is none.
inline std::unique_ptr<kube::Client> TestClusterClient() {
  Result<std::unique_ptr<kube::Client>> client =
      support::ClusterClient(KARPENTER_TESTENV_KUBECONFIG);
  EXPECT_THAT(client, IsOk());
  return client.ok() ? std::move(*client) : nullptr;
}

// object[field], or an empty object when it is absent (reading never throws).
inline kube::Object Part(const kube::Object& object, const char* field) {
  return object.value(field, kube::Object::object());
}

inline std::string Phase(const kube::Object& pod) {
  return pod.value("status", kube::Object::object()).value("phase", "");
}

inline std::string NodeName(const kube::Object& pod) {
  return pod.value("spec", kube::Object::object()).value("nodeName", "");
}

inline size_t CountRunning(kube::Client& client, const std::string& namespace_) {
  const std::vector<kube::Object> pods = List(client, kube::resources::kPods, namespace_);
  return static_cast<size_t>(std::count_if(
      pods.begin(), pods.end(), [](const kube::Object& p) { return Phase(p) == "Running"; }));
}

inline std::vector<kube::Object> SimNodes(kube::Client& client) {
  std::vector<kube::Object> out;
  for (kube::Object& node : List(client, kube::resources::kNodes)) {
    if (Part(node, "spec").value("providerID", "").rfind("sim://", 0) == 0) {
      out.push_back(std::move(node));
    }
  }
  return out;
}

// A scrape of the controller (started with chart_metrics_port) through the port the rendered
// chart names, which must pass the Prometheus linter.
inline std::vector<support::Sample> ScrapeChartPort() {
  Result<int> port = support::ChartMetricsPort(KARPENTER_TESTENV_DIR);
  EXPECT_THAT(port, IsOk());
  if (!port.ok()) return {};
  Result<std::string> text = support::ScrapeText(*port);
  EXPECT_THAT(text, IsOk());
  if (!text.ok()) return {};
  EXPECT_EQ(support::LintProblems(KARPENTER_SOURCE_DIR, *text), "");
  Result<std::vector<support::Sample>> samples = support::ParseExposition(*text);
  EXPECT_THAT(samples, IsOk());
  return samples.ok() ? std::move(*samples) : std::vector<support::Sample>{};
}

// Our events (source component "karpenter", not the kube-scheduler's) about `name` in
// `namespace_` with `reason`; with `uid`, only those about that object (a Node of an earlier run
// may have had the same name).
inline std::vector<std::string> EventMessages(kube::Client& client, const std::string& namespace_,
                                              const std::string& name, const std::string& reason,
                                              const std::string& uid = "") {
  std::vector<std::string> out;
  for (const kube::Object& event : List(client, kube::resources::kEvents, namespace_)) {
    if (Part(event, "involvedObject").value("name", "") == name &&
        (uid.empty() || Part(event, "involvedObject").value("uid", "") == uid) &&
        event.value("reason", "") == reason &&
        event.value("source", kube::Object::object()).value("component", "") == "karpenter") {
      out.push_back(event.value("message", ""));
    }
  }
  return out;
}

// A test with the CRDs installed, a client (the admin's), and `karpenter controller
// --cloud-provider sim` on demand, run as the chart runs it (support::SimControllerArgs); the
// namespaces it uses, our NodePools, NodeClaims, EC2NodeClasses and simulated nodes are removed
// before and after.
class ControllerEndToEnd : public ::testing::Test {
 protected:
  explicit ControllerEndToEnd(std::vector<std::string> namespaces)
      : namespaces_(std::move(namespaces)) {}

  void SetUp() override {
    Result<std::unique_ptr<kube::Client>> client =
        support::ClusterClient(KARPENTER_TESTENV_KUBECONFIG);
    ASSERT_THAT(client, IsOk());
    client_ = std::move(*client);
    Result<support::ChartIdentity> identity = support::ReadChartIdentity(KARPENTER_TESTENV_DIR);
    ASSERT_THAT(identity, IsOk());
    identity_ = std::move(*identity);
    Status installed = support::InstallCrds(*client_, KARPENTER_SOURCE_DIR);
    ASSERT_THAT(installed, IsOk());
    Status clean = support::CleanUp(*client_, namespaces_);
    ASSERT_THAT(clean, IsOk());
  }
  void TearDown() override {
    if (HasFailure() && controller_) {
      const std::string log = controller_->Log();
      std::cerr << "--- controller log (last 6000 bytes) ---\n"
                << log.substr(log.size() > 6000 ? log.size() - 6000 : 0) << "\n";
    }
    controller_.reset();
    if (client_) {
      Status clean = support::CleanUp(*client_, namespaces_);
      EXPECT_THAT(clean, IsOk());
    }
  }
  // With `chart_metrics_port`, the controller serves /metrics on the chart's port (METRICS_PORT
  // of its environment) instead of a free one. `extra` flags follow the usual ones.
  // `env` replaces the chart's environment (with what IRSA would add, say).
  void StartController(bool chart_metrics_port = false, const std::vector<std::string>& extra = {},
                       const std::vector<std::string>* env = nullptr) {
    const std::string log = ::testing::TempDir() + "controller-" +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                            ".log";
    std::remove(log.c_str());
    std::vector<std::string> args = support::SimControllerArgs(identity_);
    if (chart_metrics_port) {
      const auto flag = std::find(args.begin(), args.end(), "--metrics-port");
      if (flag != args.end()) args.erase(flag, flag + 2);
    }
    args.insert(args.end(), extra.begin(), extra.end());
    controller_ = std::make_unique<support::ControllerProcess>(
        KARPENTER_BINARY, args, log, env != nullptr ? *env : identity_.env);
    ASSERT_OK(support::AwaitLeadership(*controller_, std::chrono::seconds(60)));
  }

  // The chart's environment with settings.featureGates.<gate> set true (FEATURE_GATES carries
  // every gate, each false by default).
  void EnableGateAsTheChartWould(const std::string& gate) {
    const std::string off = gate + "=false";
    bool found = false;
    for (std::string& variable : identity_.env) {
      if (!variable.starts_with("FEATURE_GATES=")) continue;
      const size_t at = variable.find(off);
      ASSERT_NE(at, std::string::npos) << variable;
      variable.replace(at, off.size(), gate + "=true");
      found = true;
    }
    ASSERT_TRUE(found) << "the chart's environment has no FEATURE_GATES";
  }

  const std::vector<std::string> namespaces_;
  std::unique_ptr<kube::Client> client_;
  support::ChartIdentity identity_;  // the chart's ServiceAccount and environment
  std::unique_ptr<support::ControllerProcess> controller_;
};

}  // namespace karpenter::integration
