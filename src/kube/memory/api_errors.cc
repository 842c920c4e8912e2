#include "kube/memory/api_errors.h"

#include <fmt/format.h>

#include <utility>

namespace karpenter::kube::memory {
namespace {

// "Pod", "PodDisruptionBudget.policy": how Invalid names the kind.
std::string QualifiedKind(const Resource& resource) {
  if (resource.group.empty()) return std::string(resource.kind);
  return fmt::format("{}.{}", resource.kind, resource.group);
}

}  // namespace

std::string QualifiedResource(const Resource& resource) {
  if (resource.group.empty()) return std::string(resource.plural);
  return fmt::format("{}.{}", resource.plural, resource.group);
}

Error NotFound(const Resource& resource, std::string_view name) {
  return Error(fmt::format("{} \"{}\" not found", QualifiedResource(resource), name), 404,
               "NotFound");
}

Error AlreadyExists(const Resource& resource, std::string_view name) {
  return Error(fmt::format("{} \"{}\" already exists", QualifiedResource(resource), name), 409,
               "AlreadyExists");
}

Error Conflict(const Resource& resource, std::string_view name, std::string_view why) {
  return Error(fmt::format("Operation cannot be fulfilled on {} \"{}\": {}",
                           QualifiedResource(resource), name, why),
               409, "Conflict");
}

Error PreconditionFailed(const Resource& resource, std::string_view name, std::string_view why) {
  return Error(fmt::format("Operation cannot be fulfilled on {} \"{}\": {}",
                           QualifiedKind(resource), name, why),
               409, "Conflict");
}

Error StaleResourceVersion(const Resource& resource, std::string_view name) {
  return Conflict(resource, name,
                  "the object has been modified; please apply your changes to the latest version "
                  "and try again");
}

Error Invalid(const Resource& resource, std::string_view name, std::string_view cause) {
  return Error(fmt::format("{} \"{}\" is invalid: {}", QualifiedKind(resource), name, cause), 422,
               "Invalid");
}

Error Forbidden(const Resource& resource, std::string_view name, std::string_view why) {
  return Error(fmt::format("{} \"{}\" is forbidden: {}", QualifiedResource(resource), name, why),
               403, "Forbidden");
}

Error BadRequest(std::string message) { return Error(std::move(message), 400, "BadRequest"); }
Error Expired(std::string message) { return Error(std::move(message), 410, "Expired"); }
Error TooManyRequests(std::string message) {
  return Error(std::move(message), 429, "TooManyRequests");
}
Error ServerError(std::string message) { return Error(std::move(message), 500, ""); }

std::string InvalidValue(std::string_view field, const Object& value, std::string_view why) {
  return fmt::format("{}: Invalid value: {}: {}", field, value.dump(), why);
}

std::string RequiredValue(std::string_view field, std::string_view why) {
  return fmt::format("{}: Required value: {}", field, why);
}

std::string ForbiddenField(std::string_view field, std::string_view why) {
  return fmt::format("{}: Forbidden: {}", field, why);
}

}  // namespace karpenter::kube::memory
