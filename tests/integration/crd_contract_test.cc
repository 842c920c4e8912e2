// The CRDs of deploy/crds against `karpenter validate`: every object of the validation corpus
// (tests/testdata/validation/{valid,invalid}) goes to the test cluster's API server as a dry-run
// create, and the server must accept exactly the objects validate accepts, keep every field it is
// given, and default what src/api/defaults.cc defaults. The seed guide's NodePool and EC2NodeClass
// (tests/testdata/crds/seed.yaml) must apply unchanged.

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api/manifest.h"
#include "common/document.h"
#include "kube/client.h"
#include "kube/http/config.h"
#include "kube/http/http_client.h"
#include "kube/object.h"
#include "kube/resource.h"
#include "support/crds.h"
#include "support/matchers.h"

namespace karpenter::integration {
namespace {

using json = Json;
using ::testing::HasSubstr;

// ---- where the API server and `karpenter validate` knowingly disagree ---------------------------

// An object of the corpus on which the CRDs cannot give validate's verdict, and why. Each is still
// checked: as written it gets the server's own verdict (rejected, for the reason given), and with
// the listed numbers written as strings it must get validate's.
struct KnownDifference {
  std::string_view file;  // relative to tests/testdata/validation
  size_t object = 0;      // index among the file's objects
  std::string_view reason;
  // JSON pointers to numbers that validate reads as their text where the API has a string.
  std::vector<std::string_view> numbers_as_text;
};

const std::vector<KnownDifference>& KnownDifferences() {
  static const std::vector<KnownDifference> differences = {
      {"valid/budgets.yaml",
       0,
       "validate reads the YAML number in `nodes: 5` as the text \"5\"; the API server checks JSON "
       "types (budget nodes is a string, as in upstream's CRD) and rejects it",
       {"/spec/disruption/budgets/4/nodes"}},
      {"valid/spot.yaml",
       0,
       "validate reads the YAML number in `values: [4]` as the text \"4\"; the API server checks "
       "JSON types (requirement values are strings, as in upstream's CRD) and rejects it",
       {"/spec/template/spec/requirements/2/values/0"}},
  };
  return differences;
}

const KnownDifference* FindKnownDifference(std::string_view file, size_t object) {
  for (const KnownDifference& difference : KnownDifferences()) {
    if (difference.file == file && difference.object == object) return &difference;
  }
  return nullptr;
}

// "/spec/budgets/4/nodes" -> "spec.budgets[4].nodes", as the API server names fields.
std::string FieldPath(std::string_view pointer) {
  std::string out;
  size_t start = 1;
  while (start <= pointer.size()) {
    const size_t end = std::min(pointer.find('/', start), pointer.size());
    const std::string_view token = pointer.substr(start, end - start);
    if (!token.empty() &&
        std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      out += fmt::format("[{}]", token);
    } else {
      if (!out.empty()) out += '.';
      out += token;
    }
    start = end + 1;
  }
  return out;
}

// ---- the cluster --------------------------------------------------------------------------------

std::string KubeconfigPath() {
  // The environment may point at another test cluster (`scripts/testenv/up DIR` started by hand).
  if (const char* path = std::getenv("KARPENTER_TESTENV_KUBECONFIG"); path && *path) return path;
  return KARPENTER_TESTENV_KUBECONFIG;
}

const kube::Resource* ResourceOfKind(std::string_view kind) {
  static constexpr const kube::Resource* kKinds[] = {
      &kube::resources::kNodePools, &kube::resources::kNodeClaims,
      &kube::resources::kEC2NodeClasses, &kube::resources::kNodeOverlays,
      &kube::resources::kCapacityBuffers};
  for (const kube::Resource* resource : kKinds) {
    if (resource->kind == kind) return resource;
  }
  return nullptr;
}

enum class Verdict { kAccepted, kRejected };

std::string_view ToString(Verdict verdict) {
  return verdict == Verdict::kAccepted ? "accepted" : "rejected";
}

// Validate's verdict on one object: valid when it decodes (and validates) without a problem.
Verdict ValidateVerdict(const json& object, std::string_view source,
                        std::vector<std::string>* problems = nullptr) {
  api::DecodeOutcome outcome = api::DecodeObject(object, source);
  if (problems != nullptr) *problems = outcome.errors;
  return outcome.errors.empty() ? Verdict::kAccepted : Verdict::kRejected;
}

class CrdContractTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Result<kube::http::Config> config = kube::http::LoadKubeconfig(KubeconfigPath());
    if (!config.ok()) {
      setup_error_ = new std::string(
          fmt::format("no test cluster ({}); start one with `scripts/testenv/up DIR` and set "
                      "KARPENTER_TESTENV_KUBECONFIG=DIR/kubeconfig, or run the tests with ctest",
                      config.error().message));
      return;
    }
    Result<std::unique_ptr<kube::Client>> client = kube::http::NewClient(*config);
    if (!client.ok()) {
      setup_error_ = new std::string(client.error().message);
      return;
    }
    client_ = client->release();
    if (Status installed = support::InstallCrds(*client_, KARPENTER_SOURCE_DIR); !installed.ok()) {
      setup_error_ = new std::string(installed.error().message);
    }
  }

  static void TearDownTestSuite() {
    delete client_;
    client_ = nullptr;
    delete setup_error_;
    setup_error_ = nullptr;
  }

  void SetUp() override {
    if (setup_error_ != nullptr) GTEST_FAIL() << *setup_error_;
  }

  static kube::Client& client() { return *client_; }

  // The API server's verdict on a dry-run create of `object`, or why there is none. `created` gets
  // the object as the server would have stored it, when it accepted it.
  static Result<Verdict> ServerVerdict(const json& object, json* created = nullptr,
                                       std::string* message = nullptr) {
    const kube::Resource* known = ResourceOfKind(object.value("kind", ""));
    if (known == nullptr) return Error{"not a Karpenter kind"};
    // The object's own version, so that an old one meets the server's answer for it.
    const std::string api_version = object.value("apiVersion", "");
    const std::string version = api_version.substr(api_version.find('/') + 1);
    kube::Resource resource = *known;
    resource.version = version;

    Result<kube::Object> result = client().Create(resource, object, {.dry_run = true});
    if (result.ok()) {
      if (created != nullptr) *created = *result;
      return Verdict::kAccepted;
    }
    const Error& error = result.error();
    if (message != nullptr) *message = error.message;
    // Validation comes before the name is looked up: a taken name means the object passed.
    if (error.status == 409 && error.reason == "AlreadyExists") return Verdict::kAccepted;
    if (error.status == 422 || error.status == 400) return Verdict::kRejected;
    // The CRDs serve v1 only (as upstream's have since v1.1): an older version is not found.
    if (error.status == 404 && version != known->version) return Verdict::kRejected;
    return error;
  }

 private:
  static kube::Client* client_;
  static std::string* setup_error_;
};

kube::Client* CrdContractTest::client_ = nullptr;
std::string* CrdContractTest::setup_error_ = nullptr;

// Every field of `sent` is in `got` with the same value (`got` may add defaults).
void ExpectKept(const json& sent, const json& got, const std::string& path) {
  if (sent.is_object()) {
    ASSERT_TRUE(got.is_object()) << path << ": sent an object, got " << got.dump();
    for (const auto& [key, value] : sent.items()) {
      const std::string child = path.empty() ? key : path + "." + key;
      ASSERT_TRUE(got.contains(key)) << child << ": dropped (is it in the CRD's schema?)";
      ExpectKept(value, got.at(key), child);
    }
  } else if (sent.is_array()) {
    ASSERT_TRUE(got.is_array() && got.size() == sent.size())
        << path << ": sent " << sent.dump() << ", got " << got.dump();
    for (size_t i = 0; i < sent.size(); ++i) {
      ExpectKept(sent[i], got[i], fmt::format("{}[{}]", path, i));
    }
  } else {
    EXPECT_EQ(sent, got) << path;
  }
}

// ---- the validation corpus ----------------------------------------------------------------------

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  for (const char* dir : {"valid", "invalid"}) {
    std::error_code error;
    const std::filesystem::path root = std::filesystem::path(KARPENTER_TESTDATA) / "validation";
    for (const auto& entry : std::filesystem::directory_iterator(root / dir, error)) {
      if (entry.path().extension() == ".yaml") {
        files.push_back(std::filesystem::relative(entry.path(), root).string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - std::string_view(".yaml").size());
  std::replace_if(
      name.begin(), name.end(),
      [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; }, '_');
  return name;
}

class CorpusTest : public CrdContractTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(CorpusTest, ServerAgreesWithValidate) {
  const std::string file = GetParam();
  const std::string path =
      (std::filesystem::path(KARPENTER_TESTDATA) / "validation" / file).string();
  Result<std::vector<Document>> documents = support::ReadDocuments(path);
  if (!documents.ok()) {
    // Not YAML: nothing can reach the server, and validate must reject it too.
    EXPECT_FALSE(api::LoadManifestFile(path).errors.empty()) << documents.error().message;
    return;
  }
  ASSERT_FALSE(documents->empty()) << "no objects in " << file;
  for (size_t i = 0; i < documents->size(); ++i) {
    const json& object = (*documents)[i].value;
    SCOPED_TRACE(fmt::format("{}, object {} ({} {})", file, i, object.value("kind", ""),
                             kube::Name(object)));
    std::vector<std::string> problems;
    const Verdict expected = ValidateVerdict(object, file, &problems);
    EXPECT_EQ(expected == Verdict::kAccepted, file.starts_with("valid/"))
        << "the corpus and validate disagree: " << fmt::format("{}", fmt::join(problems, "; "));

    const KnownDifference* difference = FindKnownDifference(file, i);
    json sent = object;
    if (difference != nullptr) {
      // As written, the server rejects the numbers...
      std::string message;
      Result<Verdict> as_written = ServerVerdict(object, nullptr, &message);
      ASSERT_THAT(as_written, IsOk());
      EXPECT_EQ(ToString(*as_written), ToString(Verdict::kRejected)) << difference->reason;
      for (const std::string_view pointer : difference->numbers_as_text) {
        EXPECT_THAT(message, HasSubstr(FieldPath(pointer) + ": Invalid value: \"integer\""));
        // ...and written as strings, the object must get validate's verdict.
        const json::json_pointer at{std::string(pointer)};
        ASSERT_TRUE(sent.contains(at) && sent[at].is_number()) << pointer << " is not a number";
        sent[at] = NumberText(sent[at]);
      }
      EXPECT_EQ(ToString(ValidateVerdict(sent, file)), ToString(expected))
          << "quoting changed validate's verdict";
    }

    json created;
    std::string message;
    Result<Verdict> verdict = ServerVerdict(sent, &created, &message);
    ASSERT_THAT(verdict, IsOk()) << "no verdict from the API server: " << verdict.error().message;
    EXPECT_EQ(ToString(*verdict), ToString(expected))
        << "the API server and validate disagree\n  server: " << message
        << "\n  validate: " << fmt::format("{}", fmt::join(problems, "; "));
    if (*verdict == Verdict::kAccepted && !created.is_null()) {
      json spec_and_metadata = sent;
      spec_and_metadata.erase("status");  // the status subresource drops it from creates
      ExpectKept(spec_and_metadata, created, "");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(CorpusFiles()), TestName);

TEST_F(CrdContractTest, KnownDifferencesNameCorpusObjects) {
  for (const KnownDifference& difference : KnownDifferences()) {
    const std::string path =
        (std::filesystem::path(KARPENTER_TESTDATA) / "validation" / difference.file).string();
    Result<std::vector<Document>> documents = support::ReadDocuments(path);
    ASSERT_THAT(documents, IsOk());
    EXPECT_LT(difference.object, documents->size()) << difference.file;
  }
}

// ---- defaults -----------------------------------------------------------------------------------

json MinimalNodePool() {
  return json::parse(R"({
    "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "crd-defaults"},
    "spec": {"template": {"spec": {
      "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}],
      "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}
  })");
}

TEST_F(CrdContractTest, NodePoolDefaultsMatchOurs) {
  const json pool = MinimalNodePool();
  json created;
  Result<Verdict> verdict = ServerVerdict(pool, &created);
  ASSERT_TRUE(verdict.ok() && *verdict == Verdict::kAccepted);
  EXPECT_EQ(created["spec"]["disruption"], json::parse(R"({"consolidateAfter": "0s",
      "consolidationPolicy": "WhenEmptyOrUnderutilized", "budgets": [{"nodes": "10%"}]})"));
  EXPECT_EQ(created["spec"]["template"]["spec"]["expireAfter"], "720h");

  // The same as decoding (which applies src/api/defaults.cc) makes of the object as sent.
  api::DecodeOutcome ours = api::DecodeObject(pool, "ours");
  api::DecodeOutcome theirs = api::DecodeObject(created, "server");
  ASSERT_EQ(ours.manifest.node_pools.size(), 1u);
  ASSERT_EQ(theirs.manifest.node_pools.size(), 1u);
  const api::NodePool::Spec& a = ours.manifest.node_pools[0].spec;
  const api::NodePool::Spec& b = theirs.manifest.node_pools[0].spec;
  EXPECT_EQ(a.template_.spec.expire_after, b.template_.spec.expire_after);
  EXPECT_EQ(a.disruption.consolidation_policy, b.disruption.consolidation_policy);
  EXPECT_EQ(a.disruption.consolidate_after, b.disruption.consolidate_after);
  ASSERT_EQ(a.disruption.budgets.size(), b.disruption.budgets.size());
  for (size_t i = 0; i < a.disruption.budgets.size(); ++i) {
    EXPECT_EQ(a.disruption.budgets[i].nodes, b.disruption.budgets[i].nodes);
    EXPECT_EQ(a.disruption.budgets[i].schedule, b.disruption.budgets[i].schedule);
    EXPECT_EQ(a.disruption.budgets[i].duration, b.disruption.budgets[i].duration);
    EXPECT_EQ(a.disruption.budgets[i].reasons, b.disruption.budgets[i].reasons);
  }

  // A budget without nodes gets 10% too, and a disruption block gets its missing fields.
  json partial = pool;
  partial["spec"]["disruption"] = json::parse(R"({"budgets": [{"reasons": ["Drifted"]}]})");
  ASSERT_THAT(ServerVerdict(partial, &created), IsOk());
  EXPECT_EQ(created["spec"]["disruption"], json::parse(R"({"consolidateAfter": "0s",
      "consolidationPolicy": "WhenEmptyOrUnderutilized",
      "budgets": [{"nodes": "10%", "reasons": ["Drifted"]}]})"));
}

TEST_F(CrdContractTest, NodeClaimDefaultsMatchOursAndItMayNameItsNodePool) {
  const json claim = json::parse(R"({
    "apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": "crd-defaults"},
    "spec": {
      "requirements": [{"key": "karpenter.sh/nodepool", "operator": "In", "values": ["default"]}],
      "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}
  })");
  // Unlike a NodePool's, a NodeClaim's requirements name its NodePool.
  EXPECT_EQ(ToString(ValidateVerdict(claim, "ours")), "accepted");
  json created;
  Result<Verdict> verdict = ServerVerdict(claim, &created);
  ASSERT_TRUE(verdict.ok() && *verdict == Verdict::kAccepted);
  EXPECT_EQ(created["spec"]["expireAfter"], "720h");
  api::DecodeOutcome ours = api::DecodeObject(claim, "ours");
  api::DecodeOutcome theirs = api::DecodeObject(created, "server");
  ASSERT_EQ(ours.manifest.node_claims.size(), 1u);
  ASSERT_EQ(theirs.manifest.node_claims.size(), 1u);
  EXPECT_EQ(ours.manifest.node_claims[0].spec.expire_after,
            theirs.manifest.node_claims[0].spec.expire_after);
}

TEST_F(CrdContractTest, EC2NodeClassDefaultsMatchOurs) {
  const json node_class = json::parse(R"({
    "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
    "metadata": {"name": "crd-defaults"},
    "spec": {"role": "KarpenterNodeRole-demo", "amiSelectorTerms": [{"alias": "al2023@latest"}],
      "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
      "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}]}
  })");
  for (const json& options : {json(), json::parse(R"({"httpTokens": "optional"})")}) {
    json sent = node_class;
    if (!options.is_null()) sent["spec"]["metadataOptions"] = options;
    json created;
    Result<Verdict> verdict = ServerVerdict(sent, &created);
    ASSERT_TRUE(verdict.ok() && *verdict == Verdict::kAccepted);
    api::DecodeOutcome ours = api::DecodeObject(sent, "ours");
    ASSERT_EQ(ours.manifest.node_classes.size(), 1u);
    const api::MetadataOptions& want = ours.manifest.node_classes[0].spec.metadata_options;
    EXPECT_EQ(created["spec"]["metadataOptions"],
              json({{"httpEndpoint", want.http_endpoint},
                    {"httpProtocolIPv6", want.http_protocol_ipv6},
                    {"httpPutResponseHopLimit", want.http_put_response_hop_limit},
                    {"httpTokens", want.http_tokens}}))
        << "sent metadataOptions " << options.dump();
  }
}

// ---- the seed guide's manifests -----------------------------------------------------------------

// Deletes the object if it exists and waits until it is gone.
void DeleteAndWait(kube::Client& client, const kube::Resource& resource, std::string_view name) {
  const Status deleted = client.Delete(resource, "", name, {});
  if (!deleted.ok()) {
    ASSERT_EQ(deleted.error().status, 404) << deleted.error().message;
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (true) {
    Result<kube::Object> got = client.Get(resource, "", name);
    if (!got.ok() && got.error().status == 404) return;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << resource.kind << "/" << name << " is still there 30s after deletion";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

TEST_F(CrdContractTest, SeedManifestsApplyUnchangedAndGetDefaults) {
  Result<std::vector<Document>> documents = support::ReadDocuments(
      (std::filesystem::path(KARPENTER_TESTDATA) / "crds" / "seed.yaml").string());
  ASSERT_THAT(documents, IsOk());
  ASSERT_EQ(documents->size(), 2u);
  for (const Document& document : *documents) {
    const json& object = document.value;
    const kube::Resource* resource = ResourceOfKind(object.value("kind", ""));
    ASSERT_NE(resource, nullptr) << object.value("kind", "");
    const std::string name(kube::Name(object));
    SCOPED_TRACE(fmt::format("{}/{}", resource->kind, name));
    std::vector<std::string> problems;
    EXPECT_EQ(ToString(ValidateVerdict(object, "seed.yaml", &problems)), "accepted")
        << fmt::format("{}", fmt::join(problems, "; "));

    ASSERT_NO_FATAL_FAILURE(DeleteAndWait(client(), *resource, name));
    Result<kube::Object> created = client().Create(*resource, object, {});
    ASSERT_THAT(created, IsOk());
    Result<kube::Object> got = client().Get(*resource, "", name);
    ASSERT_THAT(got, IsOk());
    ExpectKept(object, *got, "");
    if (resource->kind == "NodePool") {
      EXPECT_EQ((*got)["spec"]["disruption"]["budgets"], json::parse(R"([{"nodes": "10%"}])"));
      EXPECT_EQ((*got)["spec"]["disruption"]["consolidateAfter"], "1m");
      EXPECT_EQ((*got)["spec"]["template"]["spec"]["expireAfter"], "720h");
    } else {
      EXPECT_EQ((*got)["spec"]["metadataOptions"],
                json::parse(R"({"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                "httpPutResponseHopLimit": 1, "httpTokens": "required"})"));
    }
    ASSERT_NO_FATAL_FAILURE(DeleteAndWait(client(), *resource, name));
  }
}

}  // namespace
}  // namespace karpenter::integration
