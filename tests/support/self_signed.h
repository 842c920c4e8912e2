#pragma once
// A self-signed certificate made on the spot, for the tests that check a TLS client refuses a
// server it should not trust (an unrelated CA for the API server, an untrusted AWS endpoint).

#include <string>

namespace karpenter::support {

struct SelfSigned {
  std::string certificate_pem;
  std::string key_pem;  // its P-256 private key, PKCS#8
};

// Valid for an hour from now, subject and issuer CN=`common_name`, with `common_name` also as its
// DNS subject alternative name.
SelfSigned MakeSelfSigned(const std::string& common_name);

}  // namespace karpenter::support
