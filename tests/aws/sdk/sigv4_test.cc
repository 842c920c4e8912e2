// SigV4 against AWS's published examples: the IAM ListUsers request of the signing guide and the
// signing-key derivation example, and the "get-vanilla" case of the SigV4 test suite.

#include "aws/sdk/sigv4.h"

#include <gtest/gtest.h>

namespace karpenter::aws {
namespace {

constexpr std::string_view kSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

TimePoint At(std::string_view rfc3339) { return *ParseTime(rfc3339); }

HttpRequest ListUsers() {
  HttpRequest request;  // GET /
  request.host = "iam.amazonaws.com";
  request.query = {{"Action", "ListUsers"}, {"Version", "2010-05-08"}};
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
                     {"Host", "iam.amazonaws.com"},
                     {"X-Amz-Date", "20150830T123600Z"}};
  return request;
}

const SigningScope kIam{"us-east-1", "iam", At("2015-08-30T12:36:00Z")};

TEST(SigV4Test, CanonicalRequestOfListUsers) {
  std::string signed_headers;
  const std::string canonical = CanonicalRequest(ListUsers(), &signed_headers);
  EXPECT_EQ(canonical,
            "GET\n/\nAction=ListUsers&Version=2010-05-08\n"
            "content-type:application/x-www-form-urlencoded; charset=utf-8\n"
            "host:iam.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "content-type;host;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(signed_headers, "content-type;host;x-amz-date");
  EXPECT_EQ(Sha256Hex(canonical),
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
}

TEST(SigV4Test, StringToSignSigningKeyAndSignatureOfListUsers) {
  EXPECT_EQ(StringToSign(ListUsers(), kIam),
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/aws4_request\n"
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
  EXPECT_EQ(SigningKeyHex(kSecret, kIam),
            "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
  EXPECT_EQ(Signature(ListUsers(), {"AKIDEXAMPLE", std::string(kSecret), "", std::nullopt}, kIam),
            "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
}

TEST(SigV4Test, SignAddsDateAndAuthorization) {
  HttpRequest request;
  request.host = "example.amazonaws.com";
  Sign(request, {"AKIDEXAMPLE", std::string(kSecret), "", std::nullopt},
       {"us-east-1", "service", At("2015-08-30T12:36:00Z")});
  ASSERT_EQ(request.headers.size(), 3u);
  EXPECT_EQ(request.headers[0],
            (std::pair<std::string, std::string>{"Host", "example.amazonaws.com"}));
  EXPECT_EQ(request.headers[1],
            (std::pair<std::string, std::string>{"X-Amz-Date", "20150830T123600Z"}));
  // The test suite's get-vanilla case.
  EXPECT_EQ(request.headers[2].second,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4Test, SessionTokenIsSigned) {
  HttpRequest request;
  request.host = "example.amazonaws.com";
  Sign(request, {"AKIDEXAMPLE", std::string(kSecret), "token", std::nullopt},
       {"us-east-1", "service", At("2015-08-30T12:36:00Z")});
  EXPECT_NE(
      request.headers.back().second.find("SignedHeaders=host;x-amz-date;x-amz-security-token"),
      std::string::npos);
}

TEST(SigV4Test, UriEncodingAndHeaderValues) {
  EXPECT_EQ(UriEncode("a b/c~d_e.f-g*", false), "a%20b%2Fc~d_e.f-g%2A");
  EXPECT_EQ(UriEncode("/path with/space", true), "/path%20with/space");
  HttpRequest request;
  request.host = "example.amazonaws.com";
  request.query = {{"b", "2"}, {"a", "x y"}, {"a", "1"}};
  request.headers = {{"My-Header1", "  value1  with   spaces "}, {"my-header1", "second"}};
  const std::string canonical = CanonicalRequest(request);
  EXPECT_NE(canonical.find("\na=1&a=x%20y&b=2\n"), std::string::npos) << canonical;
  EXPECT_NE(canonical.find("my-header1:value1 with spaces,second\n"), std::string::npos)
      << canonical;
}

}  // namespace
}  // namespace karpenter::aws
