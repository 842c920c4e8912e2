#pragma once
// Errors from the API server's answers. A failed request's body is a Status object
// ({"kind":"Status","code":404,"reason":"NotFound","message":"pods \"x\" not found"}); the Error
// keeps its HTTP code and reason so callers can act on them, and its message says which request
// failed: "GET /api/v1/namespaces/a/pods/x: pods \"x\" not found".

#include <string_view>

#include "common/json.h"
#include "common/result.h"

namespace karpenter::kube::http {

// The reason the API server gives for an HTTP status when a body has none ("NotFound" for 404).
std::string_view ReasonForStatus(int status);

// For a non-2xx response: status = `status`, reason and message from the body's Status (or, for
// a body that is not one, from the HTTP status and the start of the body).
Error ResponseError(std::string_view method, std::string_view path, int status,
                    std::string_view body);

// For a Status object outside a response, such as a watch's ERROR event. `context` prefixes the
// message.
Error StatusError(std::string_view context, const Json& status);

// A request that got no HTTP answer (connection refused, TLS failure, timeout): status 0, reason
// "Unavailable".
Error TransportError(std::string_view method, std::string_view path, std::string_view message);

}  // namespace karpenter::kube::http
