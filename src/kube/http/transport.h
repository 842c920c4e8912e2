#pragma once
// The HTTP layer under the client: libcurl easy handles set up for one API server (TLS material,
// credentials, timeouts, headers) and reused from a small pool, so that requests on different
// threads each get a handle while connections stay alive between requests.

#include <curl/curl.h>

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/token_bucket.h"
#include "kube/http/bearer_token.h"
#include "kube/http/config.h"

namespace karpenter::kube::http {

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;

struct HeaderListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using HeaderList = std::unique_ptr<curl_slist, HeaderListDeleter>;

struct Request {
  std::string_view method = "GET";  // GET, POST, PUT, PATCH, DELETE
  std::string path;                 // path and query, after the server URL
  std::string_view body;            // sent when not empty
  std::string_view content_type = "application/json";
};

struct Response {
  int status = 0;
  std::string body;
};

// A handle for one long-running GET (a watch) and what it points to, which must outlive the
// transfer. The caller installs the write and header callbacks and runs it.
struct Stream {
  EasyHandle easy;
  HeaderList headers;
  std::unique_ptr<std::array<char, CURL_ERROR_SIZE>> error_buffer;
};

class Transport {
 public:
  // Checks the TLS material (PEM that parses, a key that matches its certificate) and the server
  // URL; does not connect.
  static Result<std::shared_ptr<Transport>> New(const Config& config);

  // Sends one request and waits for the whole response. Errors are for requests that got no
  // response (status 0, reason "Unavailable"); a non-2xx response is a Response. GETs are
  // retried on connection errors, 5xx and 429 (three tries, a short capped backoff); other
  // methods only when the connection was refused, so before anything was sent.
  Result<Response> Do(const Request& request);

  // A GET of `path` with no total timeout: it fails after `idle` without a byte instead.
  Result<Stream> OpenStream(const std::string& path, std::chrono::seconds idle);

  const std::string& server() const { return server_; }

  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

 private:
  struct Attempt;

  Transport(std::string server, const Config& config);

  Attempt Once(const Request& request);
  // Sets every option of a request on a fresh or reset handle: the URL, TLS, timeouts, method,
  // body and headers.
  CURLcode Setup(CURL* easy, std::string_view method, const std::string& path,
                 std::string_view body, curl_slist* headers, char* error_buffer) const;
  Result<HeaderList> Headers(std::string_view content_type);
  EasyHandle Acquire();
  void Release(EasyHandle easy);
  std::chrono::milliseconds Backoff(int attempt);
  // Waits for the rate limiter's token, when there is a limit.
  void AwaitTurn();

  const std::string server_;
  const std::string certificate_authority_;
  const bool insecure_skip_tls_verify_;
  const std::string client_certificate_;
  const std::string client_key_;
  BearerToken token_;
  const RealClock clock_;
  std::optional<TokenBucket> limiter_;  // none without a limit

  Mutex mu_;
  std::vector<EasyHandle> idle_ GUARDED_BY(mu_);
  std::minstd_rand random_ GUARDED_BY(mu_);
};

}  // namespace karpenter::kube::http
