#pragma once
// The kube::Client contract: one test suite that every implementation passes, so that code tested
// against the memory store behaves the same against a real API server. An implementation's test
// executable compiles tests/kube/client_contract.cc and instantiates the suite with a factory of
// harnesses (the macro wants the suite's name unqualified):
//
//   using karpenter::kube::contract::ClientContract;
//   INSTANTIATE_TEST_SUITE_P(Memory, ClientContract,
//                            ::testing::Values(HarnessFactory([] { return ...; })));
//
// The tests use only what a bare cluster serves (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and kwok): Pods that no scheduler picks up (no nodeName, a scheduler and a
// nodeSelector that do not exist), Namespaces, Nodes without the kwok annotation and with names
// no other test uses, PodDisruptionBudgets and Leases. Each test gets a fresh namespace.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client.h"

namespace karpenter::kube::contract {

struct ContractEnv {
  Client* client = nullptr;
  std::string namespace_;  // fresh for each test, created by the harness
};

// What a PodDisruptionBudget's status must say before a test evicts.
struct BudgetStatus {
  int64_t current_healthy = 0;
  int64_t desired_healthy = 0;
  int64_t disruptions_allowed = 0;
};

class ContractHarness {
 public:
  virtual ~ContractHarness() = default;

  virtual Client& client() = 0;
  // Creates a namespace that no other test uses and returns its name.
  virtual std::string FreshNamespace() = 0;
  // Succeeds once the budget's status reports `expected` for the budget's current generation. On
  // a real cluster the disruption controller writes that status a moment after pods change, so
  // this polls; the memory store computes budgets when it evicts, so there this checks that
  // computation against `expected` at once.
  virtual ::testing::AssertionResult WaitForBudget(const std::string& namespace_,
                                                   const std::string& name,
                                                   const BudgetStatus& expected) = 0;
  // Makes the server forget its history so far, as etcd compaction does, so that a watch of
  // Events (which the API server serves from etcd, not from its watch cache) from an older
  // resourceVersion is refused. The memory store keeps no history from before it started, so
  // there this need do nothing.
  virtual ::testing::AssertionResult CompactHistory() = 0;
};

using HarnessFactory = std::function<std::unique_ptr<ContractHarness>()>;

class ClientContract : public ::testing::TestWithParam<HarnessFactory> {
 protected:
  void SetUp() override;
  void TearDown() override;  // deletes the Nodes the test created

  Client& client() { return *env_.client; }
  // A Pod in the test's namespace that nothing schedules or runs.
  Object PodManifest(std::string_view name, const Object& labels = Object::object()) const;
  Object LeaseManifest(std::string_view name) const;
  // A PodDisruptionBudget with minAvailable `min_available` over the pods labelled app=`app`.
  Object BudgetManifest(std::string_view name, std::string_view app, int64_t min_available) const;
  // A Node name no other test or run uses; TearDown deletes the Node.
  std::string NodeName(std::string_view suffix);
  // Creates `pod` as `name`-0, -1, … until `admitted` holds of what the create returns (the
  // store: the first), for at most 10 s, deleting the pods it does not hold of; returns the
  // last. A real API server's Priority admission reads PriorityClasses from its own cache, which
  // sees a class created or deleted a moment later.
  Result<Object> CreateOnceAdmitted(Object pod, std::string_view name,
                                    const std::function<bool(const Result<Object>&)>& admitted);
  // Sets a pod's phase and Ready condition through the status subresource, as a kubelet would.
  ::testing::AssertionResult SetPodStatus(std::string_view name, std::string_view phase,
                                          bool ready);

  std::unique_ptr<ContractHarness> harness_;
  ContractEnv env_;

 private:
  std::vector<std::string> nodes_;
};

}  // namespace karpenter::kube::contract
