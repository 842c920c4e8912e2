#include "aws/sdk/caching_credentials.h"

#include <utility>

#include "common/mutex.h"

namespace karpenter::aws {

CachingCredentialsProvider::CachingCredentialsProvider(std::unique_ptr<CredentialsProvider> source,
                                                       const Clock& clock, Logger logger)
    : source_(std::move(source)), clock_(clock), logger_(std::move(logger)) {}

Result<Credentials> CachingCredentialsProvider::Get() {
  MutexLock lock(mutex_);
  const TimePoint now = clock_.Now();
  const bool usable = held_.has_value() && (!held_->expiration || now < *held_->expiration);
  if (usable && (!held_->expiration || now < *held_->expiration - kRefreshBefore)) return *held_;
  if (usable && now < next_fetch_) return *held_;
  next_fetch_ = now + kMinFetchInterval;
  Result<Credentials> fresh = source_->Get();
  if (fresh.ok()) {
    held_ = *fresh;
    return fresh;
  }
  if (!usable) return fresh;
  logger_.Warn("renewing AWS credentials failed; using the current ones until they expire",
               {{"credentials", Redacted(*held_)}, logkey::Err(fresh.error())});
  return *held_;
}

}  // namespace karpenter::aws
