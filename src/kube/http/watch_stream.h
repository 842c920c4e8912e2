#pragma once
// A watch over one streaming HTTP response: the API server sends newline-delimited JSON events
// ({"type":"ADDED","object":{...}}) for as long as the request lasts. The transfer runs on a
// thread of its own that parses events into a queue; Watch::Next pops from it.

#include <chrono>
#include <memory>
#include <string>

#include "common/result.h"
#include "kube/client.h"
#include "kube/http/transport.h"
#include "kube/resource.h"

namespace karpenter::kube::http {

// Starts the request in `stream` (a GET of `path`, from Transport::OpenStream) and waits up to
// `wait` until the server has answered, so that every change after this returns is delivered.
// A non-2xx answer is returned as its Error. Objects in events get `resource`'s apiVersion and
// kind when they lack them.
Result<std::unique_ptr<Watch>> OpenWatch(Stream stream, std::string path, const Resource& resource,
                                         std::chrono::milliseconds wait);

}  // namespace karpenter::kube::http
