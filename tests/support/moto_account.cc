#include "support/moto_account.h"

#include <httplib.h>

#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cluster.h"
#include "support/run_command.h"

namespace karpenter::support {
namespace {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(path + ": cannot read it; start moto with scripts/testenv/moto-up");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string WithoutLineBreak(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

Result<kube::Object> Answer(const httplib::Result& answer, const std::string& what) {
  if (!answer) return Error(what + ": the fault proxy did not answer");
  if (answer->status != 200) {
    return Error(what + ": the fault proxy answered " + std::to_string(answer->status) + ": " +
                 answer->body);
  }
  kube::Object body = kube::Object::parse(answer->body, nullptr, false);
  if (body.is_discarded()) return Error(what + ": the fault proxy's answer is not JSON");
  return body;
}

}  // namespace

Result<MotoAccount> MotoAccount::Read(const std::string& dir) {
  MotoAccount account;
  ASSIGN_OR_RETURN(std::string endpoint, ReadFile(dir + "/endpoint"));
  ASSIGN_OR_RETURN(std::string fault_endpoint, ReadFile(dir + "/fault_endpoint"));
  ASSIGN_OR_RETURN(std::string seed, ReadFile(dir + "/seed.json"));
  account.endpoint_ = WithoutLineBreak(std::move(endpoint));
  account.fault_endpoint_ = WithoutLineBreak(std::move(fault_endpoint));
  account.seed_ = kube::Object::parse(seed, nullptr, false);
  if (!account.seed_.is_object()) return Error(dir + "/seed.json: not a JSON object");
  return account;
}

Status MotoAccount::SetFaults(const kube::Object& faults) const {
  httplib::Client proxy(fault_endpoint_);
  RETURN_IF_ERROR(Answer(proxy.Post("/_faults", faults.dump(), "application/json"),
                         "setting faults " + faults.dump()));
  return {};
}

Result<kube::Object> MotoAccount::FaultState() const {
  httplib::Client proxy(fault_endpoint_);
  return Answer(proxy.Get("/_faults"), "reading faults");
}

Status MotoAccount::SetControllerPolicy(const kube::Object& policy) const {
  kube::Object spec = kube::Object::object();
  if (!policy.is_null()) {
    const kube::Object& controller = seed_["controller_credentials"];
    spec["principals"][controller.value("access_key_id", "")] = {
        {"arn", controller["principal_arn"]},
        {"policies", kube::Object::array({{{"name", "controller"}, {"policy", policy}}})}};
  }
  httplib::Client proxy(fault_endpoint_);
  RETURN_IF_ERROR(Answer(proxy.Post("/_iam", spec.dump(), "application/json"),
                         "setting the controller's policy"));
  return {};
}

Result<kube::Object> MotoAccount::GeneratedPolicy(const std::string& karpenter) const {
  std::string text;
  try {
    text =
        RunCommand(karpenter + " iam policy --cluster-name " + Seeded("cluster") + " --region " +
                   Seeded("region") + " --account " + Seeded("account") + " --interruption-queue " +
                   Seeded("cluster") + " --node-role " + Seeded("node_role"));
  } catch (const std::exception& error) {
    return Error(error.what());
  }
  kube::Object policy = kube::Object::parse(text, nullptr, false);
  if (!policy.is_object()) return Error("`karpenter iam policy` printed no JSON object:\n" + text);
  return policy;
}

std::vector<std::string> MotoAccount::ControllerEnvironment(std::vector<std::string> env) const {
  const kube::Object& credentials = seed_["controller_credentials"];
  SetVariable(env, "AWS_ENDPOINT_URL", fault_endpoint_);
  SetVariable(env, "AWS_ACCESS_KEY_ID", credentials.value("access_key_id", ""));
  SetVariable(env, "AWS_SECRET_ACCESS_KEY", credentials.value("secret_access_key", ""));
  SetVariable(env, "AWS_REGION", Seeded("region"));
  SetVariable(env, "AWS_EC2_METADATA_DISABLED", "true");
  SetVariable(env, "CLUSTER_NAME", Seeded("cluster"));
  SetVariable(env, "INTERRUPTION_QUEUE", Seeded("cluster"));
  return env;
}

aws::Environment MotoAccount::TestEnvironment() const {
  const kube::Object& credentials = seed_["credentials"];
  return aws::Environment({{"AWS_ENDPOINT_URL", endpoint_},
                           {"AWS_ACCESS_KEY_ID", credentials.value("access_key_id", "")},
                           {"AWS_SECRET_ACCESS_KEY", credentials.value("secret_access_key", "")},
                           {"AWS_REGION", Seeded("region")},
                           {"AWS_EC2_METADATA_DISABLED", "true"}});
}

Result<std::vector<aws::Instance>> MotoAccount::ClusterInstances(
    aws::Ec2Api& ec2, const std::vector<std::string>& states) const {
  return ec2.DescribeInstances({}, {{"tag:kubernetes.io/cluster/" + Seeded("cluster"), {"owned"}},
                                    {"instance-state-name", states}});
}

Status MotoAccount::TerminateClusterInstances(aws::Ec2Api& ec2) const {
  ASSIGN_OR_RETURN(std::vector<aws::Instance> left, ClusterInstances(ec2, {"pending", "running"}));
  if (left.empty()) return {};
  std::vector<std::string> ids;
  for (const aws::Instance& instance : left) ids.push_back(instance.instance_id);
  RETURN_IF_ERROR(ec2.TerminateInstances(ids));
  return {};
}

Result<std::string> MotoAccount::LeakInstance(aws::Ec2Api& ec2) const {
  const std::string cluster = Seeded("cluster");
  ASSIGN_OR_RETURN(std::vector<aws::LaunchTemplate> templates,
                   ec2.DescribeLaunchTemplates({{"tag:karpenter.k8s.aws/cluster", {cluster}}}));
  if (templates.empty()) return Error("no launch template of " + cluster + " to launch with");
  const kube::Object& subnet = seed_["subnets"][0];
  aws::FleetInput leak;
  leak.launch_templates = {
      {templates.front().name,
       {{"m5.large", subnet.value("id", ""), subnet.value("zone", ""), std::nullopt}}}};
  leak.allocation_strategy = "lowest-price";
  leak.tags = {{"kubernetes.io/cluster/" + cluster, "owned"}, {"karpenter.sh/nodepool", "default"}};
  ASSIGN_OR_RETURN(aws::FleetResult leaked, ec2.CreateFleet(leak));
  if (leaked.instances.size() != 1) {
    return Error("the leaked launch made " + std::to_string(leaked.instances.size()) +
                 " instances");
  }
  return leaked.instances.front().instance_id;
}

}  // namespace karpenter::support
