#include "kube/http/url.h"

namespace karpenter::kube::http {

std::string Escape(std::string_view text) {
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                            (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' ||
                            byte == '_' || byte == '~';
    if (unreserved) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
  return out;
}

std::string ResourcePath(const Resource& resource, std::string_view namespace_,
                         std::string_view name, std::string_view subresource) {
  std::string path = resource.group.empty() ? "/api/" : "/apis/";
  if (!resource.group.empty()) path.append(resource.group).append("/");
  path.append(resource.version);
  if (resource.namespaced && !namespace_.empty()) {
    path.append("/namespaces/").append(Escape(namespace_));
  }
  path.append("/").append(resource.plural);
  if (!name.empty()) {
    path.append("/").append(Escape(name));
    if (!subresource.empty()) path.append("/").append(subresource);
  }
  return path;
}

std::string_view PathWithoutQuery(std::string_view path_and_query) {
  return path_and_query.substr(0, path_and_query.find('?'));
}

Query& Query::Add(std::string_view key, std::string_view value) {
  if (value.empty()) return *this;
  text_.append(text_.empty() ? "?" : "&").append(key).append("=").append(Escape(value));
  return *this;
}

std::string Query::Apply(std::string path) const { return path.append(text_); }

Result<std::string> NormalizeServer(std::string_view server) {
  const auto fail = [&](std::string_view why) {
    return Error{"server URL \"" + std::string(server) + "\": " + std::string(why)};
  };
  if (server.find('@') != std::string_view::npos) {
    // Not echoed: the URL may hold a password.
    return Error{"server URL: must not carry credentials (use the kubeconfig's user)"};
  }
  std::string_view rest = server;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    return fail("must start with https:// (or http://)");
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return fail("must not have a query or fragment");
  }
  if (rest.find_first_of(" \t\r\n") != std::string_view::npos) return fail("contains spaces");
  const std::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.empty() || authority.starts_with(":")) return fail("has no host");
  std::string out(server);
  while (out.ends_with('/')) out.pop_back();
  return out;
}

}  // namespace karpenter::kube::http
