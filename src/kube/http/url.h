#pragma once
// Paths and query strings of the Kubernetes REST API. Internal to kube/http; a header of its own
// so that tests can check the URLs without a server.

#include <string>
#include <string_view>

#include "common/result.h"
#include "kube/resource.h"

namespace karpenter::kube::http {

// Percent-encodes everything but RFC 3986's unreserved characters, so the result is safe both as
// a path segment and as a query value ("app in (a,b)" -> "app%20in%20%28a%2Cb%29").
std::string Escape(std::string_view text);

// "/api/v1/namespaces/ns/pods/name/status" for the core group, "/apis/apps/v1/..." for others.
// `namespace_` is ignored for cluster-scoped resources; empty for a namespaced one means every
// namespace. `name` empty: the collection. `subresource` is appended after the name.
std::string ResourcePath(const Resource& resource, std::string_view namespace_,
                         std::string_view name = {}, std::string_view subresource = {});

// The path of "path?query", for messages (queries can be long: continue tokens).
std::string_view PathWithoutQuery(std::string_view path_and_query);

// Builds "?a=1&b=x%20y"; parameters with empty values are left out.
class Query {
 public:
  Query& Add(std::string_view key, std::string_view value);
  // `path` followed by the query string (nothing when no parameter was added).
  std::string Apply(std::string path) const;

 private:
  std::string text_;
};

// The server URL as requests are built on it: "http" or "https", a host, optionally a port and a
// path prefix (servers behind a proxy), without a trailing slash. An error for anything else.
Result<std::string> NormalizeServer(std::string_view server);

}  // namespace karpenter::kube::http
