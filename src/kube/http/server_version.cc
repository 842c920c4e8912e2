#include "kube/http/server_version.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <utility>

#include "common/json.h"
#include "kube/http/transport.h"

namespace karpenter::kube::http {
namespace {

// The leading digits of `text` ("31+" → "31").
std::string Digits(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) break;
    out += c;
  }
  return out;
}

}  // namespace

RefreshingServerVersion::RefreshingServerVersion(std::string first,
                                                 std::function<Result<std::string>()> read,
                                                 const Clock& clock, std::chrono::nanoseconds every)
    : read_(std::move(read)),
      clock_(clock),
      every_(every),
      version_(std::move(first)),
      next_read_(clock.Monotonic() + every) {}

std::string RefreshingServerVersion::Get() {
  MutexLock lock(mutex_);
  const MonoTime now = clock_.Monotonic();
  if (now < next_read_) return version_;
  // Held while reading: callers at the same moment wait for the one read instead of each reading.
  if (Result<std::string> read = read_(); read.ok()) {
    version_ = std::move(*read);
    next_read_ = now + every_;
  } else {
    next_read_ = now + std::min<std::chrono::nanoseconds>(every_, std::chrono::minutes(1));
  }
  return version_;
}

Result<std::string> ParseServerVersion(std::string_view body) {
  const Json version = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!version.is_object()) return Error("GET /version: the answer is not a JSON object");
  const auto text = [&](const char* key) {
    const auto it = version.find(key);
    return it != version.end() && it->is_string() ? Digits(it->get_ref<const std::string&>())
                                                  : std::string();
  };
  const std::string major = text("major");
  const std::string minor = text("minor");
  if (major.empty() || minor.empty()) {
    return Error("GET /version: no numeric major and minor version in " + std::string(body));
  }
  return major + "." + minor;
}

Result<std::string> ServerVersion(const Config& config) {
  ASSIGN_OR_RETURN(std::shared_ptr<Transport> transport, Transport::New(config));
  Request request;
  request.path = "/version";
  ASSIGN_OR_RETURN(Response response, transport->Do(request));
  if (response.status != 200) {
    return Error("GET " + transport->server() + "/version: HTTP " + std::to_string(response.status),
                 response.status, "");
  }
  return ParseServerVersion(response.body);
}

}  // namespace karpenter::kube::http
