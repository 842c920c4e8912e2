#pragma once
// Holds temporary credentials between requests and renews them shortly before they expire, so
// that the controller's threads neither call STS or IMDS per request nor sign with credentials
// about to lapse.

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

#include "aws/sdk/credentials_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mutex.h"

namespace karpenter::aws {

class CachingCredentialsProvider final : public CredentialsProvider {
 public:
  // Renew this long before expiry: requests signed now may be retried for minutes.
  static constexpr std::chrono::minutes kRefreshBefore{5};
  // While usable credentials are held, ask the source at most this often: after a failed
  // renewal, and for a source whose credentials arrive already inside kRefreshBefore.
  static constexpr std::chrono::seconds kMinFetchInterval{30};

  // `clock` must outlive the provider. `logger` gets a warning when a renewal fails.
  CachingCredentialsProvider(std::unique_ptr<CredentialsProvider> source, const Clock& clock,
                             Logger logger = {});

  // The held credentials while they are more than kRefreshBefore from expiry (credentials
  // without an expiry are held for good); otherwise new ones from the source. When the source
  // fails, the held credentials as long as they have not expired; the error once they have.
  // Thread-safe; one caller at a time renews.
  Result<Credentials> Get() override;

 private:
  const std::unique_ptr<CredentialsProvider> source_;
  const Clock& clock_;
  const Logger logger_;
  Mutex mutex_;
  std::optional<Credentials> held_ GUARDED_BY(mutex_);
  TimePoint next_fetch_ GUARDED_BY(mutex_){};
};

}  // namespace karpenter::aws
