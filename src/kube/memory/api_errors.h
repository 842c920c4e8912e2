#pragma once
// Errors worded like the API server's Status responses and carrying its HTTP status and reason,
// so that code tested against the memory store meets the errors a real server returns.

#include <string>
#include <string_view>

#include "common/result.h"
#include "kube/object.h"
#include "kube/resource.h"

namespace karpenter::kube::memory {

// How messages name a resource: "pods", "poddisruptionbudgets.policy".
std::string QualifiedResource(const Resource& resource);

// 404 NotFound: `pods "web-1" not found`.
Error NotFound(const Resource& resource, std::string_view name);
// 409 AlreadyExists: `pods "web-1" already exists`.
Error AlreadyExists(const Resource& resource, std::string_view name);
// 409 Conflict: `Operation cannot be fulfilled on pods "web-1": <why>`.
Error Conflict(const Resource& resource, std::string_view name, std::string_view why);
// 409 Conflict for a delete or eviction precondition, which the server words with the kind:
// `Operation cannot be fulfilled on Pod "web-1": <why>`.
Error PreconditionFailed(const Resource& resource, std::string_view name, std::string_view why);
// 409 Conflict for a write whose metadata.resourceVersion is not the stored one.
Error StaleResourceVersion(const Resource& resource, std::string_view name);
// 422 Invalid: `Pod "web-1" is invalid: <cause>`, the cause made by one of the field helpers.
Error Invalid(const Resource& resource, std::string_view name, std::string_view cause);
// 403 Forbidden: `pods "web-1" is forbidden: <why>`.
Error Forbidden(const Resource& resource, std::string_view name, std::string_view why);
Error BadRequest(std::string message);       // 400
Error Expired(std::string message);          // 410
Error TooManyRequests(std::string message);  // 429
// 500 with no reason, as the server answers a create that carries a resourceVersion or an
// eviction under two budgets.
Error ServerError(std::string message);

// Causes for Invalid: `metadata.name: Invalid value: "Bad_Name": <why>`, with the value as JSON.
std::string InvalidValue(std::string_view field, const Object& value, std::string_view why);
// `metadata.name: Required value: <why>`.
std::string RequiredValue(std::string_view field, std::string_view why);
// `metadata.finalizers: Forbidden: <why>`.
std::string ForbiddenField(std::string_view field, std::string_view why);

}  // namespace karpenter::kube::memory
