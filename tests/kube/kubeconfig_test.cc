// Unit tests of kube/http without a cluster: kubeconfig and in-cluster configuration, URLs, error
// mapping, the token file, and the client's HTTP behaviour against a small local fake server
// (retries, pagination, watch streams) that a real API server cannot be made to show on demand.

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/base64.h"
#include "kube/http/api_error.h"
#include "kube/http/bearer_token.h"
#include "kube/http/config.h"
#include "kube/http/http_client.h"
#include "kube/http/url.h"
#include "support/matchers.h"

namespace karpenter::kube::http {
namespace {

using std::chrono::milliseconds;
using testing::HasSubstr;
using testing::Not;
using testing::StartsWith;

// ----- helpers

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kubeconfig-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Write(const std::string& name, std::string_view text) const {
    const std::string file = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    return file;
  }

 private:
  std::string path_;
};

struct KeyPair {
  std::string certificate;  // PEM
  std::string key;          // PEM
};

// A self-signed P-256 certificate: cheap to make, enough for parsing and matching checks.
KeyPair SelfSigned(const std::string& common_name) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(cert, name);
  X509_sign(cert, key, EVP_sha256());
  const auto to_text = [](const std::function<void(BIO*)>& write) {
    BIO* bio = BIO_new(BIO_s_mem());
    write(bio);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    std::string text(data, static_cast<size_t>(size));
    BIO_free(bio);
    return text;
  };
  KeyPair pair{to_text([&](BIO* bio) { PEM_write_bio_X509(bio, cert); }), to_text([&](BIO* bio) {
                 PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
               })};
  X509_free(cert);
  EVP_PKEY_free(key);
  return pair;
}

// ----- kubeconfig

class KubeconfigTest : public testing::Test {
 protected:
  std::string WriteConfig(std::string_view text) { return dir_.Write("config", text); }
  Error LoadError(std::string_view text, const std::string& context = "") {
    Result<Config> config = LoadKubeconfig(WriteConfig(text), context);
    EXPECT_FALSE(config.ok()) << "loaded";
    return config.ok() ? Error{} : config.error();
  }

  TempDir dir_;
};

constexpr std::string_view kTwoContexts = R"(apiVersion: v1
kind: Config
current-context: files
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: pki/ca.crt
- name: remote
  cluster:
    server: https://remote.example:443
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    client-certificate: pki/admin.crt
    client-key: pki/admin.key
- name: robot
  user:
    token: static-token
contexts:
- name: files
  context:
    cluster: local
    user: admin
    namespace: team-a
- name: remote
  context:
    cluster: remote
    user: robot
)";

TEST_F(KubeconfigTest, ReadsTheCurrentContextWithFilesRelativeToTheKubeconfig) {
  dir_.Write("pki/ca.crt", "CA PEM");
  dir_.Write("pki/admin.crt", "CERT PEM");
  dir_.Write("pki/admin.key", "KEY PEM");
  Result<Config> config = LoadKubeconfig(WriteConfig(kTwoContexts));
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->server, "https://127.0.0.1:6443/");
  EXPECT_EQ(config->certificate_authority, "CA PEM");
  EXPECT_EQ(config->client_certificate, "CERT PEM");
  EXPECT_EQ(config->client_key, "KEY PEM");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->bearer_token, "");
  EXPECT_EQ(config->namespace_, "team-a");
}

TEST_F(KubeconfigTest, ANamedContextOverridesTheCurrentOne) {
  Result<Config> config = LoadKubeconfig(WriteConfig(kTwoContexts), "remote");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->server, "https://remote.example:443");
  EXPECT_TRUE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->bearer_token, "static-token");
  EXPECT_EQ(config->certificate_authority, "");
  EXPECT_EQ(config->namespace_, "");
}

TEST_F(KubeconfigTest, DecodesInlineData) {
  const std::string text = R"(current-context: c
clusters:
- name: k
  cluster:
    server: https://k:6443
    certificate-authority-data: )" +
                           EncodeBase64("-----CA-----\n") +
                           R"(
users:
- name: u
  user:
    client-certificate-data: )" +
                           EncodeBase64("cert!") +
                           R"(
    client-key-data: ")" + EncodeBase64("key") +
                           R"("
contexts:
- name: c
  context: {cluster: k, user: u}
)";
  Result<Config> config = LoadKubeconfig(WriteConfig(text));
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->certificate_authority, "-----CA-----\n");
  EXPECT_EQ(config->client_certificate, "cert!");
  EXPECT_EQ(config->client_key, "key");
}

TEST_F(KubeconfigTest, ATokenFileIsReadNowAndRememberedForRereading) {
  dir_.Write("secrets/token", "  file-token\n");
  Result<Config> config = LoadKubeconfig(WriteConfig(R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k"}}]
users: [{name: u, user: {token: ignored, tokenFile: secrets/token}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)"));
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->bearer_token, "file-token");
  EXPECT_EQ(config->bearer_token_file, dir_.path() + "/secrets/token");
}

TEST_F(KubeconfigTest, AContextWithoutAUserIsAnonymous) {
  Result<Config> config = LoadKubeconfig(WriteConfig(R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k"}}]
contexts: [{name: c, context: {cluster: k}}]
)"));
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->bearer_token, "");
  EXPECT_EQ(config->client_certificate, "");
}

TEST_F(KubeconfigTest, AMissingFileNamesIt) {
  Result<Config> config = LoadKubeconfig(dir_.path() + "/absent");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().message,
            "kubeconfig: cannot read " + dir_.path() + "/absent: No such file or directory");
}

TEST_F(KubeconfigTest, AYamlSyntaxErrorHasItsPosition) {
  const std::string path = dir_.path() + "/config";
  EXPECT_THAT(LoadError("clusters:\n  - [unclosed\n").message,
              StartsWith("kubeconfig " + path + ":3:"));
}

TEST_F(KubeconfigTest, AnUnreadableKeyNamesTheFieldAndTheFile) {
  dir_.Write("ca.crt", "CA");
  dir_.Write("admin.crt", "CERT");
  const std::string path = dir_.path() + "/config";
  EXPECT_EQ(LoadError(R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k", certificate-authority: ca.crt}}]
users:
- name: u
  user: {client-certificate: admin.crt, client-key: k.pem}
contexts: [{name: c, context: {cluster: k, user: u}}]
)")
                .message,
            "kubeconfig " + path + ": users[0].user.client-key: cannot read " + dir_.path() +
                "/k.pem: No such file or directory");
}

struct ErrorCase {
  std::string name;
  std::string text;
  std::string context;
  std::string message;  // after "kubeconfig <path>: "
};

class KubeconfigErrorTest : public KubeconfigTest, public testing::WithParamInterface<ErrorCase> {};

TEST_P(KubeconfigErrorTest, SaysWhatAndWhere) {
  const ErrorCase& c = GetParam();
  const Error error = LoadError(c.text, c.context);
  EXPECT_EQ(error.message, "kubeconfig " + dir_.path() + "/config: " + std::string(c.message));
  EXPECT_THAT(error.message, Not(HasSubstr("s3cr3t")));  // secrets never appear
}

// A valid cluster, for the cases about users (clusters are read first).
constexpr std::string_view kCluster = "clusters: [{name: k, cluster: {server: 'https://k'}}]\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, KubeconfigErrorTest,
    testing::Values(
        ErrorCase{"NoCurrentContext", "clusters: []\n", "",
                  "current-context: not set, and no context was given"},
        ErrorCase{"UnknownContext",
                  "current-context: c\ncontexts: [{name: a, context: {cluster: k}}, {name: b, "
                  "context: {cluster: k}}]\n",
                  "", "context \"c\" not found (contexts: a, b)"},
        ErrorCase{"ContextWithoutCluster",
                  "current-context: c\ncontexts: [{name: c, context: {user: u}}]\n", "",
                  "contexts[0].context.cluster: required"},
        ErrorCase{"UnknownCluster",
                  "current-context: c\ncontexts: [{name: c, context: {cluster: x}}]\n", "",
                  "cluster \"x\" not found (clusters: none)"},
        ErrorCase{"NoServer",
                  "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
                  "clusters: [{name: k, cluster: {}}]\n",
                  "", "clusters[0].cluster.server: required"},
        ErrorCase{"ServerNotAString",
                  "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
                  "clusters: [{name: k, cluster: {server: [a]}}]\n",
                  "", "clusters[0].cluster.server: expected a string"},
        ErrorCase{"InsecureNotABool",
                  "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
                  "clusters: [{name: k, cluster: {server: 'https://k', insecure-skip-tls-verify: "
                  "maybe}}]\n",
                  "", "clusters[0].cluster.insecure-skip-tls-verify: expected true or false"},
        ErrorCase{"InsecureWithCa",
                  "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
                  "clusters: [{name: k, cluster: {server: 'https://k', insecure-skip-tls-verify: "
                  "true, certificate-authority-data: QUJD}}]\n",
                  "",
                  "clusters[0].cluster: insecure-skip-tls-verify and a certificate-authority are "
                  "both set"},
        ErrorCase{"TlsServerName",
                  "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
                  "clusters: [{name: k, cluster: {server: 'https://k', tls-server-name: x}}]\n",
                  "", "clusters[0].cluster.tls-server-name: not supported by this client"},
        ErrorCase{"UnknownUser",
                  std::string(kCluster) +
                      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                      "users: [{name: v, user: {token: s3cr3t}}]\n",
                  "", "user \"u\" not found (users: v)"},
        ErrorCase{"Exec",
                  std::string(kCluster) +
                      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                      "users: [{name: u, user: {exec: {command: aws}}}]\n",
                  "",
                  "users[0].user.exec: exec credential plugins are not supported; use a token, "
                  "tokenFile or client certificate"},
        ErrorCase{"AuthProvider",
                  std::string(kCluster) +
                      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                      "users: [{name: u, user: {auth-provider: {name: gcp}}}]\n",
                  "",
                  "users[0].user.auth-provider: auth-provider plugins are not supported; use a "
                  "token, tokenFile or client certificate"},
        ErrorCase{"BasicAuth",
                  std::string(kCluster) +
                      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                      "users: [{name: u, user: {username: me, password: s3cr3t}}]\n",
                  "",
                  "users[0].user.username: basic authentication is not supported (Kubernetes "
                  "removed it in 1.19)"},
        ErrorCase{"BadBase64",
                  std::string(kCluster) +
                      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                      "users: [{name: u, user: {client-certificate-data: QUJD, client-key-data: "
                      "'s3cr3t!!'}}]\n",
                  "", "users[0].user.client-key-data: not valid base64"},
        ErrorCase{"FileAndData",
                  std::string(kCluster) +
                      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                      "users: [{name: u, user: {client-key: k.pem, client-key-data: QUJD}}]\n",
                  "", "users[0].user: client-key and client-key-data are both set; keep one"},
        ErrorCase{"CertificateWithoutKey",
                  std::string(kCluster) +
                      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                      "users: [{name: u, user: {client-certificate-data: QUJD, token: s3cr3t}}]\n",
                  "", "users[0].user: client-certificate is set without a client-key"},
        ErrorCase{"MissingTokenFile",
                  std::string(kCluster) +
                      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                      "users: [{name: u, user: {tokenFile: /nonexistent/token}}]\n",
                  "",
                  "users[0].user.tokenFile: cannot read /nonexistent/token: No such file or "
                  "directory"},
        ErrorCase{"ContextsNotAList",
                  std::string(kCluster) + "current-context: c\ncontexts: {c: 1}\n", "",
                  "contexts: expected a list"},
        ErrorCase{"ClusterWithoutBody",
                  "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
                  "clusters: [{name: k}]\n",
                  "", "clusters[0].cluster: expected a mapping"},
        ErrorCase{"EntryNotAMapping", "current-context: c\ncontexts: [c]\n", "",
                  "contexts[0]: expected a mapping"},
        ErrorCase{"NotAMapping", "- a\n- b\n", "", "expected a mapping at the top level"}),
    [](const testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

// ----- in-cluster

class InClusterTest : public testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"}) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name,
                          value == nullptr ? std::nullopt : std::optional<std::string>(value));
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value.has_value()) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  static void SetService(const char* host, const char* port) {
    ::setenv("KUBERNETES_SERVICE_HOST", host, 1);
    ::setenv("KUBERNETES_SERVICE_PORT", port, 1);
  }

  TempDir dir_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(InClusterTest, ReadsTheServiceAccountFiles) {
  SetService("10.96.0.1", "443");
  dir_.Write("token", "pod-token\n");
  dir_.Write("ca.crt", "CLUSTER CA");
  dir_.Write("namespace", "karpenter");
  Result<Config> config = InClusterConfig(dir_.path());
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->bearer_token, "pod-token");
  EXPECT_EQ(config->bearer_token_file, dir_.path() + "/token");
  EXPECT_EQ(config->certificate_authority, "CLUSTER CA");
  EXPECT_EQ(config->namespace_, "karpenter");
}

TEST_F(InClusterTest, BracketsAnIpv6Host) {
  SetService("fd00:10:96::1", "443");
  dir_.Write("token", "t");
  dir_.Write("ca.crt", "CA");
  Result<Config> config = InClusterConfig(dir_.path());
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->server, "https://[fd00:10:96::1]:443");
}

TEST_F(InClusterTest, FailsOutsideAPod) {
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  Result<Config> config = InClusterConfig(dir_.path());
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.error().message, HasSubstr("KUBERNETES_SERVICE_HOST"));
}

TEST_F(InClusterTest, AMissingTokenNamesTheFile) {
  SetService("10.96.0.1", "443");
  dir_.Write("ca.crt", "CA");
  Result<Config> config = InClusterConfig(dir_.path());
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().message,
            "in-cluster config: cannot read " + dir_.path() + "/token: No such file or directory");
}

// ----- the token file

TEST(BearerTokenTest, RereadsTheFileWhenItChangesAndKeepsTheLastTokenWhenItGoesAway) {
  TempDir dir;
  const std::string file = dir.Write("token", "first\n");
  BearerToken token("fallback", file);
  Result<std::string> value = token.Get();
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, "first");

  // Replaced as the kubelet does it: a new file renamed over the old one.
  dir.Write("token.new", "second-token\n");
  std::filesystem::rename(dir.path() + "/token.new", file);
  value = token.Get();
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, "second-token");

  std::filesystem::remove(file);
  value = token.Get();
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, "second-token");
}

TEST(BearerTokenTest, WithoutAFileIsTheFixedToken) {
  BearerToken token("fixed", "");
  Result<std::string> value = token.Get();
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, "fixed");
}

// ----- URLs

TEST(UrlTest, BuildsPathsForCoreAndNamedGroups) {
  EXPECT_EQ(ResourcePath(resources::kPods, "ns", "web-0"), "/api/v1/namespaces/ns/pods/web-0");
  EXPECT_EQ(ResourcePath(resources::kPods, "", ""), "/api/v1/pods");
  EXPECT_EQ(ResourcePath(resources::kPods, "ns", ""), "/api/v1/namespaces/ns/pods");
  EXPECT_EQ(ResourcePath(resources::kPods, "ns", "p", "eviction"),
            "/api/v1/namespaces/ns/pods/p/eviction");
  EXPECT_EQ(ResourcePath(resources::kNodes, "ignored", "node-1", "status"),
            "/api/v1/nodes/node-1/status");
  EXPECT_EQ(ResourcePath(resources::kNamespaces, "", "kube-system"),
            "/api/v1/namespaces/kube-system");
  EXPECT_EQ(ResourcePath(resources::kDeployments, "ns", "d"),
            "/apis/apps/v1/namespaces/ns/deployments/d");
  EXPECT_EQ(ResourcePath(resources::kNodePools, "", "default"),
            "/apis/karpenter.sh/v1/nodepools/default");
  EXPECT_EQ(ResourcePath(resources::kPods, "a b", "x/y"), "/api/v1/namespaces/a%20b/pods/x%2Fy");
}

TEST(UrlTest, EscapesQueryValuesAndSkipsEmptyOnes) {
  Query query;
  query.Add("labelSelector", "app in (a,b),!legacy")
      .Add("fieldSelector", "spec.nodeName=node-1")
      .Add("continue", "")
      .Add("limit", "2");
  EXPECT_EQ(query.Apply("/api/v1/pods"),
            "/api/v1/pods?labelSelector=app%20in%20%28a%2Cb%29%2C%21legacy"
            "&fieldSelector=spec.nodeName%3Dnode-1&limit=2");
  EXPECT_EQ(Query().Apply("/api/v1/pods"), "/api/v1/pods");
}

TEST(UrlTest, NormalizesTheServer) {
  EXPECT_EQ(*NormalizeServer("https://127.0.0.1:6443/"), "https://127.0.0.1:6443");
  EXPECT_EQ(*NormalizeServer("https://[::1]:6443"), "https://[::1]:6443");
  EXPECT_EQ(*NormalizeServer("https://proxy.example/k8s/clusters/c-1//"),
            "https://proxy.example/k8s/clusters/c-1");
  EXPECT_EQ(*NormalizeServer("http://localhost:8080"), "http://localhost:8080");
  EXPECT_EQ(NormalizeServer("127.0.0.1:6443").error().message,
            "server URL \"127.0.0.1:6443\": must start with https:// (or http://)");
  EXPECT_FALSE(NormalizeServer("https://").ok());
  EXPECT_FALSE(NormalizeServer("https://k?x=1").ok());
  const Result<std::string> credentials = NormalizeServer("https://me:s3cr3t@k");
  ASSERT_FALSE(credentials.ok());
  EXPECT_THAT(credentials.error().message, Not(HasSubstr("s3cr3t")));
}

// ----- errors

TEST(ApiErrorTest, TakesReasonAndMessageFromTheStatus) {
  const Error error =
      ResponseError("GET", "/api/v1/namespaces/a/pods/x", 404,
                    R"({"kind":"Status","apiVersion":"v1","status":"Failure",)"
                    R"("message":"pods \"x\" not found","reason":"NotFound","code":404})");
  EXPECT_EQ(error.message, "GET /api/v1/namespaces/a/pods/x: pods \"x\" not found");
  EXPECT_EQ(error.status, 404);
  EXPECT_EQ(error.reason, "NotFound");
}

TEST(ApiErrorTest, ABodyThatIsNotAStatusGetsTheReasonOfItsCode) {
  const Error error = ResponseError("POST", "/api/v1/pods", 503, "<html>busy</html>\n");
  EXPECT_EQ(error.message, "POST /api/v1/pods: HTTP 503: <html>busy</html>");
  EXPECT_EQ(error.status, 503);
  EXPECT_EQ(error.reason, "ServiceUnavailable");
}

TEST(ApiErrorTest, AWatchErrorEventKeepsItsCode) {
  const Error error =
      StatusError("watch /api/v1/pods",
                  Json::parse(R"json({"kind":"Status","code":410,"reason":"Expired",)json"
                              R"json("message":"too old resource version: 1 (52)"})json"));
  EXPECT_EQ(error.status, 410);
  EXPECT_EQ(error.reason, "Expired");
  EXPECT_EQ(error.message, "watch /api/v1/pods: too old resource version: 1 (52)");
}

// ----- NewClient

// A loopback port nothing listens on: one the kernel just handed out and we gave back.
int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t size = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

TEST(NewClientTest, ChecksTheTlsMaterialAndTheServer) {
  const KeyPair ca = SelfSigned("ca");
  const KeyPair client = SelfSigned("client");
  const KeyPair other = SelfSigned("other");
  Config config;
  config.server = "https://127.0.0.1:6443";
  config.certificate_authority = ca.certificate;
  config.client_certificate = client.certificate;
  config.client_key = client.key;
  EXPECT_THAT(NewClient(config), IsOk());

  Config bad_server = config;
  bad_server.server = "127.0.0.1:6443";
  EXPECT_THAT(NewClient(bad_server).error().message, HasSubstr("must start with https://"));

  Config bad_ca = config;
  bad_ca.certificate_authority = "not a certificate";
  EXPECT_EQ(NewClient(bad_ca).error().message, "certificate authority: no PEM certificate found");

  Config mismatch = config;
  mismatch.client_key = other.key;
  EXPECT_EQ(NewClient(mismatch).error().message,
            "client key does not belong to the client certificate");

  Config bad_key = config;
  bad_key.client_key = "-----BEGIN PRIVATE KEY-----\ns3cr3t\n-----END PRIVATE KEY-----\n";
  const Error error = NewClient(bad_key).error();
  EXPECT_EQ(error.message, "client key: no unencrypted PEM private key found");
}

TEST(NewClientTest, ARefusedConnectionIsUnavailable) {
  const int port = ClosedPort();
  Config config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  Result<std::unique_ptr<Client>> client = NewClient(config);
  ASSERT_THAT(client, IsOk());
  Result<Object> pod = (*client)->Get(resources::kPods, "a", "x");
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().status, 0);
  EXPECT_EQ(pod.error().reason, "Unavailable");
  EXPECT_THAT(pod.error().message, StartsWith("GET /api/v1/namespaces/a/pods/x: "));
}

// ----- the client against a fake server

// An HTTP server on a free loopback port, serving the handlers registered before Start.
class FakeServer {
 public:
  FakeServer() : port_(server_.bind_to_any_port("127.0.0.1")) {}
  ~FakeServer() {
    stopping_ = true;
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  httplib::Server* operator->() { return &server_; }
  void Start() {
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(milliseconds(1));
  }
  // Set when the test ends, so that endless responses stop.
  const std::atomic<bool>& stopping() const { return stopping_; }

  // A configuration for this server.
  Config BaseConfig() const {
    Config config;
    config.server = "http://127.0.0.1:" + std::to_string(port_);
    return config;
  }

  std::unique_ptr<Client> NewClientFor(std::string token = "") {
    Config config = BaseConfig();
    config.bearer_token = std::move(token);
    Result<std::unique_ptr<Client>> client = NewClient(config);
    EXPECT_THAT(client, IsOk());
    return client.ok() ? std::move(*client) : nullptr;
  }

 private:
  httplib::Server server_;
  const int port_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

// What the fake server saw of one request.
struct Seen {
  std::string method;
  std::string path;
  std::string dry_run;
  std::string content_type;
  std::string body;
};

std::string StatusBody(int code, std::string_view reason, std::string_view message) {
  return Json{{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
              {"code", code},     {"reason", reason},   {"message", message}}
      .dump();
}

TEST(FakeServerTest, SendsTheHeadersTheApiServerExpects) {
  FakeServer server;
  std::mutex mu;
  std::vector<std::string> headers;
  server->Get("/api/v1/namespaces/a/pods/x",
              [&](const httplib::Request& req, httplib::Response& res) {
                std::lock_guard<std::mutex> lock(mu);
                for (const char* name : {"Accept", "User-Agent", "Authorization"}) {
                  headers.push_back(req.get_header_value(name));
                }
                res.set_content(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}})",
                                "application/json");
              });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor("tok");
  Result<Object> pod = client->Get(resources::kPods, "a", "x");
  ASSERT_THAT(pod, IsOk());
  EXPECT_EQ(Name(*pod), "x");
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(headers.size(), 3u);
  EXPECT_EQ(headers[0], "application/json");
  EXPECT_THAT(headers[1], StartsWith("karpenter-cpp/"));
  EXPECT_EQ(headers[2], "Bearer tok");
}

TEST(FakeServerTest, ListFollowsPagesAndFillsInTheItemsTypes) {
  FakeServer server;
  std::mutex mu;
  std::vector<std::string> continues;
  std::vector<std::string> selectors;
  server->Get("/api/v1/namespaces/a/pods", [&](const httplib::Request& req,
                                               httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    const std::string token = req.get_param_value("continue");
    continues.push_back(token);
    selectors.push_back(req.get_param_value("labelSelector") + "|" + req.get_param_value("limit"));
    const int page = token.empty() ? 0 : std::stoi(token);
    Json list = {{"kind", "PodList"},
                 {"apiVersion", "v1"},
                 {"metadata", {{"resourceVersion", "77"}}},
                 {"items", Json::array()}};
    for (int i = 0; i < 2 && page * 2 + i < 5; ++i) {
      list["items"].push_back({{"metadata", {{"name", "p" + std::to_string(page * 2 + i)}}}});
    }
    if (page < 2) list["metadata"]["continue"] = std::to_string(page + 1);
    res.set_content(list.dump(), "application/json");
  });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  ListOptions options;
  options.namespace_ = "a";
  options.label_selector = "app in (web)";
  options.page_size = 2;
  Result<ObjectList> list = client->List(resources::kPods, options);
  ASSERT_THAT(list, IsOk());
  ASSERT_EQ(list->items.size(), 5u);
  EXPECT_EQ(Name((*list->items[4])), "p4");
  EXPECT_EQ((*list->items[0])["kind"], "Pod");
  EXPECT_EQ((*list->items[0])["apiVersion"], "v1");
  EXPECT_EQ(list->resource_version, "77");
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(continues, (std::vector<std::string>{"", "1", "2"}));
  EXPECT_EQ(selectors[0], "app in (web)|2");
}

TEST(FakeServerTest, ListStartsOverOnceWhenItsContinueTokenExpires) {
  FakeServer server;
  std::atomic<int> calls{0};
  server->Get("/api/v1/nodes", [&](const httplib::Request& req, httplib::Response& res) {
    const int call = ++calls;
    if (!req.get_param_value("continue").empty() && call == 2) {
      res.status = 410;
      res.set_content(StatusBody(410, "Expired", "continue token expired"), "application/json");
      return;
    }
    Json list = {{"metadata", {{"resourceVersion", std::to_string(call)}}},
                 {"items", {{{"metadata", {{"name", "n" + std::to_string(call)}}}}}}};
    if (req.get_param_value("continue").empty()) list["metadata"]["continue"] = "next";
    res.set_content(list.dump(), "application/json");
  });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  Result<ObjectList> list = client->List(resources::kNodes, {});
  ASSERT_THAT(list, IsOk());
  // Call 1 (page 1), call 2 (410), call 3 (page 1 again), call 4 (page 2).
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(Name((*list->items[0])), "n3");
  EXPECT_EQ(Name((*list->items[1])), "n4");
  EXPECT_EQ(calls.load(), 4);
}

TEST(FakeServerTest, ReadsAreRetriedOnServerErrorsAndWritesAreNot) {
  FakeServer server;
  std::atomic<int> gets{0};
  std::atomic<int> posts{0};
  server->Get("/api/v1/nodes/n", [&](const httplib::Request&, httplib::Response& res) {
    if (++gets < 3) {
      res.status = 503;
      res.set_content(StatusBody(503, "ServiceUnavailable", "busy"), "application/json");
      return;
    }
    res.set_content(R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}})",
                    "application/json");
  });
  server->Post("/api/v1/nodes", [&](const httplib::Request&, httplib::Response& res) {
    ++posts;
    res.status = 503;
    res.set_content(StatusBody(503, "ServiceUnavailable", "busy"), "application/json");
  });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  Result<Object> node = client->Get(resources::kNodes, "", "n");
  ASSERT_THAT(node, IsOk());
  EXPECT_EQ(gets.load(), 3);

  Result<Object> created =
      client->Create(resources::kNodes, {{"metadata", {{"name", "n"}}}}, WriteOptions{});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().status, 503);
  EXPECT_EQ(created.error().reason, "ServiceUnavailable");
  EXPECT_EQ(created.error().message, "POST /api/v1/nodes: busy");
  EXPECT_EQ(posts.load(), 1);
}

TEST(FakeServerTest, WritesUseTheVerbsPathsAndBodiesOfTheApi) {
  FakeServer server;
  std::mutex mu;
  std::vector<Seen> seen;
  const auto record = [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back({req.method, req.path, req.get_param_value("dryRun"),
                    req.get_header_value("Content-Type"), req.body});
    res.status = req.method == "POST" ? 201 : 200;
    res.set_content(R"({"metadata":{"name":"p","namespace":"a"}})", "application/json");
  };
  server->Post(".*", record);
  server->Put(".*", record);
  server->Patch(".*", record);
  server->Delete(".*", record);
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  const Object pod = {{"metadata", {{"name", "p"}, {"namespace", "a"}}}};

  Result<Object> created = client->Create(resources::kPods, pod, WriteOptions{.dry_run = true});
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ((*created)["kind"], "Pod");
  ASSERT_THAT(client->Update(resources::kPods, pod, Subresource::kStatus), IsOk());
  ASSERT_THAT(client->Patch(resources::kPods, "a", "p", PatchType::kMerge,
                            {{"metadata", {{"labels", {{"x", "y"}}}}}}, Subresource::kNone),
              IsOk());
  ASSERT_THAT(
      client->Patch(resources::kPods, "a", "p", PatchType::kJson,
                    Json::parse(R"([{"op":"test","path":"/x","value":1}])"), Subresource::kNone),
      IsOk());
  DeleteOptions options;
  options.precondition_uid = "u-1";
  options.precondition_resource_version = "9";
  options.grace_period_seconds = 0;
  ASSERT_THAT(client->Delete(resources::kPods, "a", "p", options), IsOk());
  DeleteOptions eviction;
  eviction.grace_period_seconds = 30;
  ASSERT_THAT(client->Evict("a", "p", eviction), IsOk());

  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].path, "/api/v1/namespaces/a/pods");
  EXPECT_EQ(seen[0].dry_run, "All");  // dryRun
  EXPECT_EQ(Json::parse(seen[0].body)["kind"], "Pod");
  EXPECT_EQ(Json::parse(seen[0].body)["apiVersion"], "v1");
  EXPECT_EQ(seen[1].method, "PUT");
  EXPECT_EQ(seen[1].path, "/api/v1/namespaces/a/pods/p/status");
  EXPECT_EQ(seen[1].dry_run, "");
  EXPECT_EQ(seen[2].method, "PATCH");
  EXPECT_EQ(seen[2].content_type, "application/merge-patch+json");
  EXPECT_EQ(seen[3].content_type, "application/json-patch+json");
  EXPECT_EQ(seen[3].body, R"([{"op":"test","path":"/x","value":1}])");
  EXPECT_EQ(seen[4].method, "DELETE");
  EXPECT_EQ(seen[4].path, "/api/v1/namespaces/a/pods/p");
  EXPECT_EQ(Json::parse(seen[4].body),
            Json::parse(R"({"preconditions":{"uid":"u-1","resourceVersion":"9"},)"
                        R"("gracePeriodSeconds":0})"));
  EXPECT_EQ(seen[5].method, "POST");
  EXPECT_EQ(seen[5].path, "/api/v1/namespaces/a/pods/p/eviction");
  EXPECT_EQ(Json::parse(seen[5].body),
            Json::parse(R"({"apiVersion":"policy/v1","kind":"Eviction",)"
                        R"("metadata":{"name":"p","namespace":"a"},)"
                        R"("deleteOptions":{"gracePeriodSeconds":30}})"));
}

TEST(FakeServerTest, ACreateOfANamespacedObjectNeedsANamespace) {
  FakeServer server;
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  Result<Object> created =
      client->Create(resources::kPods, {{"metadata", {{"name", "p"}}}}, WriteOptions{});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().status, 400);
  EXPECT_EQ(created.error().message, "POST /api/v1/pods: metadata.namespace is required");
}

WatchOptions WatchFrom(std::string resource_version, std::string namespace_ = "",
                       std::string label_selector = "") {
  WatchOptions options;
  options.resource_version = std::move(resource_version);
  options.namespace_ = std::move(namespace_);
  options.label_selector = std::move(label_selector);
  return options;
}

// Streams `lines` as a watch response (in pieces, as a network would), then ends it.
void ServeWatch(httplib::Response& res, std::vector<std::string> lines) {
  // Not "application/json": the fake server would compress that and hold events back.
  res.set_chunked_content_provider("application/json;stream=watch",
                                   [lines](size_t, httplib::DataSink& sink) {
                                     for (const std::string& line : lines) {
                                       const size_t half = line.size() / 2;
                                       sink.write(line.data(), half);
                                       std::this_thread::sleep_for(milliseconds(2));
                                       sink.write(line.data() + half, line.size() - half);
                                     }
                                     sink.done();
                                     return true;
                                   });
}

std::vector<WatchEvent> Drain(Watch& watch, Error& end) {
  std::vector<WatchEvent> events;
  while (true) {
    Result<std::optional<WatchEvent>> next = watch.Next(milliseconds(5000));
    if (!next.ok()) {
      end = next.error();
      return events;
    }
    if (!next->has_value()) {
      end = Error{"timed out"};
      return events;
    }
    events.push_back(std::move(**next));
  }
}

TEST(FakeServerTest, AWatchDeliversEventsUntilTheServerClosesTheStream) {
  FakeServer server;
  std::mutex mu;
  std::string query;
  server->Get("/api/v1/namespaces/a/pods", [&](const httplib::Request& req,
                                               httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu);
      query = req.get_param_value("watch") + " " + req.get_param_value("resourceVersion") + " " +
              req.get_param_value("allowWatchBookmarks") + " " +
              req.get_param_value("labelSelector");
      const int timeout = std::stoi(req.get_param_value("timeoutSeconds"));
      EXPECT_GE(timeout, 300);
      EXPECT_LE(timeout, 600);
    }
    ServeWatch(res,
               {R"({"type":"ADDED","object":{"metadata":{"name":"p","resourceVersion":"6"}}})"
                "\n",
                R"({"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1",)"
                R"("metadata":{"name":"p","resourceVersion":"7"}}})"
                "\r\n\n",
                R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"8"}}})"
                "\n",
                R"({"type":"DELETED","object":{"metadata":{"name":"p","resourceVersion":"9"}}})"});
  });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  Result<std::unique_ptr<Watch>> watch =
      client->StartWatch(resources::kPods, WatchFrom("5", "a", "app=web"));
  ASSERT_THAT(watch, IsOk());
  Error end;
  const std::vector<WatchEvent> events = Drain(**watch, end);
  ASSERT_EQ(events.size(), 4u) << end.message;
  EXPECT_EQ(events[0].type, WatchEventType::kAdded);
  EXPECT_EQ((*events[0].object)["kind"], "Pod");
  EXPECT_EQ(ResourceVersion(*events[0].object), "6");
  EXPECT_EQ(events[1].type, WatchEventType::kModified);
  EXPECT_EQ(events[2].type, WatchEventType::kBookmark);
  EXPECT_EQ(ResourceVersion(*events[2].object), "8");
  EXPECT_EQ(events[3].type, WatchEventType::kDeleted);
  EXPECT_EQ(ResourceVersion(*events[3].object), "9");
  EXPECT_EQ(end.reason, "Closed");
  EXPECT_EQ(end.status, 0);
  // An ended watch keeps saying so.
  Result<std::optional<WatchEvent>> again = (*watch)->Next(milliseconds(0));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().reason, "Closed");
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(query, "1 5 true app=web");
}

TEST(FakeServerTest, AWatchErrorEventEndsTheWatchWithItsStatus) {
  FakeServer server;
  server->Get("/api/v1/pods", [&](const httplib::Request&, httplib::Response& res) {
    ServeWatch(res, {R"({"type":"ERROR","object":)" +
                         StatusBody(410, "Expired", "too old resource version: 1 (40)") + "}\n",
                     R"({"type":"ADDED","object":{"metadata":{"name":"late"}}})"
                     "\n"});
  });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  Result<std::unique_ptr<Watch>> watch = client->StartWatch(resources::kPods, WatchFrom("1"));
  ASSERT_THAT(watch, IsOk());
  Error end;
  EXPECT_TRUE(Drain(**watch, end).empty());
  EXPECT_EQ(end.status, 410);
  EXPECT_EQ(end.reason, "Expired");
  EXPECT_EQ(end.message, "watch /api/v1/pods: too old resource version: 1 (40)");
}

TEST(FakeServerTest, AWatchTheServerRefusesFailsToStart) {
  FakeServer server;
  server->Get("/api/v1/pods", [&](const httplib::Request&, httplib::Response& res) {
    res.status = 403;
    res.set_content(StatusBody(403, "Forbidden", "pods is forbidden"), "application/json");
  });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  Result<std::unique_ptr<Watch>> watch = client->StartWatch(resources::kPods, WatchFrom("3"));
  ASSERT_FALSE(watch.ok());
  EXPECT_EQ(watch.error().status, 403);
  EXPECT_EQ(watch.error().reason, "Forbidden");
  EXPECT_EQ(watch.error().message, "GET /api/v1/pods: pods is forbidden");
}

TEST(FakeServerTest, AWatchFromNowStartsAtTheCollectionsCurrentVersion) {
  FakeServer server;
  std::mutex mu;
  std::vector<std::string> requests;
  server->Get("/api/v1/nodes", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu);
      requests.push_back(req.get_param_value("watch") + "|" + req.get_param_value("limit") + "|" +
                         req.get_param_value("resourceVersion"));
    }
    if (req.get_param_value("watch").empty()) {
      res.set_content(R"({"metadata":{"resourceVersion":"123"},"items":[]})", "application/json");
      return;
    }
    ServeWatch(res, {});
  });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  Result<std::unique_ptr<Watch>> watch = client->StartWatch(resources::kNodes, {});
  ASSERT_THAT(watch, IsOk());
  Error end;
  EXPECT_TRUE(Drain(**watch, end).empty());
  EXPECT_EQ(end.reason, "Closed");
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(requests, (std::vector<std::string>{"|1|", "1||123"}));
}

TEST(FakeServerTest, DestroyingAQuietWatchReturnsPromptly) {
  FakeServer server;
  const std::atomic<bool>& stopping = server.stopping();
  server->Get("/api/v1/pods", [&](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json;stream=watch",
                                     [&stopping](size_t, httplib::DataSink& sink) {
                                       // Says nothing for as long as the client listens (a blank
                                       // line now and then finds out whether it still does; the
                                       // client skips blank lines).
                                       while (!stopping.load() && sink.is_writable()) {
                                         std::this_thread::sleep_for(milliseconds(20));
                                         if (!sink.write("\n", 1)) break;
                                       }
                                       return false;
                                     });
  });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  Result<std::unique_ptr<Watch>> watch = client->StartWatch(resources::kPods, WatchFrom("1"));
  ASSERT_THAT(watch, IsOk());
  Result<std::optional<WatchEvent>> next = (*watch)->Next(milliseconds(100));
  ASSERT_THAT(next, IsOk());
  EXPECT_FALSE(next->has_value());
  const auto start = std::chrono::steady_clock::now();
  watch->reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));
}

TEST(FakeServerTest, AMalformedEventEndsTheWatch) {
  FakeServer server;
  server->Get("/api/v1/pods", [&](const httplib::Request&, httplib::Response& res) {
    ServeWatch(res, {"{not json\n"});
  });
  server.Start();
  std::unique_ptr<Client> client = server.NewClientFor();
  Result<std::unique_ptr<Watch>> watch = client->StartWatch(resources::kPods, WatchFrom("1"));
  ASSERT_THAT(watch, IsOk());
  Error end;
  EXPECT_TRUE(Drain(**watch, end).empty());
  EXPECT_EQ(end.reason, "Unavailable");
  EXPECT_EQ(end.message, "watch /api/v1/pods: malformed event from the server");
}

// KUBE_CLIENT_QPS/BURST: a burst of 2 goes at once, then one request per 1/qps. The server sees
// the third request no sooner than 50 ms after the first and the sixth no sooner than 200 ms (a
// lower bound, which a busy machine cannot break).
TEST(FakeServerTest, RequestsWaitTheirTurnUnderTheRateLimit) {
  FakeServer server;
  std::mutex mu;
  std::vector<std::chrono::steady_clock::time_point> arrivals;
  server->Get("/api/v1/namespaces/a/pods/x", [&](const httplib::Request&, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu);
      arrivals.push_back(std::chrono::steady_clock::now());
    }
    res.set_content(R"({"kind": "Pod", "metadata": {"name": "x", "namespace": "a"}})",
                    "application/json");
  });
  server.Start();
  Config config = server.BaseConfig();
  config.qps = 20;
  config.burst = 2;
  Result<std::unique_ptr<Client>> client = NewClient(config);
  ASSERT_THAT(client, IsOk());
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i) ASSERT_THAT((*client)->Get(resources::kPods, "a", "x"), IsOk());
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(arrivals.size(), 6U);
  EXPECT_GE(arrivals[2] - start, milliseconds(49));
  EXPECT_GE(arrivals[5] - start, milliseconds(199));
}

}  // namespace
}  // namespace karpenter::kube::http
