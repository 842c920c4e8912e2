#include "aws/sdk/curl_transport.h"

#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "aws/sdk/sigv4.h"
#include "common/curl_global.h"
#include "common/mutex.h"

namespace karpenter::aws {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                           text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

// libcurl hands over one header line at a time, status lines included; a status line after an
// interim 1xx response starts the final response's headers afresh.
size_t AppendHeader(char* data, size_t size, size_t count, void* out) {
  auto* headers = static_cast<HttpHeaders*>(out);
  const std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    headers->clear();
  } else if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    headers->emplace_back(std::string(Trim(line.substr(0, colon))),
                          std::string(Trim(line.substr(colon + 1))));
  }
  return size * count;
}

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;

// Returns false when libcurl runs out of memory.
bool Append(HeaderList& list, const std::string& line) {
  curl_slist* head = curl_slist_append(list.get(), line.c_str());
  if (head == nullptr) return false;
  (void)list.release();  // `head` now owns the previous nodes
  list.reset(head);
  return true;
}

// Null when libcurl runs out of memory.
HeaderList Headers(const HttpRequest& request) {
  HeaderList list;
  for (const auto& [name, value] : request.headers) {
    // "Name:" would tell libcurl to drop the header; "Name;" sends it empty.
    std::string line = name;
    line.append(value.empty() ? ";" : ": ").append(value);
    if (!Append(list, line)) return nullptr;
  }
  // A request that names no content type sends none: libcurl would call the body (even an empty
  // one, as of a DELETE) a form, which a service may read as a Query-protocol call.
  if (HeaderValue(request.headers, "Content-Type").empty() && !Append(list, "Content-Type:")) {
    return nullptr;
  }
  // Without this libcurl waits for "100 Continue" before sending a large body: a round trip
  // that AWS endpoints do not need.
  if (!Append(list, "Expect:")) return nullptr;
  return list;
}

// The path and query encoded exactly as SigV4's canonical request encodes them, so that what
// is sent is what was signed.
std::string Url(const HttpRequest& request) {
  std::string url =
      request.scheme + "://" + request.host +
      (request.path_encoded ? request.path
                            : UriEncode(request.path.empty() ? "/" : request.path, true));
  char separator = '?';
  for (const auto& [name, value] : request.query) {
    url.push_back(separator);
    url.append(UriEncode(name, false)).append("=").append(UriEncode(value, false));
    separator = '&';
  }
  return url;
}

}  // namespace

CurlTransport::CurlTransport(CurlTransportOptions options) : options_(options) {
  if (InitCurl() == CURLE_OK) easy_ = curl_easy_init();
}

CurlTransport::~CurlTransport() {
  if (easy_ != nullptr) curl_easy_cleanup(easy_);
}

Result<HttpResponse> CurlTransport::Send(const HttpRequest& request) {
  // Errors name the request without its query, which a presigned URL would fill with secrets.
  const std::string target = request.method + " " + request.scheme + "://" + request.host +
                             (request.path.empty() ? "/" : request.path);
  const auto failure = [&](std::string_view reason, std::string_view code) {
    return Error{target + ": " + std::string(reason), 0, std::string(code)};
  };
  MutexLock lock(mutex_);
  if (easy_ == nullptr) return failure("libcurl could not be initialised", "ConnectionError");
  const HeaderList headers = Headers(request);
  if (headers == nullptr) return failure("out of memory building the headers", "ConnectionError");

  // Clears the previous request's options but keeps the handle's open connections.
  curl_easy_reset(easy_);
  std::array<char, CURL_ERROR_SIZE> error_buffer{};
  HttpResponse response;
  const std::string url = Url(request);  // libcurl copies string options
  curl_easy_setopt(easy_, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy_, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, error_buffer.data());
  // Timeouts use alarms otherwise, which are not safe with several threads.
  curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);
  // long: libcurl reads these through varargs as long.
  curl_easy_setopt(
      easy_, CURLOPT_CONNECTTIMEOUT_MS,
      static_cast<long>(options_.connect_timeout.count()));  // NOLINT(google-runtime-int)
  curl_easy_setopt(easy_, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(options_.timeout.count()));  // NOLINT(google-runtime-int)
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, &AppendToString);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(easy_, CURLOPT_HEADERFUNCTION, &AppendHeader);
  curl_easy_setopt(easy_, CURLOPT_HEADERDATA, &response.headers);
  if (request.method == "GET") {
    curl_easy_setopt(easy_, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    curl_easy_setopt(easy_, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    // The body is not copied: it lives in `request` until curl_easy_perform returns.
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, request.body.data());
  }

  const CURLcode code = curl_easy_perform(easy_);
  if (code != CURLE_OK) {
    const std::string reason =
        error_buffer[0] != '\0' ? error_buffer.data() : curl_easy_strerror(code);
    return failure(reason, code == CURLE_OPERATION_TIMEDOUT ? "RequestTimeout" : "ConnectionError");
  }
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace karpenter::aws
