// The provider chain's order and fall-through, the default chain's wiring, and the cache that
// renews credentials before they expire.

#include "aws/sdk/credentials_chain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include "aws/sdk/caching_credentials.h"
#include "aws/sdk/credentials_test_support.h"
#include "support/matchers.h"

namespace karpenter::aws::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// Answers with whatever the test put in `next`, counting calls.
class ScriptedProvider final : public CredentialsProvider {
 public:
  struct State {
    std::atomic<int> calls{0};
    Result<Credentials> next = Error{"unset"};
  };

  explicit ScriptedProvider(std::shared_ptr<State> state) : state_(std::move(state)) {}
  Result<Credentials> Get() override {
    ++state_->calls;
    return state_->next;
  }

 private:
  std::shared_ptr<State> state_;
};

Credentials Keys(std::string key_id, std::optional<TimePoint> expiration = std::nullopt) {
  return {std::move(key_id), std::string(kSecret), std::string(kSessionToken), expiration};
}

Error NotConfigured(std::string message) {
  return Error{std::move(message), 0, std::string(kNotConfigured)};
}

class CredentialsChainTest : public ::testing::Test {
 protected:
  std::shared_ptr<ScriptedProvider::State> Add(std::string name, Result<Credentials> next) {
    auto state = std::make_shared<ScriptedProvider::State>();
    state->next = std::move(next);
    links_.push_back({std::move(name), std::make_unique<ScriptedProvider>(state)});
    return state;
  }

  std::vector<ChainLink> links_;
};

TEST_F(CredentialsChainTest, FirstConfiguredLinkAnswersAndIsRemembered) {
  auto first = Add("first", NotConfigured("nothing here"));
  auto second = Add("second", Keys("SECONDKEY0001"));
  auto third = Add("third", Keys("THIRDKEY00001"));
  CredentialsChain chain(std::move(links_));
  EXPECT_EQ(chain.Source(), "");
  Result<Credentials> credentials = chain.Get();
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, "SECONDKEY0001");
  EXPECT_EQ(chain.Source(), "second");
  EXPECT_EQ(third->calls, 0);

  first->next = Keys("FIRSTKEY00001");  // configured later: the chain keeps its identity
  credentials = chain.Get();
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, "SECONDKEY0001");
  EXPECT_EQ(first->calls, 1);
  EXPECT_EQ(second->calls, 2);
}

TEST_F(CredentialsChainTest, RememberedLinksFailureIsReportedAsItsOwn) {
  auto only = Add("web identity", Keys("KEY000000001"));
  CredentialsChain chain(std::move(links_));
  ASSERT_THAT(chain.Get(), IsOk());
  only->next = Error{"STS said no", 403, "AccessDenied"};
  Result<Credentials> credentials = chain.Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().message, "AWS credentials from web identity: STS said no");
  EXPECT_EQ(credentials.error().status, 403);
  EXPECT_EQ(credentials.error().reason, "AccessDenied");
}

TEST_F(CredentialsChainTest, ConfiguredButFailingLinkStopsTheWalk) {
  Add("environment", NotConfigured("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set"));
  Add("web identity", Error{"STS AssumeRoleWithWebIdentity: AccessDenied", 403, "AccessDenied"});
  auto imds = Add("IMDS", Keys("NODEROLEKEY01"));
  CredentialsChain chain(std::move(links_));
  Result<Credentials> credentials = chain.Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().message,
            "no AWS credentials (environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not "
            "set; web identity: STS AssumeRoleWithWebIdentity: AccessDenied)");
  EXPECT_EQ(credentials.error().status, 403);
  EXPECT_EQ(credentials.error().reason, "AccessDenied");
  EXPECT_EQ(imds->calls, 0);
  EXPECT_EQ(chain.Source(), "");
}

TEST_F(CredentialsChainTest, NothingConfiguredListsEveryLink) {
  Add("a", NotConfigured("no a"));
  Add("b", NotConfigured("no b"));
  CredentialsChain chain(std::move(links_));
  Result<Credentials> credentials = chain.Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().message, "no AWS credentials (a: no a; b: no b)");
  EXPECT_EQ(credentials.error().reason, kNotConfigured);
}

class DefaultCredentialsChainTest : public CredentialsTest {
 protected:
  // Serves the container endpoint, STS and IMDS, each with its own key ID.
  static Result<HttpResponse> Serve(const HttpRequest& request) {
    if (request.host == "169.254.170.23") {
      return Respond(200, R"({"AccessKeyId":"CONTAINERKEY1","SecretAccessKey":"s"})");
    }
    if (request.host == "sts.amazonaws.com") {
      return Respond(200, StsCredentialsXml("2026-05-01T13:00:00Z"));
    }
    if (request.method == "PUT") return Respond(200, "imds-token");
    if (request.path == "/latest/meta-data/iam/security-credentials/") return Respond(200, "r");
    return Respond(200,
                   R"({"Code":"Success","AccessKeyId":"IMDSKEY000001","SecretAccessKey":"s"})");
  }

  Result<Credentials> Get(Variables variables) {
    variables.emplace("HOME", dir_.path());  // no ~/.aws there
    chain_ = DefaultCredentialsChain(Environment(std::move(variables)),
                                     {"https", "sts.amazonaws.com"}, transport_, clock_);
    return chain_->Get();
  }

  FakeTransport transport_{Serve};
  std::unique_ptr<CredentialsChain> chain_;
};

TEST_F(DefaultCredentialsChainTest, EnvironmentComesFirst) {
  Result<Credentials> credentials =
      Get({{"AWS_ACCESS_KEY_ID", std::string(kKeyId)},
           {"AWS_SECRET_ACCESS_KEY", std::string(kSecret)},
           {"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://169.254.170.23/v1/credentials"}});
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, kKeyId);
  EXPECT_EQ(chain_->Source(), "environment");
  EXPECT_TRUE(transport_.requests().empty());
}

TEST_F(DefaultCredentialsChainTest, WebIdentityFromTheEnvironmentBeforeProfileAndContainer) {
  dir_.Write("token", "jwt");
  std::filesystem::create_directory(dir_.path() + "/.aws");
  dir_.Write(".aws/credentials",
             "[default]\naws_access_key_id = PROFILEKEY001\n"
             "aws_secret_access_key = s\n");
  Result<Credentials> credentials =
      Get({{"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/karpenter"},
           {"AWS_WEB_IDENTITY_TOKEN_FILE", dir_.path() + "/token"},
           {"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://169.254.170.23/v1/credentials"}});
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(chain_->Source(), "web identity");
  ASSERT_EQ(transport_.requests().size(), 1u);
  EXPECT_EQ(transport_.requests()[0].host, "sts.amazonaws.com");
}

TEST_F(DefaultCredentialsChainTest, ProfileBeforeContainer) {
  std::filesystem::create_directory(dir_.path() + "/.aws");
  dir_.Write(".aws/credentials",
             "[default]\naws_access_key_id = PROFILEKEY001\n"
             "aws_secret_access_key = s\n");
  Result<Credentials> credentials =
      Get({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://169.254.170.23/v1/credentials"}});
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, "PROFILEKEY001");
  EXPECT_EQ(chain_->Source(), "profile");
}

TEST_F(DefaultCredentialsChainTest, ContainerBeforeImds) {
  Result<Credentials> credentials =
      Get({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://169.254.170.23/v1/credentials"},
           {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "t"}});
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, "CONTAINERKEY1");
  EXPECT_EQ(chain_->Source(), "container");
}

TEST_F(DefaultCredentialsChainTest, ImdsLast) {
  Result<Credentials> credentials = Get({});
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, "IMDSKEY000001");
  EXPECT_EQ(chain_->Source(), "IMDS");
}

TEST_F(DefaultCredentialsChainTest, NoneSaysWhyForEachProvider) {
  Result<Credentials> credentials = Get({{"AWS_EC2_METADATA_DISABLED", "true"}});
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().reason, kNotConfigured);
  EXPECT_EQ(credentials.error().message,
            "no AWS credentials (environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not "
            "set; web identity: AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE are not set; "
            "profile: no profile \"default\" in " +
                dir_.path() + "/.aws/credentials or " + dir_.path() +
                "/.aws/config; container: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and "
                "AWS_CONTAINER_CREDENTIALS_FULL_URI are not set; IMDS: AWS_EC2_METADATA_DISABLED "
                "is true)");
  EXPECT_TRUE(transport_.requests().empty());
}

TEST_F(DefaultCredentialsChainTest, MisconfiguredSourceIsNotBypassed) {
  Result<Credentials> credentials = Get({{"AWS_ACCESS_KEY_ID", std::string(kKeyId)},
                                         {"AWS_SESSION_TOKEN", std::string(kSessionToken)}});
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().message,
            "no AWS credentials (environment: AWS_ACCESS_KEY_ID (****1234) is set but "
            "AWS_SECRET_ACCESS_KEY is not)");
  ExpectNoSecrets(credentials.error().message);
  EXPECT_TRUE(transport_.requests().empty());  // IMDS was not asked instead
}

class CachingCredentialsTest : public CredentialsTest {
 protected:
  CachingCredentialsTest() { state_->next = Keys("FIRSTKEY00001", start_ + 1h); }

  std::unique_ptr<CachingCredentialsProvider> Make(Logger logger = {}) {
    return std::make_unique<CachingCredentialsProvider>(std::make_unique<ScriptedProvider>(state_),
                                                        clock_, std::move(logger));
  }

  std::shared_ptr<ScriptedProvider::State> state_ = std::make_shared<ScriptedProvider::State>();
};

TEST_F(CachingCredentialsTest, RenewsFiveMinutesBeforeExpiry) {
  auto cache = Make();
  ASSERT_THAT(cache->Get(), IsOk());
  ASSERT_THAT(cache->Get(), IsOk());
  EXPECT_EQ(state_->calls, 1);
  clock_.Set(start_ + 55min - 1s);
  ASSERT_THAT(cache->Get(), IsOk());
  EXPECT_EQ(state_->calls, 1);

  state_->next = Keys("SECONDKEY0001", start_ + 2h);
  clock_.Set(start_ + 55min);
  Result<Credentials> renewed = cache->Get();
  ASSERT_THAT(renewed, IsOk());
  EXPECT_EQ(renewed->access_key_id, "SECONDKEY0001");
  EXPECT_EQ(state_->calls, 2);
}

TEST_F(CachingCredentialsTest, LongTermKeysAreHeldForGood) {
  state_->next = Keys("LONGTERMKEY01");
  auto cache = Make();
  ASSERT_THAT(cache->Get(), IsOk());
  clock_.Advance(24h * 365);
  ASSERT_THAT(cache->Get(), IsOk());
  EXPECT_EQ(state_->calls, 1);
}

TEST_F(CachingCredentialsTest, FailedRenewalKeepsTheCurrentCredentialsUntilTheyExpire) {
  std::ostringstream log;
  auto cache = Make(Logger(std::make_shared<LogSink>(log, clock_), "aws"));
  ASSERT_THAT(cache->Get(), IsOk());
  state_->next = Error{"cannot reach IMDS", 0, ""};

  clock_.Set(start_ + 56min);
  Result<Credentials> kept = cache->Get();
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(kept->access_key_id, "FIRSTKEY00001");
  EXPECT_EQ(state_->calls, 2);
  EXPECT_THAT(log.str(), HasSubstr("renewing AWS credentials failed"));
  EXPECT_THAT(log.str(), HasSubstr("access key ****0001"));
  EXPECT_THAT(log.str(), HasSubstr("cannot reach IMDS"));
  ExpectNoSecrets(log.str());

  clock_.Advance(29s);  // no new attempt right after a failure
  ASSERT_THAT(cache->Get(), IsOk());
  EXPECT_EQ(state_->calls, 2);
  clock_.Advance(1s);
  ASSERT_THAT(cache->Get(), IsOk());
  EXPECT_EQ(state_->calls, 3);

  clock_.Set(start_ + 1h);  // expired: the error now
  Result<Credentials> expired = cache->Get();
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().message, "cannot reach IMDS");
  EXPECT_EQ(state_->calls, 4);
}

TEST_F(CachingCredentialsTest, ShortLivedCredentialsAreNotFetchedOnEveryCall) {
  state_->next = Keys("SHORTLIVED001", start_ + 4min);  // inside the renewal window at once
  auto cache = Make();
  ASSERT_THAT(cache->Get(), IsOk());
  clock_.Advance(29s);
  ASSERT_THAT(cache->Get(), IsOk());
  EXPECT_EQ(state_->calls, 1);
  clock_.Advance(1s);
  ASSERT_THAT(cache->Get(), IsOk());
  EXPECT_EQ(state_->calls, 2);
}

TEST_F(CachingCredentialsTest, ErrorWithNothingHeldIsReturnedEveryTime) {
  state_->next = Error{"no credentials", 0, ""};
  auto cache = Make();
  EXPECT_FALSE(cache->Get().ok());
  EXPECT_FALSE(cache->Get().ok());
  EXPECT_EQ(state_->calls, 2);
}

TEST_F(CachingCredentialsTest, ConcurrentCallersShareOneFetch) {
  auto cache = Make();
  std::atomic<int> ok{0};
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 100; ++j) ok += cache->Get().ok() ? 1 : 0;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(ok, kThreads * 100);
  EXPECT_EQ(state_->calls, 1);
}

}  // namespace
}  // namespace karpenter::aws::testing
