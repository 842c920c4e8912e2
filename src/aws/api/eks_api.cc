#include "aws/api/eks_api.h"

#include "common/json.h"

namespace karpenter::aws {
namespace {

std::string StringAt(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const Json& ObjectAt(const Json& object, const char* key) {
  static const Json kEmpty = Json::object();
  const auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

}  // namespace

Result<EksCluster> EksApi::DescribeCluster(const std::string& name) {
  // Cluster names are letters, digits, '-' and '_': nothing to escape in the path.
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789-_") != std::string::npos) {
    return Error("eks DescribeCluster: \"" + name + "\" is not an EKS cluster name");
  }
  HttpRequest request;
  request.method = "GET";
  request.path = "/clusters/" + name;
  ASSIGN_OR_RETURN(HttpResponse response, client_.Call("DescribeCluster", request));
  const Json body = Json::parse(response.body, /*cb=*/nullptr, /*allow_exceptions=*/false);
  const Json& cluster = body.is_object() ? ObjectAt(body, "cluster") : body;
  if (!cluster.is_object() || cluster.empty()) {
    return Error("eks DescribeCluster " + name + ": the response has no cluster object");
  }
  EksCluster out;
  out.name = StringAt(cluster, "name");
  out.arn = StringAt(cluster, "arn");
  out.status = StringAt(cluster, "status");
  out.version = StringAt(cluster, "version");
  out.endpoint = StringAt(cluster, "endpoint");
  out.certificate_authority = StringAt(ObjectAt(cluster, "certificateAuthority"), "data");
  const Json& network = ObjectAt(cluster, "kubernetesNetworkConfig");
  out.service_ipv4_cidr = StringAt(network, "serviceIpv4Cidr");
  out.service_ipv6_cidr = StringAt(network, "serviceIpv6Cidr");
  return out;
}

}  // namespace karpenter::aws
