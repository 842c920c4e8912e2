#pragma once
// The credential provider chain: several sources of credentials tried in a fixed order, the
// first that has credentials winning.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/environment.h"
#include "aws/sdk/http_transport.h"
#include "aws/sdk/web_identity_credentials.h"
#include "common/clock.h"
#include "common/mutex.h"

namespace karpenter::aws {

struct ChainLink {
  std::string name;  // for messages: "environment", "IMDS", …
  std::unique_ptr<CredentialsProvider> provider;
};

class CredentialsChain final : public CredentialsProvider {
 public:
  explicit CredentialsChain(std::vector<ChainLink> links);

  // Walks the links in order past those that answer kNotConfigured. A link that is configured but
  // fails ends the walk: falling through would silently switch to another identity (the node's
  // role, say) and hide the misconfiguration. Once a link has answered, later calls go to it alone,
  // so a refresh renews the same identity. Without credentials, one error naming each link tried
  // and why it had none; its status and reason are those of the last link's error. Thread-safe.
  Result<Credentials> Get() override;

  // The name of the link that answered; empty until one has.
  std::string Source() const;

 private:
  mutable Mutex mutex_;
  std::vector<ChainLink> links_;
  std::optional<size_t> answered_ GUARDED_BY(mutex_);
};

// The AWS SDKs' standard order: the environment's keys, a web identity from the environment
// (IRSA), the shared files' profile, the container endpoint (EKS Pod Identity, ECS), IMDS.
// `transport` and `clock` must outlive the chain.
std::unique_ptr<CredentialsChain> DefaultCredentialsChain(const Environment& environment,
                                                          const StsEndpoint& sts,
                                                          HttpTransport& transport,
                                                          const Clock& clock);

}  // namespace karpenter::aws
