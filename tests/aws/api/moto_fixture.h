#pragma once
// The moto server the CTest fixture `moto` started (scripts/testenv/moto-up): its endpoint and
// what it seeded, and AwsClients pointed at it (or at the fault proxy in front of it) with the
// seeded dummy credentials.

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/sdk/aws_test_tools.h"
#include "aws/sdk/curl_transport.h"
#include "aws/sdk/environment.h"
#include "aws/sdk/http_transport.h"
#include "aws/sdk/json_protocol.h"
#include "aws/sdk/query_protocol.h"
#include "common/clock.h"
#include "common/json.h"
#include "support/matchers.h"
#include "support/moto_account.h"
#include "support/run_command.h"

namespace karpenter::aws::testing {

inline std::string ReadMotoFile(const std::string& name) {
  const std::string path = std::string(KARPENTER_MOTO_DIR) + "/" + name;
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A URL moto-up wrote ("endpoint", "fault_endpoint"), without its line break.
inline std::string ReadMotoEndpoint(const std::string& name) {
  std::string endpoint = ReadMotoFile(name);
  while (!endpoint.empty() && (endpoint.back() == '\n' || endpoint.back() == '\r')) {
    endpoint.pop_back();
  }
  return endpoint;
}

// The account moto-up seeded (support/moto_account.h); a test failure when it cannot be read.
inline support::MotoAccount Account() {
  Result<support::MotoAccount> account = support::MotoAccount::Read(KARPENTER_MOTO_DIR);
  EXPECT_THAT(account, IsOk());
  return account.ok() ? std::move(*account) : support::MotoAccount();
}

// Sets the faults the proxy in front of moto injects (scripts/testenv/fault_proxy.py says which)
// and zeroes its counts of injected faults; an empty object clears them.
inline void SetFaults(const Json& faults) {
  Status set = Account().SetFaults(faults);
  EXPECT_THAT(set, IsOk());
}

// What the proxy reports of its faults and counts (GET /_faults); discarded JSON when unreadable.
inline Json FaultProxyState() {
  Result<Json> state = Account().FaultState();
  EXPECT_THAT(state, IsOk());
  return state.ok() ? std::move(*state) : Json(Json::value_t::discarded);
}

// How many faults of a kind ("insufficient_capacity", "throttled", "delayed") the proxy injected
// since they were set.
inline int InjectedFaults(const std::string& kind) {
  const Json state = FaultProxyState();
  return state.is_object() ? state["injected"].value(kind, -1) : -1;
}

// How many requests of an action ("CreateFleet", "CreateTags", …) the proxy passed on to moto
// since the faults were set.
inline int ForwardedRequests(const std::string& action) {
  const Json state = FaultProxyState();
  return state.is_object() ? state.value("forwarded", Json::object()).value(action, 0) : -1;
}

// `text` with each ${NAME} of `values` replaced.
inline std::string FillIn(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [name, value] : values) {
    const std::string placeholder = "${" + name + "}";
    for (size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size())) {
      text.replace(at, placeholder.size(), value);
    }
  }
  return text;
}

// A controller policy for the seeded account, cluster, queue and node role: "generated" is what
// `karpenter iam policy` prints; "upstream" and "seed" are tests/testdata/iam/NAME-policy.json
// (that folder's README says what each is). Null, with a test failure, when there is none.
inline Json ControllerPolicyFor(const std::string& name) {
  if (name == "generated") {
    Result<Json> generated = Account().GeneratedPolicy(KARPENTER_BINARY);
    EXPECT_THAT(generated, IsOk());
    return generated.ok() ? std::move(*generated) : nullptr;
  }
  const Json seed = Json::parse(ReadMotoFile("seed.json"));
  const std::map<std::string, std::string> values = {
      {"PARTITION", "aws"},
      {"REGION", seed["region"].get<std::string>()},
      {"ACCOUNT", seed["account"].get<std::string>()},
      {"CLUSTER", seed["cluster"].get<std::string>()},
      {"QUEUE", seed["cluster"].get<std::string>()},
      {"NODE_ROLE", seed["node_role"].get<std::string>()}};
  std::ifstream in(std::string(KARPENTER_TESTDATA) + "/iam/" + name + "-policy.json");
  std::ostringstream read;
  read << in.rdbuf();
  const std::string text = FillIn(read.str(), values);
  Json policy = Json::parse(text, nullptr, false);
  if (!policy.is_object()) {
    ADD_FAILURE() << "no policy " << name << ":\n" << text;
    return nullptr;
  }
  return policy;
}

// Enforces `policy` (an IAM policy document) on the requests the controller's access key signs
// (seed.json's controller_credentials), through the fault proxy (scripts/testenv/iam_authz.py);
// null enforces nothing. Zeroes the proxy's counts of allowed checks and denials.
inline void SetControllerPolicy(const Json& policy) {
  Status set = Account().SetControllerPolicy(policy);
  EXPECT_THAT(set, IsOk());
}

// What the proxy decided under the policy since it was set (GET /_iam): "allowed" (checks per IAM
// action), "denials" (how many requests were refused) and "denied" (the last refusals, each with
// its request, action, resource and decision); discarded JSON when unreadable.
inline Json IamDecisions() {
  httplib::Client proxy(ReadMotoEndpoint("fault_endpoint"));
  httplib::Result answer = proxy.Get("/_iam");
  EXPECT_TRUE(answer && answer->status == 200) << "reading the IAM decisions";
  if (!answer || answer->status != 200) return Json::value_t::discarded;
  return Json::parse(answer->body, nullptr, false);
}

// What `policy` decides on every authorization the controller's key asked for since its policy
// was set (POST /_iam/replay): the same summary as IamDecisions, and "replayed" (how many distinct
// authorizations). A policy that allows them all would have seen the very same run; discarded
// JSON when unreadable.
inline Json IamReplay(const Json& policy) {
  const Json spec = {{"policies", Json::array({{{"name", "controller"}, {"policy", policy}}})}};
  httplib::Client proxy(ReadMotoEndpoint("fault_endpoint"));
  proxy.set_read_timeout(120, 0);
  httplib::Result answer = proxy.Post("/_iam/replay", spec.dump(), "application/json");
  EXPECT_TRUE(answer && answer->status == 200)
      << "replaying under another policy: " << (answer ? answer->body : "no answer");
  if (!answer || answer->status != 200) return Json::value_t::discarded;
  return Json::parse(answer->body, nullptr, false);
}

// A name no other test, run or process uses, so tests can run against a long-lived moto.
inline std::string UniqueName(const std::string& prefix) {
  static std::atomic<int> counter{0};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return prefix + "-" + std::to_string(getpid()) + "-" +
         std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) + "-" +
         std::to_string(++counter);
}

// A request's form parameters, decoded, in the order sent.
using FormParameters = std::vector<std::pair<std::string, std::string>>;

inline FormParameters DecodeForm(std::string_view body) {
  auto decode = [](std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '+') {
        out += ' ';
      } else if (text[i] == '%' && i + 2 < text.size()) {
        out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        out += text[i];
      }
    }
    return out;
  };
  FormParameters parameters;
  while (!body.empty()) {
    const size_t amp = body.find('&');
    const std::string_view pair = body.substr(0, amp);
    const size_t eq = pair.find('=');
    parameters.emplace_back(decode(pair.substr(0, eq)),
                            eq == std::string_view::npos ? "" : decode(pair.substr(eq + 1)));
    body = amp == std::string_view::npos ? std::string_view() : body.substr(amp + 1);
  }
  return parameters;
}

// Sends through curl and keeps the form parameters of what it sent (the Query APIs' requests),
// so a test can check a request field by field where moto does not keep what it was given.
class RecordingTransport final : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request) override {
    {
      std::lock_guard lock(mutex_);
      sent_.push_back(DecodeForm(request.body));
    }
    return curl_.Send(request);
  }
  // The parameters of each request of `action` sent since the last Clear, oldest first.
  std::vector<FormParameters> Sent(std::string_view action) const {
    std::lock_guard lock(mutex_);
    std::vector<FormParameters> out;
    for (const FormParameters& parameters : sent_) {
      for (const auto& [name, value] : parameters) {
        if (name == "Action" && value == action) out.push_back(parameters);
      }
    }
    return out;
  }
  void Clear() {
    std::lock_guard lock(mutex_);
    sent_.clear();
  }

 private:
  CurlTransport curl_;
  mutable std::mutex mutex_;
  std::vector<FormParameters> sent_;
};

struct ReservationOptions {
  std::string match_criteria = "targeted";  // or "open"
  // "capacity-block": a capacity block (the moto server's extension of this call).
  std::string reservation_type = {};
  std::string end_date = {};  // RFC 3339; "" when it does not end
};

// A capacity reservation (targeted unless `options` say otherwise) of `count` instances of `type`
// in `zone`, made through EC2's API (moto_server.py serves it), tagged test=`tag`; its id ("" on
// failure).
inline std::string CreateCapacityReservation(ServiceClient& ec2, const std::string& type,
                                             const std::string& zone, int count,
                                             const std::string& tag,
                                             const ReservationOptions& options = {}) {
  QueryRequest request("CreateCapacityReservation", "2016-11-15");
  request.Add("InstanceType", type)
      .Add("InstancePlatform", "Linux/UNIX")
      .Add("AvailabilityZone", zone)
      .Add("InstanceCount", std::to_string(count))
      .Add("InstanceMatchCriteria", options.match_criteria);
  if (!options.reservation_type.empty()) request.Add("ReservationType", options.reservation_type);
  if (!options.end_date.empty()) {
    request.Add("EndDateType", "limited").Add("EndDate", options.end_date);
  }
  // This action names the list TagSpecifications (botocore's EC2 model), unlike RunInstances.
  request.AddTagSpecifications({{"capacity-reservation", {{"test", tag}}}}, "TagSpecifications");
  Result<XmlDocument> answer = CallQuery(ec2, request);
  EXPECT_THAT(answer, IsOk());
  return answer.ok() ? answer->root().Child("capacityReservation").Text("capacityReservationId")
                     : "";
}

// Writes the SSM parameter `name` with `value`, as a release pipeline publishes an AMI (under
// /aws/service/, as AWS does: moto_server.py lets a caller overwrite those).
inline void PutParameter(ServiceClient& ssm, const std::string& name, const std::string& value) {
  EXPECT_THAT(CallJson(ssm, kSsmJson, "PutParameter",
                       {{"Name", name}, {"Value", value}, {"Type", "String"}, {"Overwrite", true}}),
              IsOk());
}

// Ends the reservation (EC2's instances in it run on as on-demand ones).
inline void CancelCapacityReservation(ServiceClient& ec2, const std::string& id) {
  QueryRequest request("CancelCapacityReservation", "2016-11-15");
  request.Add("CapacityReservationId", id);
  EXPECT_THAT(CallQuery(ec2, request), IsOk());
}

// What moto keeps of the launch template `name` (its latest version's LaunchTemplateData, read
// with boto3 by tests/aws/provider/describe_launch_template.py); null (and a test failure) when
// it cannot be read.
inline Json LaunchTemplateDataInMoto(const std::string& region, const std::string& name) {
  const Json seed = Json::parse(ReadMotoFile("seed.json"));
  const std::string command =
      AwsTestToolsDir() + "/venv/bin/python " + KARPENTER_SOURCE_DIR +
      "/tests/aws/provider/describe_launch_template.py " + ReadMotoEndpoint("endpoint") + " " +
      region + " " + seed["credentials"]["access_key_id"].get<std::string>() + " " +
      seed["credentials"]["secret_access_key"].get<std::string>() + " " + name;
  try {
    return Json::parse(support::RunCommand(command));
  } catch (const std::exception& error) {
    ADD_FAILURE() << error.what();
    return nullptr;
  }
}

class MotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string endpoint =
        ReadMotoEndpoint(through_fault_proxy_ ? "fault_endpoint" : "endpoint");
    ASSERT_FALSE(endpoint.empty())
        << "no moto endpoint in " << KARPENTER_MOTO_DIR << "; run through ctest, which starts moto";
    seed_ = Json::parse(ReadMotoFile("seed.json"));
    cluster_ = seed_["cluster"].get<std::string>();
    environment_ = Environment({
        {"AWS_ENDPOINT_URL", endpoint},
        {"AWS_ACCESS_KEY_ID", seed_["credentials"]["access_key_id"].get<std::string>()},
        {"AWS_SECRET_ACCESS_KEY", seed_["credentials"]["secret_access_key"].get<std::string>()},
        {"AWS_REGION", seed_["region"].get<std::string>()},
        {"AWS_EC2_METADATA_DISABLED", "true"},
    });
    Result<AwsClients> clients =
        AwsClients::Create(environment_, seed_["region"].get<std::string>(), transport_, clock_);
    ASSERT_THAT(clients, IsOk());
    clients_.emplace(std::move(*clients));
  }

  // Set in a derived constructor to talk to moto through the fault proxy.
  bool through_fault_proxy_ = false;
  Json seed_;
  std::string cluster_;
  Environment environment_;
  RecordingTransport transport_;
  RealClock clock_;
  std::optional<AwsClients> clients_;
};

}  // namespace karpenter::aws::testing
