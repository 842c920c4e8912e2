// What AWS answers, as the typed calls read it: the input (after a byte choosing the call and
// whether it is an error) is the body of every response, XML for EC2 and IAM (Query protocol),
// JSON for SSM, SQS, Pricing and EKS. A call that pages is answered the same body until a fixed
// number of pages, so a repeated NextToken must not loop.

#include <chrono>
#include <string>
#include <utility>

#include "aws/api/aws_clients.h"
#include "aws/api/ec2_api.h"
#include "aws/api/eks_api.h"
#include "aws/api/iam_api.h"
#include "aws/api/pricing_api.h"
#include "aws/api/sqs_api.h"
#include "aws/api/ssm_api.h"
#include "aws/sdk/environment.h"
#include "aws/sdk/http_transport.h"
#include "common/clock.h"
#include "fuzz/fuzz_input.h"

namespace karpenter::fuzz {
namespace {

// Answers every request with `body`, until `limit` answers (then the connection fails).
class Answering final : public aws::HttpTransport {
 public:
  Answering(int status, std::string body) : status_(status), body_(std::move(body)) {}
  Result<aws::HttpResponse> Send(const aws::HttpRequest& /*request*/) override {
    constexpr int kLimit = 64;
    if (++sent_ > kLimit) return Error{"answered enough", 0, "ConnectionError"};
    return aws::HttpResponse{status_, {}, body_};
  }

 private:
  const int status_;
  const std::string body_;
  int sent_ = 0;
};

void Call(size_t call, aws::AwsClients& clients) {
  aws::Ec2Api ec2(clients.ec2());
  switch (call) {
    case 0:
      (void)ec2.DescribeSubnets({});
      break;
    case 1:
      (void)ec2.DescribeSecurityGroups({});
      break;
    case 2:
      (void)ec2.DescribeImages({});
      break;
    case 3:
      (void)ec2.DescribeInstanceTypes({});
      break;
    case 4:
      (void)ec2.DescribeInstanceTypeOfferings({});
      break;
    case 5:
      (void)ec2.DescribeSpotPriceHistory(TimePoint{std::chrono::seconds(1767225600)},
                                         {"Linux/UNIX"}, {});
      break;
    case 6:
      (void)ec2.DescribeCapacityReservations({}, {});
      break;
    case 7:
      (void)ec2.DescribeLaunchTemplates({});
      break;
    case 8:
      (void)ec2.CreateFleet({});
      break;
    case 9:
      (void)ec2.DescribeInstances({}, {});
      break;
    case 10:
      (void)ec2.TerminateInstances({"i-0123456789abcdef0"});
      break;
    case 11:
      (void)ec2.DescribeInstanceUserData("i-0123456789abcdef0");
      break;
    case 12:
      (void)aws::IamApi(clients.iam()).GetInstanceProfile("profile");
      break;
    case 13:
      (void)aws::SsmApi(clients.ssm()).GetParameter("/aws/service/eks/x");
      break;
    case 14:
      (void)aws::SqsApi(clients.sqs()).ReceiveMessage("https://sqs/123/q");
      break;
    case 15:
      (void)aws::PricingApi(clients.pricing()).GetOnDemandPrices("us-east-1");
      break;
    default:
      (void)aws::EksApi(clients.eks()).DescribeCluster("cluster");
      break;
  }
}

}  // namespace
}  // namespace karpenter::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace karpenter;  // NOLINT(google-build-using-namespace): a fuzz entry point
  constexpr size_t kCalls = 17;
  const fuzz::Selected selected = fuzz::Select(fuzz::Text(data, size), kCalls * 2);
  // Odd choices answer 400: the error document is parsed instead.
  fuzz::Answering transport(selected.choice % 2 == 0 ? 200 : 400, std::string(selected.rest));
  const VirtualClock clock(TimePoint{std::chrono::seconds(1767225600)});
  const aws::Environment environment({{"AWS_ACCESS_KEY_ID", "AKIDFUZZ"},
                                      {"AWS_SECRET_ACCESS_KEY", "fuzz"},
                                      {"AWS_MAX_ATTEMPTS", "1"}});
  Result<aws::AwsClients> clients =
      aws::AwsClients::Create(environment, "us-east-1", transport, clock);
  if (!clients.ok()) std::abort();
  fuzz::Call(selected.choice / 2, *clients);
  return 0;
}
