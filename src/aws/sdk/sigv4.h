#pragma once
// AWS Signature Version 4: signs an HTTP request with an access key for one region and service,
// as every AWS API we call (EC2, SSM, SQS, Pricing, IAM, STS) requires. The steps are exposed so
// tests can check each against published examples: the canonical request, the string to sign,
// the signing key, the signature.

#include <string>
#include <string_view>

#include "aws/sdk/credentials.h"
#include "aws/sdk/http_message.h"
#include "common/clock.h"

namespace karpenter::aws {

struct SigningScope {
  std::string region;
  std::string service;
  TimePoint time;
};

// RFC 3986 percent-encoding of everything but unreserved characters (and '/' when
// `keep_slashes`).
std::string UriEncode(std::string_view text, bool keep_slashes);

// Lowercase hexadecimal SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// The canonical form of `request` that gets signed, and the signed header names
// ("host;x-amz-date").
std::string CanonicalRequest(const HttpRequest& request, std::string* signed_headers = nullptr);
std::string StringToSign(const HttpRequest& request, const SigningScope& scope);
// The key derived from the secret for the scope's date, region and service, in hexadecimal.
std::string SigningKeyHex(std::string_view secret_access_key, const SigningScope& scope);
std::string Signature(const HttpRequest& request, const Credentials& credentials,
                      const SigningScope& scope);

// Adds X-Amz-Date, X-Amz-Security-Token (with temporary credentials) and Authorization, and the
// Host header when missing.
void Sign(HttpRequest& request, const Credentials& credentials, const SigningScope& scope);

}  // namespace karpenter::aws
