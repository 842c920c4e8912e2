#pragma once
// The AWS Query protocol of EC2, IAM and STS: an Action, an API Version and flat parameters sent
// as a form-encoded POST body; answers and errors come back as XML.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aws/sdk/http_message.h"
#include "aws/sdk/service_client.h"
#include "aws/sdk/xml_reader.h"
#include "common/result.h"

namespace karpenter::aws {

struct QueryFilter {
  std::string name;  // "tag:Name", "vpc-id", …
  std::vector<std::string> values;
};

struct QueryTagSpecification {
  std::string resource_type;  // "instance", "volume", "launch-template", …
  std::vector<std::pair<std::string, std::string>> tags;
};

class QueryRequest {
 public:
  QueryRequest(std::string action, std::string version);

  QueryRequest& Add(std::string name, std::string value);
  // EC2's flattened lists: name.1, name.2, … ("InstanceId.1").
  QueryRequest& AddList(std::string_view name, const std::vector<std::string>& values);
  // IAM's and STS's lists: name.member.1, name.member.2, … ("PolicyArns.member.1").
  QueryRequest& AddMemberList(std::string_view name, const std::vector<std::string>& values);
  // Filter.N.Name and Filter.N.Value.M, numbered from 1; pass all filters in one call.
  QueryRequest& AddFilters(const std::vector<QueryFilter>& filters);
  // PREFIX.N.ResourceType and PREFIX.N.Tag.M.Key/Value (PREFIX is TagSpecification, or
  // LaunchTemplateData.TagSpecification for what a launch template tags); pass all in one call.
  QueryRequest& AddTagSpecifications(const std::vector<QueryTagSpecification>& specifications,
                                     std::string_view prefix = "TagSpecification");

  const std::string& action() const { return action_; }
  // Action and Version first, then the rest in the order added.
  const std::vector<std::pair<std::string, std::string>>& parameters() const { return parameters_; }
  // The parameters percent-encoded per RFC 3986 as name=value pairs joined by '&'.
  std::string Body() const;
  // POST / with the form body and its Content-Type; the ServiceClient addresses and signs it.
  HttpRequest ToHttpRequest() const;

 private:
  std::string action_;
  std::vector<std::pair<std::string, std::string>> parameters_;
};

// The ErrorParser of Query services. Reads EC2's <Response><Errors><Error> and IAM's and STS's
// <ErrorResponse><Error> into "<Code>: <Message> (<service> <action>, request <id>)".
Error ParseQueryError(const HttpResponse& response, std::string_view service,
                      std::string_view action);

// Calls `request` through `client` and parses the XML answer.
Result<XmlDocument> CallQuery(ServiceClient& client, const QueryRequest& request);

}  // namespace karpenter::aws
