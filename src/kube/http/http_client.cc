#include "kube/http/http_client.h"

#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "common/mutex.h"
#include "kube/http/api_error.h"
#include "kube/http/transport.h"
#include "kube/http/url.h"
#include "kube/http/watch_stream.h"

namespace karpenter::kube::http {
namespace {

using std::chrono::seconds;

// How long StartWatch waits for the server to answer (the connect timeout is 10 s of it).
constexpr std::chrono::milliseconds kWatchAnswerWait{30'000};
// The server ends a watch after a random 5 to 10 minutes (as client-go asks), so that watches
// of many clients do not all restart together and a connection never lives forever.
constexpr int kMinWatchSeconds = 300;
constexpr int kMaxWatchSeconds = 600;
// Bookmarks arrive about once a minute; a watch that hears nothing for longer than its whole
// server-side timeout is on a dead connection.
constexpr seconds kWatchIdleGrace{60};

// List items (and, defensively, any object) may lack apiVersion and kind: the server leaves them
// out of the items of built-in lists.
void SetTypeMeta(Object& object, const Resource& resource) {
  if (!object.is_object()) return;
  if (!object.contains("apiVersion")) object["apiVersion"] = resource.ApiVersion();
  if (!object.contains("kind")) object["kind"] = resource.kind;
}

// metadata.continue of a list page: where the next page starts; empty after the last one.
std::string ContinueToken(const Object& page) {
  if (!page.is_object()) return "";
  const auto metadata = page.find("metadata");
  if (metadata == page.end() || !metadata->is_object()) return "";
  const auto token = metadata->find("continue");
  return token != metadata->end() && token->is_string() ? token->get<std::string>() : "";
}

Error BadRequest(std::string_view method, std::string_view path, std::string_view message) {
  return Error{std::string(method) + " " + std::string(path) + ": " + std::string(message), 400,
               "BadRequest"};
}

Object DeleteOptionsBody(const DeleteOptions& options) {
  Object body = Object::object();
  if (!options.precondition_uid.empty()) body["preconditions"]["uid"] = options.precondition_uid;
  if (!options.precondition_resource_version.empty()) {
    body["preconditions"]["resourceVersion"] = options.precondition_resource_version;
  }
  if (options.grace_period_seconds.has_value()) {
    body["gracePeriodSeconds"] = *options.grace_period_seconds;
  }
  return body;
}

class HttpClient final : public Client {
 public:
  explicit HttpClient(std::shared_ptr<Transport> transport) : transport_(std::move(transport)) {}

  Result<Object> Get(const Resource& resource, std::string_view namespace_,
                     std::string_view name) override {
    if (name.empty()) return BadRequest("GET", resource.plural, "a name is required");
    return Call("GET", ResourcePath(resource, namespace_, name), {}, {}, resource);
  }

  Result<ObjectList> List(const Resource& resource, const ListOptions& options) override {
    ObjectList list;
    std::string continue_token;
    bool restarted = false;
    while (true) {
      Query query;
      query.Add("labelSelector", options.label_selector)
          .Add("fieldSelector", options.field_selector)
          .Add("limit", options.page_size > 0 ? std::to_string(options.page_size) : "")
          .Add("continue", continue_token);
      const std::string path = query.Apply(ResourcePath(resource, options.namespace_));
      Result<Object> page = Send("GET", path, {}, {});
      if (!page.ok()) {
        // The continue token of a long paged list expires with its snapshot (410); the list
        // starts over once, from a new snapshot, rather than returning a mix of two.
        if (page.error().status == 410 && !continue_token.empty() && !restarted) {
          restarted = true;
          continue_token.clear();
          list = ObjectList();
          continue;
        }
        return page.error();
      }
      if (auto items = page->find("items"); items != page->end() && items->is_array()) {
        list.items.reserve(list.items.size() + items->size());
        for (Object& item : *items) {
          SetTypeMeta(item, resource);
          list.items.push_back(std::make_shared<const Object>(std::move(item)));
        }
      }
      list.resource_version = ResourceVersion(*page);
      continue_token = ContinueToken(*page);
      if (continue_token.empty()) return list;
    }
  }

  Result<std::unique_ptr<Watch>> StartWatch(const Resource& resource,
                                            const WatchOptions& options) override {
    std::string resource_version = options.resource_version;
    if (resource_version.empty()) {
      // The API server starts a watch without a version with synthetic ADDED events for every
      // existing object; "from now" is a watch from the collection's current version instead,
      // which a one-item list reads cheaply.
      Query query;
      query.Add("limit", "1");
      ASSIGN_OR_RETURN(
          Object page,
          Send("GET", query.Apply(ResourcePath(resource, options.namespace_)), {}, {}));
      resource_version = ResourceVersion(page);
    }
    const int timeout = RandomWatchSeconds();
    Query query;
    query.Add("watch", "1")
        .Add("resourceVersion", resource_version)
        .Add("allowWatchBookmarks", options.allow_bookmarks ? "true" : "")
        .Add("labelSelector", options.label_selector)
        .Add("fieldSelector", options.field_selector)
        .Add("timeoutSeconds", std::to_string(timeout));
    std::string path = query.Apply(ResourcePath(resource, options.namespace_));
    ASSIGN_OR_RETURN(Stream stream,
                     transport_->OpenStream(path, seconds(timeout) + kWatchIdleGrace));
    return OpenWatch(std::move(stream), std::move(path), resource, kWatchAnswerWait);
  }

  Result<Object> Create(const Resource& resource, const Object& object,
                        const WriteOptions& options) override {
    const std::string_view namespace_ = Namespace(object);
    const std::string collection = ResourcePath(resource, namespace_);
    if (resource.namespaced && namespace_.empty()) {
      return BadRequest("POST", collection, "metadata.namespace is required");
    }
    Query query;
    query.Add("dryRun", options.dry_run ? "All" : "");
    return Call("POST", query.Apply(collection), WithTypeMeta(object, resource), "application/json",
                resource);
  }

  Result<Object> Update(const Resource& resource, const Object& object,
                        Subresource subresource) override {
    const std::string path = ResourcePath(resource, Namespace(object), Name(object),
                                          subresource == Subresource::kStatus ? "status" : "");
    if (Name(object).empty()) return BadRequest("PUT", path, "metadata.name is required");
    return Call("PUT", path, WithTypeMeta(object, resource), "application/json", resource);
  }

  Result<Object> Patch(const Resource& resource, std::string_view namespace_, std::string_view name,
                       PatchType type, const Object& patch, Subresource subresource) override {
    const std::string path = ResourcePath(resource, namespace_, name,
                                          subresource == Subresource::kStatus ? "status" : "");
    if (name.empty()) return BadRequest("PATCH", path, "a name is required");
    const std::string_view content_type =
        type == PatchType::kMerge ? "application/merge-patch+json" : "application/json-patch+json";
    return Call("PATCH", path, patch.dump(), content_type, resource);
  }

  Status Delete(const Resource& resource, std::string_view namespace_, std::string_view name,
                const DeleteOptions& options) override {
    const std::string path = ResourcePath(resource, namespace_, name);
    if (name.empty()) return BadRequest("DELETE", path, "a name is required");
    const Object body = DeleteOptionsBody(options);
    ASSIGN_OR_RETURN(
        Object response,
        Send("DELETE", path, body.empty() ? std::string() : body.dump(), "application/json"));
    return {};
  }

  Status Evict(std::string_view namespace_, std::string_view pod_name,
               const DeleteOptions& options) override {
    const std::string path = ResourcePath(resources::kPods, namespace_, pod_name, "eviction");
    if (namespace_.empty() || pod_name.empty()) {
      return BadRequest("POST", path, "a namespace and a pod name are required");
    }
    Object eviction = {{"apiVersion", "policy/v1"},
                       {"kind", "Eviction"},
                       {"metadata", {{"name", pod_name}, {"namespace", namespace_}}}};
    if (Object delete_options = DeleteOptionsBody(options); !delete_options.empty()) {
      eviction["deleteOptions"] = std::move(delete_options);
    }
    ASSIGN_OR_RETURN(Object response, Send("POST", path, eviction.dump(), "application/json"));
    return {};
  }

 private:
  // The object's JSON with apiVersion and kind, which the request body should name.
  static std::string WithTypeMeta(const Object& object, const Resource& resource) {
    if (object.contains("apiVersion") && object.contains("kind")) return object.dump();
    Object copy = object;
    SetTypeMeta(copy, resource);
    return copy.dump();
  }

  // One request whose answer is an object of `resource`.
  Result<Object> Call(std::string_view method, const std::string& path, const std::string& body,
                      std::string_view content_type, const Resource& resource) {
    Result<Object> object = Send(method, path, body, content_type);
    if (object.ok()) SetTypeMeta(*object, resource);
    return object;
  }

  // One request: its JSON answer, or the Error for a failed one.
  Result<Object> Send(std::string_view method, const std::string& path, const std::string& body,
                      std::string_view content_type) {
    Request request;
    request.method = method;
    request.path = path;
    request.body = body;
    request.content_type = content_type;
    ASSIGN_OR_RETURN(Response response, transport_->Do(request));
    if (response.status < 200 || response.status > 299) {
      return ResponseError(method, PathWithoutQuery(path), response.status, response.body);
    }
    if (response.body.empty()) return Object::object();
    Object parsed = Object::parse(response.body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      return Error{std::string(method) + " " + std::string(PathWithoutQuery(path)) +
                       ": the server's answer is not JSON",
                   0, "Unavailable"};
    }
    return parsed;
  }

  int RandomWatchSeconds() {
    MutexLock lock(mu_);
    return std::uniform_int_distribution<int>(kMinWatchSeconds, kMaxWatchSeconds)(random_);
  }

  std::shared_ptr<Transport> transport_;
  Mutex mu_;
  std::minstd_rand random_ GUARDED_BY(mu_){std::random_device{}()};
};

}  // namespace

Result<std::unique_ptr<Client>> NewClient(const Config& config) {
  ASSIGN_OR_RETURN(std::shared_ptr<Transport> transport, Transport::New(config));
  return std::unique_ptr<Client>(std::make_unique<HttpClient>(std::move(transport)));
}

}  // namespace karpenter::kube::http
