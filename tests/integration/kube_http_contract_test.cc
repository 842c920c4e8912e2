// The kube::Client contract (tests/kube/client_contract.h) against the real API server of the
// test cluster through kube/http: the same suite kube/memory passes.

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kube/client_contract.h"
#include "support/cluster.h"
#include "support/matchers.h"

namespace karpenter::kube {
namespace {

using contract::BudgetStatus;
using contract::ContractHarness;
using contract::HarnessFactory;

size_t AppendBody(char* data, size_t size, size_t count, void* body) {
  static_cast<std::string*>(body)->append(data, size * count);
  return size * count;
}

// POSTs JSON to etcd's gRPC gateway; the response body, or an error.
Result<Object> PostToEtcd(const std::string& url, const Object& request) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return Error("curl_easy_init failed");
  const std::string body = request.dump();
  std::string response;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (code != CURLE_OK) return Error(url + ": " + curl_easy_strerror(code));
  Object parsed = Object::parse(response, nullptr, false);
  if (parsed.is_discarded()) return Error(url + ": not JSON: " + response);
  return parsed;
}

class HttpHarness final : public ContractHarness {
 public:
  HttpHarness() {
    Result<std::unique_ptr<Client>> client = support::ClusterClient(KARPENTER_TESTENV_KUBECONFIG);
    if (!client.ok()) throw std::runtime_error(client.error().message);
    client_ = std::move(*client);
  }
  ~HttpHarness() override {
    for (const std::string& name : namespaces_) {
      (void)client_->Delete(resources::kNamespaces, "", name, {});
    }
  }

  Client& client() override { return *client_; }

  std::string FreshNamespace() override {
    std::random_device random;
    const std::string name = "contract-" + std::to_string(random() % 1000000000);
    const Object namespace_object = {
        {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    Result<Object> created = client_->Create(resources::kNamespaces, namespace_object, {});
    EXPECT_THAT(created, IsOk());
    namespaces_.push_back(name);
    return name;
  }

  ::testing::AssertionResult WaitForBudget(const std::string& namespace_, const std::string& name,
                                           const BudgetStatus& expected) override {
    Object last;
    const bool reached = support::WaitFor(
        [&] {
          Result<Object> budget = client_->Get(resources::kPodDisruptionBudgets, namespace_, name);
          if (!budget.ok()) return false;
          last = *budget;
          const Object status = budget->value("status", Object::object());
          return status.value("observedGeneration", int64_t{0}) >= Generation(*budget) &&
                 status.value("currentHealthy", int64_t{-1}) == expected.current_healthy &&
                 status.value("desiredHealthy", int64_t{-1}) == expected.desired_healthy &&
                 status.value("disruptionsAllowed", int64_t{-1}) == expected.disruptions_allowed;
        },
        std::chrono::seconds(60), std::chrono::milliseconds(200));
    if (reached) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "budget " << namespace_ << "/" << name << " never reported the expected status: "
           << last.value("status", Object::object()).dump();
  }

  ::testing::AssertionResult CompactHistory() override {
    const std::filesystem::path file =
        std::filesystem::path(KARPENTER_TESTENV_KUBECONFIG).parent_path() / "etcd-endpoint";
    std::ifstream in(file);
    std::string endpoint;
    if (!(in >> endpoint)) return ::testing::AssertionFailure() << "cannot read " << file;
    Result<Object> range = PostToEtcd(endpoint + "/v3/kv/range", {{"key", "AA=="}});
    if (!range.ok()) return ::testing::AssertionFailure() << range.error().message;
    const std::string revision =
        range->value("header", Object::object()).value("revision", std::string());
    if (revision.empty()) return ::testing::AssertionFailure() << "no revision: " << range->dump();
    Result<Object> compacted =
        PostToEtcd(endpoint + "/v3/kv/compaction", {{"revision", revision}, {"physical", true}});
    if (!compacted.ok()) return ::testing::AssertionFailure() << compacted.error().message;
    return ::testing::AssertionSuccess();
  }

 private:
  std::unique_ptr<Client> client_;
  std::vector<std::string> namespaces_;
};

}  // namespace
}  // namespace karpenter::kube

using karpenter::kube::contract::ClientContract;
INSTANTIATE_TEST_SUITE_P(Http, ClientContract,
                         ::testing::Values(karpenter::kube::contract::HarnessFactory([] {
                           return std::unique_ptr<karpenter::kube::contract::ContractHarness>(
                               std::make_unique<karpenter::kube::HttpHarness>());
                         })));
