#include "aws/sdk/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <ctime>
#include <map>

namespace karpenter::aws {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

std::string Hex(const unsigned char* data, size_t size) {
  static constexpr std::string_view kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[data[i] >> 4]);
    out.push_back(kDigits[data[i] & 0xF]);
  }
  return out;
}

std::string Hmac(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &size);
  return {reinterpret_cast<const char*>(out.data()), size};
}

// "20150830T123600Z" and "20150830".
std::string AmzDate(TimePoint time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(
      std::chrono::time_point_cast<std::chrono::system_clock::duration>(time));
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::array<char, 17> text{};
  std::strftime(text.data(), text.size(), "%Y%m%dT%H%M%SZ", &utc);
  return text.data();
}

std::string Scope(const SigningScope& scope) {
  return AmzDate(scope.time).substr(0, 8) + "/" + scope.region + "/" + scope.service +
         "/aws4_request";
}

// The secret, through HMACs of the date, region, service and "aws4_request" (raw bytes).
std::string SigningKey(std::string_view secret_access_key, const SigningScope& scope) {
  const std::string date =
      Hmac("AWS4" + std::string(secret_access_key), AmzDate(scope.time).substr(0, 8));
  return Hmac(Hmac(Hmac(date, scope.region), scope.service), "aws4_request");
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Leading and trailing spaces dropped, runs of spaces inside made one.
std::string TrimmedValue(std::string_view value) {
  std::string out;
  bool space = false;
  for (const char c : value) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string UriEncode(std::string_view text, bool keep_slashes) {
  static constexpr std::string_view kDigits = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slashes && c == '/')) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kDigits[byte >> 4]);
      out.push_back(kDigits[byte & 0xF]);
    }
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &size, EVP_sha256(), nullptr);
  return Hex(out.data(), size);
}

std::string CanonicalRequest(const HttpRequest& request, std::string* signed_headers) {
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [name, value] : request.query) {
    query.emplace_back(UriEncode(name, false), UriEncode(value, false));
  }
  std::sort(query.begin(), query.end());
  std::string canonical_query;
  for (const auto& [name, value] : query) {
    if (!canonical_query.empty()) canonical_query.push_back('&');
    canonical_query.append(name).append("=").append(value);
  }
  std::map<std::string, std::string> headers;  // sorted by lowercase name
  for (const auto& [name, value] : request.headers) {
    std::string& joined = headers[Lower(name)];
    if (!joined.empty()) joined.push_back(',');
    joined.append(TrimmedValue(value));
  }
  std::string canonical_headers;
  std::string names;
  for (const auto& [name, value] : headers) {
    canonical_headers.append(name).append(":").append(value).append("\n");
    if (!names.empty()) names.push_back(';');
    names.append(name);
  }
  if (signed_headers != nullptr) *signed_headers = names;
  return request.method + "\n" + UriEncode(request.path.empty() ? "/" : request.path, true) + "\n" +
         canonical_query + "\n" + canonical_headers + "\n" + names + "\n" + Sha256Hex(request.body);
}

std::string StringToSign(const HttpRequest& request, const SigningScope& scope) {
  return std::string(kAlgorithm) + "\n" + AmzDate(scope.time) + "\n" + Scope(scope) + "\n" +
         Sha256Hex(CanonicalRequest(request));
}

std::string SigningKeyHex(std::string_view secret_access_key, const SigningScope& scope) {
  const std::string key = SigningKey(secret_access_key, scope);
  return Hex(reinterpret_cast<const unsigned char*>(key.data()), key.size());
}

std::string Signature(const HttpRequest& request, const Credentials& credentials,
                      const SigningScope& scope) {
  const std::string signature =
      Hmac(SigningKey(credentials.secret_access_key, scope), StringToSign(request, scope));
  return Hex(reinterpret_cast<const unsigned char*>(signature.data()), signature.size());
}

void Sign(HttpRequest& request, const Credentials& credentials, const SigningScope& scope) {
  auto has = [&](std::string_view name) {
    return std::any_of(request.headers.begin(), request.headers.end(),
                       [&](const auto& header) { return Lower(header.first) == name; });
  };
  if (!has("host")) request.headers.emplace_back("Host", request.host);
  request.headers.emplace_back("X-Amz-Date", AmzDate(scope.time));
  if (!credentials.session_token.empty()) {
    request.headers.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  std::string signed_headers;
  (void)CanonicalRequest(request, &signed_headers);
  request.headers.emplace_back(
      "Authorization", std::string(kAlgorithm) + " Credential=" + credentials.access_key_id + "/" +
                           Scope(scope) + ", SignedHeaders=" + signed_headers +
                           ", Signature=" + Signature(request, credentials, scope));
}

}  // namespace karpenter::aws
