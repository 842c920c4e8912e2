#include "aws/api/iam_api.h"

#include <string_view>
#include <utility>

#include "aws/sdk/query_protocol.h"
#include "aws/sdk/xml_reader.h"

namespace karpenter::aws {
namespace {

constexpr std::string_view kIamVersion = "2010-05-08";
constexpr std::string_view kNoSuchEntity = "NoSuchEntity";

QueryRequest IamRequest(std::string action) {
  return QueryRequest(std::move(action), std::string(kIamVersion));
}

// IAM's tag lists: Tags.member.N.Key and Tags.member.N.Value, numbered from 1.
void AddTags(QueryRequest& request, const IamTags& tags) {
  int index = 0;
  for (const auto& [key, value] : tags) {
    const std::string prefix = "Tags.member." + std::to_string(++index);
    request.Add(prefix + ".Key", key);
    request.Add(prefix + ".Value", value);
  }
}

IamRole ReadRole(const XmlElement& role) {
  IamRole out{.name = role.Text("RoleName"),
              .arn = role.Text("Arn"),
              .path = role.Text("Path"),
              .role_id = role.Text("RoleId"),
              .tags = {}};
  for (const XmlElement& tag : role.Items("Tags")) out.tags[tag.Text("Key")] = tag.Text("Value");
  return out;
}

InstanceProfile ReadInstanceProfile(const XmlElement& element) {
  InstanceProfile profile;
  profile.name = element.Text("InstanceProfileName");
  profile.id = element.Text("InstanceProfileId");
  profile.arn = element.Text("Arn");
  profile.path = element.Text("Path");
  for (const XmlElement& role : element.Items("Roles")) profile.roles.push_back(ReadRole(role));
  for (const XmlElement& tag : element.Items("Tags")) {
    profile.tags[tag.Text("Key")] = tag.Text("Value");
  }
  return profile;
}

// The answer's <InstanceProfile>, or an error naming the action when it has none.
Result<InstanceProfile> ProfileOf(const XmlDocument& document, std::string_view action,
                                  const std::string& name) {
  const XmlElement element =
      document.root().Child(std::string(action) + "Result").Child("InstanceProfile");
  if (!element.exists()) {
    return Error{"iam " + std::string(action) + " " + name + ": the answer has no InstanceProfile"};
  }
  return ReadInstanceProfile(element);
}

Status CallForStatus(ServiceClient& client, const QueryRequest& request) {
  ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client, request));
  return {};
}

}  // namespace

Result<std::optional<IamRole>> IamApi::GetRole(const std::string& name) {
  QueryRequest request = IamRequest("GetRole");
  request.Add("RoleName", name);
  Result<XmlDocument> document = CallQuery(client_, request);
  if (!document.ok()) {
    if (document.error().reason == kNoSuchEntity) return std::optional<IamRole>();
    return document.error();
  }
  const XmlElement role = document->root().Child("GetRoleResult").Child("Role");
  if (!role.exists()) return Error{"iam GetRole " + name + ": the answer has no Role"};
  return std::optional<IamRole>(ReadRole(role));
}

Result<std::optional<InstanceProfile>> IamApi::GetInstanceProfile(const std::string& name) {
  QueryRequest request = IamRequest("GetInstanceProfile");
  request.Add("InstanceProfileName", name);
  Result<XmlDocument> document = CallQuery(client_, request);
  if (!document.ok()) {
    if (document.error().reason == kNoSuchEntity) return std::optional<InstanceProfile>();
    return document.error();
  }
  ASSIGN_OR_RETURN(InstanceProfile profile, ProfileOf(*document, "GetInstanceProfile", name));
  return std::optional<InstanceProfile>(std::move(profile));
}

Result<InstanceProfile> IamApi::CreateInstanceProfile(const std::string& name,
                                                      const std::string& path,
                                                      const IamTags& tags) {
  QueryRequest request = IamRequest("CreateInstanceProfile");
  request.Add("InstanceProfileName", name);
  if (!path.empty()) request.Add("Path", path);
  AddTags(request, tags);
  ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client_, request));
  return ProfileOf(document, "CreateInstanceProfile", name);
}

Status IamApi::AddRoleToInstanceProfile(const std::string& profile, const std::string& role) {
  QueryRequest request = IamRequest("AddRoleToInstanceProfile");
  request.Add("InstanceProfileName", profile).Add("RoleName", role);
  return CallForStatus(client_, request);
}

Status IamApi::RemoveRoleFromInstanceProfile(const std::string& profile, const std::string& role) {
  QueryRequest request = IamRequest("RemoveRoleFromInstanceProfile");
  request.Add("InstanceProfileName", profile).Add("RoleName", role);
  return CallForStatus(client_, request);
}

Status IamApi::DeleteInstanceProfile(const std::string& name) {
  QueryRequest request = IamRequest("DeleteInstanceProfile");
  request.Add("InstanceProfileName", name);
  return CallForStatus(client_, request);
}

Status IamApi::TagInstanceProfile(const std::string& name, const IamTags& tags) {
  QueryRequest request = IamRequest("TagInstanceProfile");
  request.Add("InstanceProfileName", name);
  AddTags(request, tags);
  return CallForStatus(client_, request);
}

Result<IamRole> IamApi::CreateRole(const std::string& name, const std::string& trust_policy,
                                   const IamTags& tags) {
  QueryRequest request = IamRequest("CreateRole");
  request.Add("RoleName", name).Add("AssumeRolePolicyDocument", trust_policy);
  AddTags(request, tags);
  ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client_, request));
  const XmlElement role = document.root().Child("CreateRoleResult").Child("Role");
  if (!role.exists()) return Error{"iam CreateRole " + name + ": the answer has no Role"};
  return ReadRole(role);
}

Status IamApi::AttachRolePolicy(const std::string& role, const std::string& policy_arn) {
  QueryRequest request = IamRequest("AttachRolePolicy");
  request.Add("RoleName", role).Add("PolicyArn", policy_arn);
  return CallForStatus(client_, request);
}

Status IamApi::PutRolePolicy(const std::string& role, const std::string& policy_name,
                             const std::string& document) {
  QueryRequest request = IamRequest("PutRolePolicy");
  request.Add("RoleName", role).Add("PolicyName", policy_name).Add("PolicyDocument", document);
  return CallForStatus(client_, request);
}

Result<std::vector<std::string>> IamApi::ListAttachedRolePolicies(const std::string& role) {
  return ListOfRole("ListAttachedRolePolicies", role, "AttachedPolicies", "PolicyArn");
}

Result<std::vector<std::string>> IamApi::ListRolePolicies(const std::string& role) {
  return ListOfRole("ListRolePolicies", role, "PolicyNames", "");
}

Result<std::vector<std::string>> IamApi::ListOfRole(const std::string& action,
                                                    const std::string& role,
                                                    const std::string& list,
                                                    const std::string& field) {
  std::vector<std::string> out;
  std::string marker;
  do {
    QueryRequest request = IamRequest(action);
    request.Add("RoleName", role);
    if (!marker.empty()) request.Add("Marker", marker);
    ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client_, request));
    const XmlElement result = document.root().Child(action + "Result");
    for (const XmlElement& item : result.Items(list)) {
      out.push_back(field.empty() ? item.text() : item.Text(field));
    }
    marker = result.Text("IsTruncated") == "true" ? result.Text("Marker") : "";
  } while (!marker.empty());
  return out;
}

Status IamApi::DetachRolePolicy(const std::string& role, const std::string& policy_arn) {
  QueryRequest request = IamRequest("DetachRolePolicy");
  request.Add("RoleName", role).Add("PolicyArn", policy_arn);
  return CallForStatus(client_, request);
}

Status IamApi::DeleteRolePolicy(const std::string& role, const std::string& policy_name) {
  QueryRequest request = IamRequest("DeleteRolePolicy");
  request.Add("RoleName", role).Add("PolicyName", policy_name);
  return CallForStatus(client_, request);
}

Status IamApi::DeleteRole(const std::string& name) {
  QueryRequest request = IamRequest("DeleteRole");
  request.Add("RoleName", name);
  return CallForStatus(client_, request);
}

}  // namespace karpenter::aws
