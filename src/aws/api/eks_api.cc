#include "aws/api/eks_api.h"

#include <fmt/format.h>

#include "aws/sdk/pagination.h"
#include "aws/sdk/sigv4.h"
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

std::vector<std::string> StringsAt(const Json& object, const char* key) {
  std::vector<std::string> out;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const Json& item : *it) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

int64_t IntAt(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// Cluster and node group names are letters, digits, '-' and '_': nothing to escape in a path.
Status CheckName(std::string_view operation, std::string_view what, const std::string& name) {
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789-_") != std::string::npos) {
    return Error(fmt::format("eks {}: \"{}\" is not an EKS {} name", operation, name, what));
  }
  return {};
}

// GETs `path` and returns the object under `key` of the response, or an Error naming the
// operation and `subject`.
Result<Json> GetObject(ServiceClient& client, std::string_view operation, std::string path,
                       std::string_view subject, const char* key) {
  HttpRequest request;
  request.method = "GET";
  request.path = std::move(path);
  ASSIGN_OR_RETURN(HttpResponse response, client.Call(operation, request));
  Json body = Json::parse(response.body, /*cb=*/nullptr, /*allow_exceptions=*/false);
  Json object = body.is_object() ? ObjectAt(body, key) : Json();
  if (!object.is_object() || object.empty()) {
    return Error(fmt::format("eks {} {}: the response has no {} object", operation, subject, key));
  }
  return object;
}

// Sends `body` to `path` with `method` and returns the response's JSON object ({} for an empty
// body).
Result<Json> Send(ServiceClient& client, std::string_view operation, std::string method,
                  std::string path, bool path_encoded, const Json& body) {
  HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.path_encoded = path_encoded;
  if (!body.is_null()) {
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = body.dump();
  }
  ASSIGN_OR_RETURN(HttpResponse response, client.Call(operation, request));
  Json out = Json::parse(response.body, /*cb=*/nullptr, /*allow_exceptions=*/false);
  return out.is_object() ? out : Json::object();
}

}  // namespace

Result<EksCluster> EksApi::DescribeCluster(const std::string& name) {
  RETURN_IF_ERROR(CheckName("DescribeCluster", "cluster", name));
  ASSIGN_OR_RETURN(const Json cluster,
                   GetObject(client_, "DescribeCluster", "/clusters/" + name, name, "cluster"));
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
  const Json& vpc = ObjectAt(cluster, "resourcesVpcConfig");
  out.security_group_ids = StringsAt(vpc, "securityGroupIds");
  out.cluster_security_group_id = StringAt(vpc, "clusterSecurityGroupId");
  out.oidc_issuer = StringAt(ObjectAt(ObjectAt(cluster, "identity"), "oidc"), "issuer");
  out.authentication_mode = StringAt(ObjectAt(cluster, "accessConfig"), "authenticationMode");
  if (out.authentication_mode.empty()) out.authentication_mode = "CONFIG_MAP";
  return out;
}

Result<std::vector<std::string>> EksApi::ListNames(std::string_view operation,
                                                   const std::string& cluster,
                                                   std::string_view collection, const char* key) {
  RETURN_IF_ERROR(CheckName(operation, "cluster", cluster));
  std::vector<std::string> names;
  RETURN_IF_ERROR(Paginate(
      fmt::format("eks {}", operation), [&](const std::string& token) -> Result<std::string> {
        HttpRequest request;
        request.method = "GET";
        request.path = fmt::format("/clusters/{}/{}", cluster, collection);
        if (!token.empty()) request.query.emplace_back("nextToken", token);
        ASSIGN_OR_RETURN(HttpResponse response, client_.Call(operation, request));
        const Json body = Json::parse(response.body, /*cb=*/nullptr, /*allow_exceptions=*/false);
        if (!body.is_object()) {
          return Error(
              fmt::format("eks {} {}: the response is not a JSON object", operation, cluster));
        }
        for (std::string& name : StringsAt(body, key)) names.push_back(std::move(name));
        return StringAt(body, "nextToken");
      }));
  return names;
}

Result<std::vector<std::string>> EksApi::ListNodegroups(const std::string& cluster) {
  return ListNames("ListNodegroups", cluster, "node-groups", "nodegroups");
}

Result<std::vector<std::string>> EksApi::ListAccessEntries(const std::string& cluster) {
  return ListNames("ListAccessEntries", cluster, "access-entries", "accessEntries");
}

Result<EksNodegroup> EksApi::DescribeNodegroup(const std::string& cluster,
                                               const std::string& name) {
  RETURN_IF_ERROR(CheckName("DescribeNodegroup", "cluster", cluster));
  RETURN_IF_ERROR(CheckName("DescribeNodegroup", "node group", name));
  ASSIGN_OR_RETURN(const Json group, GetObject(client_, "DescribeNodegroup",
                                               "/clusters/" + cluster + "/node-groups/" + name,
                                               cluster + "/" + name, "nodegroup"));
  EksNodegroup out;
  out.name = StringAt(group, "nodegroupName");
  out.status = StringAt(group, "status");
  out.node_role = StringAt(group, "nodeRole");
  out.instance_types = StringsAt(group, "instanceTypes");
  out.capacity_type = StringAt(group, "capacityType");
  out.ami_type = StringAt(group, "amiType");
  if (const auto labels = group.find("labels"); labels != group.end() && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      if (value.is_string()) out.labels.emplace(key, value.get<std::string>());
    }
  }
  if (const auto taints = group.find("taints"); taints != group.end() && taints->is_array()) {
    for (const Json& taint : *taints) {
      if (!taint.is_object()) continue;
      out.taints.push_back(
          {StringAt(taint, "key"), StringAt(taint, "value"), StringAt(taint, "effect")});
    }
  }
  const Json& scaling = ObjectAt(group, "scalingConfig");
  out.min_size = IntAt(scaling, "minSize");
  out.max_size = IntAt(scaling, "maxSize");
  out.desired_size = IntAt(scaling, "desiredSize");
  out.subnets = StringsAt(group, "subnets");
  return out;
}

Status EksApi::CreateAccessEntry(const std::string& cluster, const std::string& principal_arn,
                                 const std::string& type) {
  RETURN_IF_ERROR(CheckName("CreateAccessEntry", "cluster", cluster));
  RETURN_IF_ERROR(Send(client_, "CreateAccessEntry", "POST",
                       "/clusters/" + cluster + "/access-entries", /*path_encoded=*/false,
                       {{"principalArn", principal_arn}, {"type", type}}));
  return {};
}

Status EksApi::DeleteAccessEntry(const std::string& cluster, const std::string& principal_arn) {
  RETURN_IF_ERROR(CheckName("DeleteAccessEntry", "cluster", cluster));
  // The ARN is one segment of the path: its ':' and '/' are encoded.
  RETURN_IF_ERROR(
      Send(client_, "DeleteAccessEntry", "DELETE",
           "/clusters/" + cluster + "/access-entries/" + UriEncode(principal_arn, false),
           /*path_encoded=*/true, Json()));
  return {};
}

Result<std::string> EksApi::UpdateNodegroupScaling(const std::string& cluster,
                                                   const std::string& name, int64_t min_size,
                                                   int64_t max_size, int64_t desired_size) {
  RETURN_IF_ERROR(CheckName("UpdateNodegroupConfig", "cluster", cluster));
  RETURN_IF_ERROR(CheckName("UpdateNodegroupConfig", "node group", name));
  ASSIGN_OR_RETURN(
      const Json response,
      Send(client_, "UpdateNodegroupConfig", "POST",
           "/clusters/" + cluster + "/node-groups/" + name + "/update-config",
           /*path_encoded=*/false,
           {{"scalingConfig",
             {{"minSize", min_size}, {"maxSize", max_size}, {"desiredSize", desired_size}}}}));
  return StringAt(ObjectAt(response, "update"), "id");
}

}  // namespace karpenter::aws
