#include "aws/sdk/query_protocol.h"

#include "aws/sdk/sigv4.h"

namespace karpenter::aws {

QueryRequest::QueryRequest(std::string action, std::string version) : action_(std::move(action)) {
  parameters_.emplace_back("Action", action_);
  parameters_.emplace_back("Version", std::move(version));
}

QueryRequest& QueryRequest::Add(std::string name, std::string value) {
  parameters_.emplace_back(std::move(name), std::move(value));
  return *this;
}

QueryRequest& QueryRequest::AddList(std::string_view name, const std::vector<std::string>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    Add(std::string(name) + "." + std::to_string(i + 1), values[i]);
  }
  return *this;
}

QueryRequest& QueryRequest::AddMemberList(std::string_view name,
                                          const std::vector<std::string>& values) {
  return AddList(std::string(name) + ".member", values);
}

QueryRequest& QueryRequest::AddFilters(const std::vector<QueryFilter>& filters) {
  for (size_t i = 0; i < filters.size(); ++i) {
    const std::string prefix = "Filter." + std::to_string(i + 1);
    Add(prefix + ".Name", filters[i].name);
    AddList(prefix + ".Value", filters[i].values);
  }
  return *this;
}

QueryRequest& QueryRequest::AddTagSpecifications(
    const std::vector<QueryTagSpecification>& specifications, std::string_view prefix_of_list) {
  for (size_t i = 0; i < specifications.size(); ++i) {
    const std::string prefix = std::string(prefix_of_list) + "." + std::to_string(i + 1);
    Add(prefix + ".ResourceType", specifications[i].resource_type);
    const auto& tags = specifications[i].tags;
    for (size_t j = 0; j < tags.size(); ++j) {
      const std::string tag = prefix + ".Tag." + std::to_string(j + 1);
      Add(tag + ".Key", tags[j].first);
      Add(tag + ".Value", tags[j].second);
    }
  }
  return *this;
}

std::string QueryRequest::Body() const {
  std::string body;
  for (const auto& [name, value] : parameters_) {
    if (!body.empty()) body.push_back('&');
    body.append(UriEncode(name, false)).append("=").append(UriEncode(value, false));
  }
  return body;
}

HttpRequest QueryRequest::ToHttpRequest() const {
  HttpRequest request;
  request.method = "POST";
  request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
  request.body = Body();
  return request;
}

Error ParseQueryError(const HttpResponse& response, std::string_view service,
                      std::string_view action) {
  const std::string context = std::string(service) + " " + std::string(action);
  Result<XmlDocument> document = XmlDocument::Parse(response.body, context);
  XmlElement error;
  std::string request_id;
  if (document.ok()) {
    const XmlElement root = document->root();
    // EC2 nests its error one level deeper than IAM and STS, and spells the request id
    // "RequestID".
    error = root.Child("Errors").Child("Error");
    if (!error.exists()) error = root.Child("Error");
    request_id = root.Text("RequestID");
    if (request_id.empty()) request_id = root.Text("RequestId");
  }
  const std::string code = error.Text("Code");
  if (code.empty()) return UnrecognizedError(response, service, action);
  return Error{
      code + ": " + error.Text("Message") + " (" + context + ", request " + request_id + ")",
      response.status, code};
}

Result<XmlDocument> CallQuery(ServiceClient& client, const QueryRequest& request) {
  ASSIGN_OR_RETURN(HttpResponse response, client.Call(request.action(), request.ToHttpRequest()));
  return XmlDocument::Parse(response.body, client.service() + " " + request.action());
}

}  // namespace karpenter::aws
