#pragma once
// The AWS JSON 1.0 and 1.1 protocols of SSM, Pricing and SQS: every operation is a POST to "/"
// naming the operation in X-Amz-Target, with JSON in and JSON out.

#include <string_view>

#include "aws/sdk/http_message.h"
#include "aws/sdk/service_client.h"
#include "common/json.h"
#include "common/result.h"

namespace karpenter::aws {

struct JsonProtocol {
  std::string_view target_prefix;  // X-Amz-Target is "<target_prefix>.<Operation>"
  std::string_view version;        // "1.0" or "1.1", in the Content-Type
};

inline constexpr JsonProtocol kSsmJson{"AmazonSSM", "1.1"};
inline constexpr JsonProtocol kPricingJson{"AWSPriceListService", "1.1"};
inline constexpr JsonProtocol kSqsJson{"AmazonSQS", "1.0"};
inline constexpr JsonProtocol kEventsJson{"AWSEvents", "1.1"};

// POST / with X-Amz-Target, Content-Type application/x-amz-json-<version> and `input` as the
// body; the ServiceClient addresses and signs it.
HttpRequest JsonRequest(const JsonProtocol& protocol, std::string_view operation,
                        const Json& input);

// The ErrorParser of JSON services: the code from SQS's x-amzn-query-error header when present
// (the legacy code callers know), else from "__type" without its "namespace#" prefix or ":…"
// suffix; the message from "message" or "Message"; the request id from x-amzn-RequestId.
Error ParseJsonError(const HttpResponse& response, std::string_view service,
                     std::string_view operation);

// Calls `operation` through `client` and parses the JSON answer (an empty body is {}).
Result<Json> CallJson(ServiceClient& client, const JsonProtocol& protocol,
                      std::string_view operation, const Json& input);

}  // namespace karpenter::aws
