#include "kube/http/config.h"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

#include "common/base64.h"
#include "common/read_file.h"
#include "kube/http/bearer_token.h"

namespace karpenter::kube::http {
namespace {

// yaml-cpp's type tests throw on a node that is absent (a "zombie"); this one does not.
bool IsMap(const YAML::Node& node) { return node.IsDefined() && node.IsMap(); }

// Walks one kubeconfig document; every error names the file and the field path.
class Kubeconfig {
 public:
  Kubeconfig(std::string path, const YAML::Node& root)
      : path_(std::move(path)), folder_(std::filesystem::path(path_).parent_path()), root_(root) {}

  Error Fail(std::string_view field, std::string_view message) const {
    std::string text = "kubeconfig " + path_ + ": ";
    if (!field.empty()) text.append(field).append(": ");
    text.append(message);
    return Error{std::move(text)};
  }

  // The string at `node`, nullopt when absent or null.
  Result<std::optional<std::string>> String(const YAML::Node& node,
                                            const std::string& field) const {
    if (!node.IsDefined() || node.IsNull()) return std::optional<std::string>();
    if (!node.IsScalar()) return Fail(field, "expected a string");
    return std::optional<std::string>(node.Scalar());
  }

  // The element of the list `list` ("contexts", "clusters", "users") named `name`, and its
  // field path ("users[2]").
  Result<std::pair<YAML::Node, std::string>> Named(const std::string& list,
                                                   const std::string& name) const {
    const YAML::Node entries = root_[list];
    const bool present = entries.IsDefined() && !entries.IsNull();
    if (present && !entries.IsSequence()) return Fail(list, "expected a list");
    std::string known;
    for (size_t i = 0; present && i < entries.size(); ++i) {
      const std::string field = list + "[" + std::to_string(i) + "]";
      if (!entries[i].IsMap()) return Fail(field, "expected a mapping");
      ASSIGN_OR_RETURN(std::optional<std::string> entry_name,
                       String(entries[i]["name"], field + ".name"));
      if (!entry_name.has_value()) continue;
      if (*entry_name == name) return std::make_pair(entries[i], field);
      known.append(known.empty() ? "" : ", ").append(*entry_name);
    }
    // The singular of the list's name: "context", "cluster", "user".
    std::string what = list.substr(0, list.size() - 1);
    return Fail("", what + " \"" + name + "\" not found (" + list + ": " +
                        (known.empty() ? "none" : known) + ")");
  }

  // A file named by the kubeconfig: relative paths are relative to its folder.
  Result<std::string> ReadReferenced(const std::string& file, const std::string& field) const {
    std::filesystem::path resolved(file);
    if (resolved.is_relative()) resolved = folder_ / resolved;
    Result<std::string> text = ReadFile(resolved.string());
    if (!text.ok()) return Fail(field, text.error().message);
    return text;
  }

  // PEM text given either inline (`<name>-data`, base64) or as a file (`<name>`), never both.
  Result<std::string> Pem(const YAML::Node& section, const std::string& section_field,
                          const std::string& name) const {
    const std::string file_field = section_field + "." + name;
    const std::string data_field = file_field + "-data";
    ASSIGN_OR_RETURN(std::optional<std::string> file, String(section[name], file_field));
    ASSIGN_OR_RETURN(std::optional<std::string> data, String(section[name + "-data"], data_field));
    if (file.has_value() && data.has_value()) {
      return Fail(section_field, name + " and " + name + "-data are both set; keep one");
    }
    if (data.has_value()) {
      Result<std::string> decoded = DecodeBase64(*data);
      // Neither the text nor its position in it: the field may hold a private key.
      if (!decoded.ok()) return Fail(data_field, "not valid base64");
      return std::move(*decoded);
    }
    if (file.has_value()) return ReadReferenced(*file, file_field);
    return std::string();
  }

  Status ReadCluster(const std::string& name, Config& config) const {
    ASSIGN_OR_RETURN(auto entry, Named("clusters", name));
    const std::string field = entry.second + ".cluster";
    const YAML::Node cluster = entry.first["cluster"];
    if (!IsMap(cluster)) return Fail(field, "expected a mapping");

    ASSIGN_OR_RETURN(std::optional<std::string> server,
                     String(cluster["server"], field + ".server"));
    if (!server.has_value() || server->empty()) return Fail(field + ".server", "required");
    config.server = *server;

    for (const char* unsupported : {"tls-server-name", "proxy-url"}) {
      if (cluster[unsupported].IsDefined() && !cluster[unsupported].IsNull()) {
        return Fail(field + "." + unsupported, "not supported by this client");
      }
    }

    ASSIGN_OR_RETURN(std::string ca, Pem(cluster, field, "certificate-authority"));
    config.certificate_authority = std::move(ca);

    const YAML::Node insecure = cluster["insecure-skip-tls-verify"];
    if (insecure.IsDefined() && !insecure.IsNull()) {
      bool value = false;
      if (!insecure.IsScalar() || !YAML::convert<bool>::decode(insecure, value)) {
        return Fail(field + ".insecure-skip-tls-verify", "expected true or false");
      }
      config.insecure_skip_tls_verify = value;
    }
    if (config.insecure_skip_tls_verify && !config.certificate_authority.empty()) {
      // As kubectl: a CA that is then not checked is a configuration mistake.
      return Fail(field, "insecure-skip-tls-verify and a certificate-authority are both set");
    }
    return {};
  }

  Status ReadUser(const std::string& name, Config& config) const {
    ASSIGN_OR_RETURN(auto entry, Named("users", name));
    const std::string field = entry.second + ".user";
    const YAML::Node user = entry.first["user"];
    if (!user.IsDefined() || user.IsNull()) return {};  // anonymous
    if (!user.IsMap()) return Fail(field, "expected a mapping");

    if (user["exec"].IsDefined()) {
      return Fail(field + ".exec",
                  "exec credential plugins are not supported; use a token, tokenFile or client "
                  "certificate");
    }
    if (user["auth-provider"].IsDefined()) {
      return Fail(field + ".auth-provider",
                  "auth-provider plugins are not supported; use a token, tokenFile or client "
                  "certificate");
    }
    for (const char* unsupported : {"username", "password"}) {
      if (user[unsupported].IsDefined()) {
        return Fail(field + "." + unsupported,
                    "basic authentication is not supported (Kubernetes removed it in 1.19)");
      }
    }

    ASSIGN_OR_RETURN(std::optional<std::string> token, String(user["token"], field + ".token"));
    if (token.has_value()) config.bearer_token = *token;

    ASSIGN_OR_RETURN(std::optional<std::string> token_file,
                     String(user["tokenFile"], field + ".tokenFile"));
    if (token_file.has_value()) {
      std::filesystem::path resolved(*token_file);
      if (resolved.is_relative()) resolved = folder_ / resolved;
      // Read now so that a missing file fails here, naming the field; the client reads it again
      // whenever it changes.
      Result<std::string> read = ReadTokenFile(resolved.string());
      if (!read.ok()) return Fail(field + ".tokenFile", read.error().message);
      config.bearer_token = std::move(*read);
      config.bearer_token_file = resolved.string();
    }

    ASSIGN_OR_RETURN(std::string certificate, Pem(user, field, "client-certificate"));
    ASSIGN_OR_RETURN(std::string key, Pem(user, field, "client-key"));
    if (certificate.empty() != key.empty()) {
      return Fail(field, certificate.empty() ? "client-key is set without a client-certificate"
                                             : "client-certificate is set without a client-key");
    }
    config.client_certificate = std::move(certificate);
    config.client_key = std::move(key);
    return {};
  }

  Result<Config> Read(const std::string& context_override) const {
    if (!root_.IsMap()) return Fail("", "expected a mapping at the top level");
    std::string context = context_override;
    if (context.empty()) {
      ASSIGN_OR_RETURN(std::optional<std::string> current,
                       String(root_["current-context"], "current-context"));
      if (!current.has_value() || current->empty()) {
        return Fail("current-context", "not set, and no context was given");
      }
      context = *current;
    }
    ASSIGN_OR_RETURN(auto entry, Named("contexts", context));
    const std::string field = entry.second + ".context";
    const YAML::Node body = entry.first["context"];
    if (!IsMap(body)) return Fail(field, "expected a mapping");

    Config config;
    ASSIGN_OR_RETURN(std::optional<std::string> cluster,
                     String(body["cluster"], field + ".cluster"));
    if (!cluster.has_value() || cluster->empty()) return Fail(field + ".cluster", "required");
    RETURN_IF_ERROR(ReadCluster(*cluster, config));

    ASSIGN_OR_RETURN(std::optional<std::string> user, String(body["user"], field + ".user"));
    if (user.has_value() && !user->empty()) {
      RETURN_IF_ERROR(ReadUser(*user, config));
    }

    ASSIGN_OR_RETURN(std::optional<std::string> namespace_,
                     String(body["namespace"], field + ".namespace"));
    if (namespace_.has_value()) config.namespace_ = *namespace_;
    return config;
  }

 private:
  std::string path_;
  std::filesystem::path folder_;
  YAML::Node root_;
};

}  // namespace

Result<Config> LoadKubeconfig(const std::string& path, const std::string& context) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return Error{"kubeconfig: " + text.error().message};
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp counts lines and columns from 0.
    return Error{"kubeconfig " + path + ":" + std::to_string(e.mark.line + 1) + ":" +
                 std::to_string(e.mark.column + 1) + ": " + e.msg};
  }
  try {
    return Kubeconfig(path, root).Read(context);
  } catch (const YAML::Exception& e) {
    // Not expected (every access checks the node's type first), but never let it escape.
    return Error{"kubeconfig " + path + ": " + e.msg};
  }
}

Result<Config> InClusterConfig(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return Error{
        "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not "
        "running in a pod?)"};
  }
  Config config;
  const std::string_view host_text(host);
  // An IPv6 address needs brackets in a URL: https://[fd00::1]:443.
  const bool ipv6 = host_text.find(':') != std::string_view::npos && host_text.front() != '[';
  config.server =
      std::string("https://") + (ipv6 ? "[" : "") + host + (ipv6 ? "]" : "") + ":" + port;

  const std::string token_file = root + "/token";
  Result<std::string> token = ReadTokenFile(token_file);
  if (!token.ok()) return Error{"in-cluster config: " + token.error().message};
  config.bearer_token = std::move(*token);
  config.bearer_token_file = token_file;

  Result<std::string> ca = ReadFile(root + "/ca.crt");
  if (!ca.ok()) return Error{"in-cluster config: " + ca.error().message};
  config.certificate_authority = std::move(*ca);

  // Optional: the namespace the pod runs in.
  if (Result<std::string> ns = ReadTokenFile(root + "/namespace"); ns.ok()) {
    config.namespace_ = std::move(*ns);
  }
  return config;
}

}  // namespace karpenter::kube::http
