#pragma once
// kube::Client for a real API server over HTTPS (libcurl): JSON bodies, paginated lists,
// streaming watches, and errors mapped from the server's Status objects.
//
// Errors say which request failed ("GET /api/v1/namespaces/a/pods/x: pods \"x\" not found") and
// carry the HTTP status and the Status's reason; a request that got no answer (refused, TLS
// failure, timeout) has status 0 and reason "Unavailable". Reads are retried a few times on
// connection errors, 5xx and 429; writes only when the connection was refused.

#include <memory>

#include "common/result.h"
#include "kube/client.h"
#include "kube/http/config.h"

namespace karpenter::kube::http {

// Safe to share between threads. Fails when the configuration is unusable (unreadable CA or
// client key, malformed server URL); does not contact the server.
Result<std::unique_ptr<Client>> NewClient(const Config& config);

}  // namespace karpenter::kube::http
