#include "kube/http/transport.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "common/curl_global.h"
#include "common/mutex.h"
#include "kube/http/api_error.h"
#include "kube/http/url.h"

namespace karpenter::kube::http {
namespace {

// The project has no release numbering yet; bump with it.
constexpr const char* kUserAgent = "User-Agent: karpenter-cpp/0.1.0";
// long: libcurl reads these options as long through varargs, so any other type is undefined.
constexpr long kConnectTimeoutMs = 10'000;  // NOLINT(google-runtime-int)
constexpr long kRequestTimeoutMs = 60'000;  // NOLINT(google-runtime-int)
constexpr int kTries = 3;
constexpr size_t kMaxIdleHandles = 8;

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Deleter {
  void operator()(X509* x509) const { X509_free(x509); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

std::unique_ptr<BIO, BioDeleter> MemoryBio(const std::string& text) {
  return std::unique_ptr<BIO, BioDeleter>(
      BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// Refuses to ask for a passphrase: OpenSSL's default callback would prompt on the terminal.
int NoPassphrase(char* /*buffer*/, int /*size*/, int /*rwflag*/, void* /*data*/) { return 0; }

// Parses the TLS material now, so that a bad file fails when the client is made rather than at
// the first request with an obscure TLS message. Messages name the setting, never its content.
Status CheckTlsMaterial(const Config& config) {
  // OpenSSL keeps errors in a per-thread queue; leave it empty for libcurl, which reads it.
  struct ClearErrors {
    ~ClearErrors() { ERR_clear_error(); }
  } clear;
  if (!config.certificate_authority.empty()) {
    auto bio = MemoryBio(config.certificate_authority);
    const std::unique_ptr<X509, X509Deleter> first(
        PEM_read_bio_X509(bio.get(), nullptr, &NoPassphrase, nullptr));
    if (first == nullptr) return Error{"certificate authority: no PEM certificate found"};
  }
  if (config.client_certificate.empty() != config.client_key.empty()) {
    return Error{"client certificate and client key must be given together"};
  }
  if (!config.client_certificate.empty()) {
    auto cert_bio = MemoryBio(config.client_certificate);
    const std::unique_ptr<X509, X509Deleter> cert(
        PEM_read_bio_X509(cert_bio.get(), nullptr, &NoPassphrase, nullptr));
    if (cert == nullptr) return Error{"client certificate: no PEM certificate found"};
    auto key_bio = MemoryBio(config.client_key);
    const std::unique_ptr<EVP_PKEY, KeyDeleter> key(
        PEM_read_bio_PrivateKey(key_bio.get(), nullptr, &NoPassphrase, nullptr));
    if (key == nullptr) {
      return Error{"client key: no unencrypted PEM private key found"};
    }
    if (X509_check_private_key(cert.get(), key.get()) != 1) {
      return Error{"client key does not belong to the client certificate"};
    }
  }
  return {};
}

// Connection-level failures where trying again may help. TLS verification and certificate
// problems are not among them: they are configuration, and retrying only delays the error.
bool Transient(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

bool TransientStatus(int status) { return status == 429 || (status >= 500 && status != 501); }

}  // namespace

struct Transport::Attempt {
  CURLcode code = CURLE_OK;  // CURLE_OK when a response arrived
  Result<Response> result;
};

Result<std::shared_ptr<Transport>> Transport::New(const Config& config) {
  if (const CURLcode code = InitCurl(); code != CURLE_OK) {
    return Error{std::string("libcurl initialisation failed: ") + curl_easy_strerror(code)};
  }
  ASSIGN_OR_RETURN(std::string server, NormalizeServer(config.server));
  RETURN_IF_ERROR(CheckTlsMaterial(config));
  if (config.insecure_skip_tls_verify && !config.certificate_authority.empty()) {
    return Error{"insecure_skip_tls_verify and a certificate authority are both set"};
  }
  std::shared_ptr<Transport> transport(new Transport(std::move(server), config));
  // The TLS blobs need libcurl 7.77 built with OpenSSL; an older or differently built libcurl
  // refuses the option, and would otherwise fail only at the first request.
  EasyHandle probe = transport->Acquire();
  if (probe == nullptr) return Error{"libcurl: cannot create a handle"};
  std::array<char, CURL_ERROR_SIZE> error{};
  if (const CURLcode code =
          transport->Setup(probe.get(), "GET", "/", {}, /*headers=*/nullptr, error.data());
      code != CURLE_OK) {
    return Error{std::string("libcurl cannot use this configuration: ") + curl_easy_strerror(code) +
                 " (needs libcurl >= 7.77 with OpenSSL)"};
  }
  transport->Release(std::move(probe));
  return transport;
}

Transport::Transport(std::string server, const Config& config)
    : server_(std::move(server)),
      certificate_authority_(config.certificate_authority),
      insecure_skip_tls_verify_(config.insecure_skip_tls_verify),
      client_certificate_(config.client_certificate),
      client_key_(config.client_key),
      token_(config.bearer_token, config.bearer_token_file),
      random_(std::random_device{}()) {
  if (config.qps > 0) limiter_.emplace(config.qps, std::max(config.burst, 1), clock_);
}

void Transport::AwaitTurn() {
  if (!limiter_) return;
  if (const std::chrono::nanoseconds wait = limiter_->Reserve(); wait.count() > 0) {
    std::this_thread::sleep_for(wait);
  }
}

CURLcode Transport::Setup(CURL* easy, std::string_view method, const std::string& path,
                          std::string_view body, curl_slist* headers, char* error_buffer) const {
  curl_easy_reset(easy);  // keeps the handle's live connections and TLS sessions
  const std::string url = server_ + path;
  // The options below are plain values libcurl accepts on every build; only the TLS blobs can be
  // refused, so only their results are checked.
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());  // libcurl copies strings
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  // Signals cannot interrupt a thread that is not the one that set the timer; without this,
  // libcurl's DNS timeouts use SIGALRM and crash multi-threaded programs.
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPIDLE, 30L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPINTVL, 10L);
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // gzip: large lists shrink ~10x
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);

  if (insecure_skip_tls_verify_) {
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  } else {
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
  }
  if (!certificate_authority_.empty()) {
    // Only the cluster's CA: libcurl skips its default bundle file when given a blob but still
    // reads a CA folder, so clear that too.
    curl_blob ca{const_cast<char*>(certificate_authority_.data()), certificate_authority_.size(),
                 CURL_BLOB_COPY};
    if (const CURLcode code = curl_easy_setopt(easy, CURLOPT_CAINFO_BLOB, &ca); code != CURLE_OK) {
      return code;
    }
    curl_easy_setopt(easy, CURLOPT_CAPATH, nullptr);
  }
  if (!client_certificate_.empty()) {
    curl_blob cert{const_cast<char*>(client_certificate_.data()), client_certificate_.size(),
                   CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(client_key_.data()), client_key_.size(), CURL_BLOB_COPY};
    if (const CURLcode code = curl_easy_setopt(easy, CURLOPT_SSLCERT_BLOB, &cert);
        code != CURLE_OK) {
      return code;
    }
    curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
    if (const CURLcode code = curl_easy_setopt(easy, CURLOPT_SSLKEY_BLOB, &key); code != CURLE_OK) {
      return code;
    }
    curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
  }

  if (method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else {
    const std::string method_text(method);
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method_text.c_str());
    if (!body.empty() || method == "POST") {
      // Not copied: the body outlives the transfer (Do waits for it).
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
      curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.data());
    }
  }
  return CURLE_OK;
}

Result<HeaderList> Transport::Headers(std::string_view content_type) {
  Result<std::string> token = token_.Get();
  if (!token.ok()) return Error{"bearer token: " + token.error().message};
  HeaderList list;
  const auto add = [&list](const std::string& line) {
    // curl_slist_append copies the line and returns the new head (null when out of memory).
    curl_slist* head = curl_slist_append(list.get(), line.c_str());
    if (head != nullptr) {
      (void)list.release();
      list.reset(head);
    }
  };
  add("Accept: application/json");
  add(kUserAgent);
  if (!content_type.empty()) add("Content-Type: " + std::string(content_type));
  // Without this, libcurl asks for and waits for a "100 Continue" before sending a large body:
  // an extra round trip that the API server does not need.
  add("Expect:");
  if (!token->empty()) add("Authorization: Bearer " + *token);
  return list;
}

EasyHandle Transport::Acquire() {
  {
    MutexLock lock(mu_);
    if (!idle_.empty()) {
      EasyHandle easy = std::move(idle_.back());
      idle_.pop_back();
      return easy;
    }
  }
  return EasyHandle(curl_easy_init());
}

void Transport::Release(EasyHandle easy) {
  // Nothing may point into the finished request's stack frame.
  curl_easy_setopt(easy.get(), CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(easy.get(), CURLOPT_WRITEDATA, nullptr);
  curl_easy_setopt(easy.get(), CURLOPT_HTTPHEADER, nullptr);
  MutexLock lock(mu_);
  if (idle_.size() < kMaxIdleHandles) idle_.push_back(std::move(easy));
}

std::chrono::milliseconds Transport::Backoff(int attempt) {
  // 100 ms, 200 ms, ... capped at 1 s, each between half and all of that (jitter spreads the
  // retries of many clients hitting the same overloaded server).
  const int64_t ceiling = std::min<int64_t>(1000, int64_t{100} << std::min(attempt - 1, 4));
  MutexLock lock(mu_);
  std::uniform_int_distribution<int64_t> pick(ceiling / 2, ceiling);
  return std::chrono::milliseconds(pick(random_));
}

Transport::Attempt Transport::Once(const Request& request) {
  const std::string_view path = PathWithoutQuery(request.path);
  Result<HeaderList> headers = Headers(request.body.empty() ? "" : request.content_type);
  if (!headers.ok()) {
    return {CURLE_OK, TransportError(request.method, path, headers.error().message)};
  }
  EasyHandle easy = Acquire();
  if (easy == nullptr) {
    return {CURLE_OUT_OF_MEMORY, TransportError(request.method, path, "cannot create a handle")};
  }
  std::array<char, CURL_ERROR_SIZE> error{};
  Response response;
  CURLcode code =
      Setup(easy.get(), request.method, request.path, request.body, headers->get(), error.data());
  if (code == CURLE_OK) {
    curl_easy_setopt(easy.get(), CURLOPT_TIMEOUT_MS, kRequestTimeoutMs);
    curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, &AppendToString);
    curl_easy_setopt(easy.get(), CURLOPT_WRITEDATA, &response.body);
    code = curl_easy_perform(easy.get());
  }
  if (code != CURLE_OK) {
    const std::string message = error[0] != '\0' ? error.data() : curl_easy_strerror(code);
    Release(std::move(easy));
    return {code, TransportError(request.method, path, message)};
  }
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type
  curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  Release(std::move(easy));
  return {CURLE_OK, std::move(response)};
}

Result<Response> Transport::Do(const Request& request) {
  const bool idempotent = request.method == "GET";
  for (int attempt = 1;; ++attempt) {
    AwaitTurn();
    Attempt outcome = Once(request);
    bool retry = false;
    if (!outcome.result.ok()) {
      // A refused connection sent nothing, so even a write can be tried again.
      retry = outcome.code == CURLE_COULDNT_CONNECT || (idempotent && Transient(outcome.code));
    } else {
      retry = idempotent && TransientStatus(outcome.result->status);
    }
    if (!retry || attempt == kTries) return std::move(outcome.result);
    std::this_thread::sleep_for(Backoff(attempt));
  }
}

Result<Stream> Transport::OpenStream(const std::string& path, std::chrono::seconds idle) {
  AwaitTurn();
  Result<HeaderList> headers = Headers("");
  if (!headers.ok()) return TransportError("GET", path, headers.error().message);
  Stream stream{EasyHandle(curl_easy_init()), std::move(*headers),
                std::make_unique<std::array<char, CURL_ERROR_SIZE>>()};
  if (stream.easy == nullptr) return TransportError("GET", path, "cannot create a handle");
  (*stream.error_buffer)[0] = '\0';
  if (const CURLcode code = Setup(stream.easy.get(), "GET", path, {}, stream.headers.get(),
                                  stream.error_buffer->data());
      code != CURLE_OK) {
    return TransportError("GET", path, curl_easy_strerror(code));
  }
  // No total timeout: a watch lasts as long as the server keeps it (its timeoutSeconds). A
  // connection that carries nothing for `idle` is dead, though, and gives up.
  curl_easy_setopt(stream.easy.get(), CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(stream.easy.get(), CURLOPT_LOW_SPEED_TIME,
                   static_cast<long>(idle.count()));  // NOLINT(google-runtime-int)
  return stream;
}

}  // namespace karpenter::kube::http
