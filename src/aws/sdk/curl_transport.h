#pragma once
// The production HttpTransport: libcurl, with one easy handle kept for the transport's life so
// that consecutive requests to an endpoint reuse its connection (and TLS session).
//
// Thread safety: Send holds a mutex for the whole request, so a transport shared by several
// threads serializes their requests. Give each busy thread its own transport for parallelism.

#include <curl/curl.h>

#include <chrono>
#include <mutex>

#include "aws/sdk/http_transport.h"
#include "common/mutex.h"

namespace karpenter::aws {

struct CurlTransportOptions {
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds timeout{30000};  // the whole request, connecting included
};

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(CurlTransportOptions options = {});
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  // Sends to scheme://host/path?query with the path and query percent-encoded as SigV4
  // canonicalizes them. Failures without a response are Errors with status 0 and reason
  // "RequestTimeout" or "ConnectionError", naming the host and libcurl's reason.
  Result<HttpResponse> Send(const HttpRequest& request) override;

 private:
  CurlTransportOptions options_;
  Mutex mutex_;
  // Null when libcurl could not be initialised; Send then fails.
  CURL* easy_ GUARDED_BY(mutex_) = nullptr;
};

}  // namespace karpenter::aws
