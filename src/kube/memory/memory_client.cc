#include "kube/memory/memory_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "kube/disruption_budget.h"
#include "kube/memory/api_errors.h"
#include "kube/memory/field_labels.h"
#include "kube/memory/metadata_rules.h"
#include "kube/memory/priority_admission.h"
#include "kube/memory/strategy.h"
#include "kube/selector.h"

namespace karpenter::kube::memory {
namespace {

constexpr std::string_view kInitialNamespaces[] = {"default", "kube-system", "kube-public",
                                                   "kube-node-lease"};

// generateName as the server does it: at most 58 characters of the prefix and five from an
// alphabet without vowels (no words) or look-alike characters, retried a few times when taken.
constexpr std::string_view kNameSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";
constexpr size_t kNameSuffixLength = 5;
constexpr size_t kMaxGenerateNamePrefix = 58;
constexpr int kGenerateNameAttempts = 8;

// Where an object is stored. Ordered by resource, then namespace, then name: the objects of one
// resource are adjacent and in the order the API server lists them.
struct ObjectKey {
  std::string resource;    // ResourceId
  std::string namespace_;  // empty for cluster-scoped objects
  std::string name;

  auto operator<=>(const ObjectKey&) const = default;
};

std::string ResourceId(const Resource& resource) {
  return fmt::format("{}/{}", resource.group, resource.plural);
}

ObjectKey KeyOf(const Resource& resource, std::string_view namespace_, std::string_view name) {
  return {ResourceId(resource), resource.namespaced ? std::string(namespace_) : std::string(),
          std::string(name)};
}

bool IsNamespace(const ObjectKey& key) {
  return key.resource == ResourceId(resources::kNamespaces);
}

bool IsPod(const ObjectKey& key) { return key.resource == ResourceId(resources::kPods); }

std::optional<int64_t> ParseVersion(std::string_view text) {
  int64_t version = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, version);
  if (error != std::errc() || at != end || version < 0) return std::nullopt;
  return version;
}

Error NoStatusSubresource(const Resource& resource) {
  return Error(fmt::format("the server could not find the requested resource ({} has no status "
                           "subresource)",
                           QualifiedResource(resource)),
               404, "NotFound");
}

Error TooOld(int64_t version, int64_t oldest) {
  return Expired(fmt::format("too old resource version: {} ({})", version, oldest));
}

Status CheckPreconditions(const Resource& resource, const Object& stored,
                          const DeleteOptions& options) {
  if (!options.precondition_uid.empty() && options.precondition_uid != Uid(stored)) {
    return PreconditionFailed(
        resource, Name(stored),
        fmt::format("the UID in the precondition ({}) does not match the UID in record ({}). The "
                    "object might have been deleted and then recreated",
                    options.precondition_uid, Uid(stored)));
  }
  if (!options.precondition_resource_version.empty() &&
      options.precondition_resource_version != ResourceVersion(stored)) {
    return PreconditionFailed(
        resource, Name(stored),
        fmt::format("the ResourceVersion in the precondition ({}) does not match the "
                    "ResourceVersion in record ({}). The object might have been modified",
                    options.precondition_resource_version, ResourceVersion(stored)));
  }
  return {};
}

// The pod condition the eviction API adds before it deletes a pod.
void AddDisruptionTarget(Object& pod, TimePoint now) {
  Object condition = {{"type", "DisruptionTarget"},
                      {"status", "True"},
                      {"reason", "EvictionByEvictionAPI"},
                      {"message", "Eviction API: evicting"},
                      {"lastTransitionTime", FormatTime(now)}};
  Object& conditions = pod["status"]["conditions"];
  if (!conditions.is_array()) conditions = Object::array();
  for (Object& existing : conditions) {
    if (!existing.is_object() || existing.value("type", "") != "DisruptionTarget") continue;
    if (existing.value("status", "") == "True" && existing.contains("lastTransitionTime")) {
      condition["lastTransitionTime"] = existing["lastTransitionTime"];
    }
    existing = std::move(condition);
    return;
  }
  conditions.push_back(std::move(condition));
}

// Pods whose eviction no budget guards: finished, never started, or already going.
bool CanIgnoreBudgets(const Object& pod) {
  const Object::json_pointer pointer("/status/phase");
  const Object phase = pod.contains(pointer) ? pod.at(pointer) : Object();
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
         !DeletionTimestamp(pod).empty();
}

std::string BudgetRefusal(std::string_view budget, const DisruptionBudgetStatus& status) {
  const std::string why =
      status.current_healthy <= status.desired_healthy
          ? fmt::format("The disruption budget {} needs {} healthy pods and has {} currently",
                        budget, status.desired_healthy, status.current_healthy)
          : fmt::format("The disruption budget {} does not allow evicting pods currently", budget);
  return "Cannot evict pod as it would violate the pod's disruption budget. " + why;
}

// A wait long enough to mean "until something happens" without overflowing the clock.
std::chrono::steady_clock::time_point Deadline(std::chrono::milliseconds timeout) {
  constexpr std::chrono::milliseconds kLongest = std::chrono::hours(24 * 365);
  return std::chrono::steady_clock::now() + std::min(timeout, kLongest);
}

}  // namespace

// The objects, the resourceVersion counter and the recent events, behind one mutex. Shared by the
// client and its watches.
class Store : public std::enable_shared_from_this<Store> {
 public:
  struct HistoryEvent {
    int64_t resource_version = 0;
    std::string resource;  // ResourceId
    WatchEventType type = WatchEventType::kAdded;
    // Shared with objects_ while current, so history costs only the states it outlived.
    SharedObject object;    // the new state; for kDeleted the last state at its version
    SharedObject previous;  // for kModified, the state before
  };

  // What a list or watch selects.
  class Filter {
   public:
    static Result<Filter> Make(const Resource& resource, std::string_view namespace_,
                               std::string_view label_selector, std::string_view field_selector);

    bool Selects(const Object& object) const {
      return (!resource_.namespaced || namespace_.empty() || Namespace(object) == namespace_) &&
             labels_.Matches(object) &&
             (fields_.requirements().empty() ||
              fields_.Matches(SelectableFields(resource_, object)));
    }
    // The event as this watch sees it, or nullopt. Like the server, a modification that brings
    // an object into the selection is ADDED and one that takes it out is DELETED, carrying the
    // previous state at the new resourceVersion.
    std::optional<WatchEvent> Convert(const HistoryEvent& event) const;
    const std::string& resource_id() const { return resource_id_; }

   private:
    Filter(const Resource& resource, std::string namespace_, LabelSelector labels,
           FieldSelector fields)
        : resource_(resource),
          resource_id_(ResourceId(resource)),
          namespace_(std::move(namespace_)),
          labels_(std::move(labels)),
          fields_(std::move(fields)) {}

    Resource resource_;
    std::string resource_id_;
    std::string namespace_;
    LabelSelector labels_;
    FieldSelector fields_;
  };

  Store(const Clock& clock, const MemoryClientOptions& options);

  Result<Object> Get(const Resource& resource, std::string_view namespace_,
                     std::string_view name) const;
  Result<ObjectList> List(const Resource& resource, const ListOptions& options) const;
  Result<std::unique_ptr<Watch>> StartWatch(const Resource& resource, const WatchOptions& options);
  void EndWatch(uint64_t watch);
  Result<Object> Create(const Resource& resource, const Object& body, const WriteOptions& options);
  Result<SharedObject> Restore(const Resource& resource, Object object);
  Result<Object> Update(const Resource& resource, const Object& body, Subresource subresource);
  Result<Object> Patch(const Resource& resource, std::string_view namespace_, std::string_view name,
                       PatchType type, const Object& patch, Subresource subresource);
  Status Delete(const Resource& resource, std::string_view namespace_, std::string_view name,
                const DeleteOptions& options);
  Status Evict(std::string_view namespace_, std::string_view pod_name,
               const DeleteOptions& options);

  // The next event after `after` that `filter` sees, waiting up to `timeout`; moves `after` past
  // the events it passes over.
  // `watch` is the id StartWatch gave the watch, whose position this records.
  Result<std::optional<WatchEvent>> NextEvent(uint64_t watch, const Filter& filter, int64_t& after,
                                              std::chrono::milliseconds timeout);

 private:
  // The helpers below run with mutex_ held.
  const Object* Find(const ObjectKey& key) const REQUIRES(mutex_);
  // Calls `visit` with each object of `resource` in `namespace_` (every namespace when empty),
  // in list order.
  template <class Visit>
  void ForEachIn(const Resource& resource, std::string_view namespace_, Visit visit) const
      REQUIRES(mutex_);
  bool NamespaceEmpty(std::string_view namespace_) const REQUIRES(mutex_);
  // The PriorityClass marked globalDefault, other than `except`; null when none.
  const Object* DefaultPriorityClass(std::string_view except) const REQUIRES(mutex_);
  // Create's checks, defaults and write; with `status`, the object is stored with it (Restore).
  Result<SharedObject> Insert(const Resource& resource, Object body, std::optional<Object> status,
                              bool dry_run) REQUIRES(mutex_);
  // Writes the new state of `key` (removes it for kDeleted) at the next resourceVersion, records
  // the event (with the state it replaces), and returns the object as stored.
  SharedObject Record(WatchEventType type, const ObjectKey& key, Object object) REQUIRES(mutex_);
  Result<Object> Replace(const Resource& resource, const ObjectKey& key, const Object& body,
                         Subresource subresource) REQUIRES(mutex_);
  Object Remove(const ObjectKey& key) REQUIRES(mutex_);
  void DeleteObject(const ObjectKey& key) REQUIRES(mutex_);
  void DeleteNamespace(const ObjectKey& key) REQUIRES(mutex_);
  void RemoveNamespaceIfDone(std::string_view namespace_) REQUIRES(mutex_);
  Status EvictPod(const ObjectKey& key, const DeleteOptions& options) REQUIRES(mutex_);
  // Deletes Events older than the TTL, as the API server does (they would pile up otherwise).
  void ExpireEvents(TimePoint now) REQUIRES(mutex_);
  // A budget's status as its controller wrote it for the current generation; nullopt when none.
  static std::optional<DisruptionBudgetStatus> ObservedStatus(const Object& budget);
  std::string NewUid() REQUIRES(mutex_);
  std::string GenerateName(std::string_view prefix) REQUIRES(mutex_);

  const Clock& clock_;
  const size_t history_limit_;
  const bool hold_history_for_watches_;
  const std::chrono::milliseconds event_ttl_;
  struct StoredEvent {
    TimePoint created;
    ObjectKey key;
    std::string uid;
  };
  std::deque<StoredEvent> events_ GUARDED_BY(mutex_);  // Events by creation, for their TTL
  mutable Mutex mutex_;
  CondVar changed_;
  std::mt19937_64 random_ GUARDED_BY(mutex_);
  int64_t resource_version_ GUARDED_BY(mutex_) = 0;
  int64_t uids_ GUARDED_BY(mutex_) = 0;
  std::map<ObjectKey, SharedObject> objects_ GUARDED_BY(mutex_);
  std::deque<HistoryEvent> history_ GUARDED_BY(mutex_);
  // Every event after this version is in history_.
  int64_t history_start_ GUARDED_BY(mutex_) = 0;
  uint64_t watches_started_ GUARDED_BY(mutex_) = 0;
  // Live watch -> the last resourceVersion it passed.
  std::map<uint64_t, int64_t> watch_positions_ GUARDED_BY(mutex_);
};

namespace {

class MemoryWatch final : public Watch {
 public:
  MemoryWatch(std::shared_ptr<Store> store, uint64_t id, Store::Filter filter, int64_t after,
              std::deque<WatchEvent> initial)
      : store_(std::move(store)),
        id_(id),
        filter_(std::move(filter)),
        after_(after),
        initial_(std::move(initial)) {}
  MemoryWatch(const MemoryWatch&) = delete;
  MemoryWatch& operator=(const MemoryWatch&) = delete;
  ~MemoryWatch() override { store_->EndWatch(id_); }

  Result<std::optional<WatchEvent>> Next(std::chrono::milliseconds timeout) override {
    if (initial_.empty()) return store_->NextEvent(id_, filter_, after_, timeout);
    std::optional<WatchEvent> event = std::move(initial_.front());
    initial_.pop_front();
    return event;
  }

 private:
  std::shared_ptr<Store> store_;
  const uint64_t id_;
  Store::Filter filter_;
  int64_t after_;                   // the resourceVersion of the last event passed
  std::deque<WatchEvent> initial_;  // a watch from "0" starts with the objects as ADDED
};

}  // namespace

Result<Store::Filter> Store::Filter::Make(const Resource& resource, std::string_view namespace_,
                                          std::string_view label_selector,
                                          std::string_view field_selector) {
  Result<LabelSelector> labels = LabelSelector::Parse(label_selector);
  if (!labels.ok()) return BadRequest(labels.error().message);
  Result<FieldSelector> fields = FieldSelector::Parse(field_selector);
  if (!fields.ok()) return BadRequest(fields.error().message);
  RETURN_IF_ERROR(CheckFieldLabels(resource, *fields));
  return Filter(resource, std::string(namespace_), std::move(labels).value(),
                std::move(fields).value());
}

std::optional<WatchEvent> Store::Filter::Convert(const HistoryEvent& event) const {
  const bool selected = Selects(*event.object);
  if (event.type != WatchEventType::kModified) {
    if (!selected) return std::nullopt;
    return WatchEvent{event.type, event.object};
  }
  const bool was_selected = Selects(*event.previous);
  if (selected) {
    return WatchEvent{was_selected ? WatchEventType::kModified : WatchEventType::kAdded,
                      event.object};
  }
  if (!was_selected) return std::nullopt;
  Object last = *event.previous;
  last["metadata"]["resourceVersion"] = (*event.object)["metadata"]["resourceVersion"];
  return WatchEvent{WatchEventType::kDeleted, std::make_shared<const Object>(std::move(last))};
}

Store::Store(const Clock& clock, const MemoryClientOptions& options)
    : clock_(clock),
      history_limit_(options.history_limit),
      hold_history_for_watches_(options.hold_history_for_watches),
      event_ttl_(options.event_ttl),
      random_(options.seed) {
  for (const std::string_view name : kInitialNamespaces) {
    const Result<Object> created =
        Create(resources::kNamespaces, {{"metadata", {{"name", name}}}}, WriteOptions{});
    (void)created;  // valid names: cannot fail
  }
  // Like the server's watch cache, history starts after what existed at startup: a watch from
  // before that gets 410 Expired.
  history_.clear();
  history_start_ = resource_version_;
}

const Object* Store::Find(const ObjectKey& key) const {
  const auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second.get();
}

template <class Visit>
void Store::ForEachIn(const Resource& resource, std::string_view namespace_, Visit visit) const {
  const ObjectKey first = KeyOf(resource, namespace_, "");
  for (auto it = objects_.lower_bound(first);
       it != objects_.end() && it->first.resource == first.resource &&
       (first.namespace_.empty() || it->first.namespace_ == first.namespace_);
       ++it) {
    visit(it->second);
  }
}

const Object* Store::DefaultPriorityClass(std::string_view except) const {
  const Object* found = nullptr;
  ForEachIn(resources::kPriorityClasses, "", [&](const SharedObject& priority_class) {
    const auto global_default = priority_class->find("globalDefault");
    if (found == nullptr && Name(*priority_class) != except &&
        global_default != priority_class->end() && *global_default == true) {
      found = priority_class.get();
    }
  });
  return found;
}

bool Store::NamespaceEmpty(std::string_view namespace_) const {
  return std::none_of(objects_.begin(), objects_.end(),
                      [&](const auto& entry) { return entry.first.namespace_ == namespace_; });
}

SharedObject Store::Record(WatchEventType type, const ObjectKey& key, Object object) {
  ++resource_version_;
  object["metadata"]["resourceVersion"] = std::to_string(resource_version_);
  auto next = std::make_shared<const Object>(std::move(object));
  SharedObject previous;
  if (type == WatchEventType::kDeleted) {
    objects_.erase(key);
  } else {
    SharedObject& stored = objects_[key];
    if (type == WatchEventType::kModified) previous = std::move(stored);
    stored = next;
  }
  history_.push_back({resource_version_, key.resource, type, next, std::move(previous)});
  // Past the limit, the oldest events go, unless a live watch still has to read them.
  int64_t slowest_watch = std::numeric_limits<int64_t>::max();
  if (hold_history_for_watches_) {
    for (const auto& [id, position] : watch_positions_) {
      slowest_watch = std::min(slowest_watch, position);
    }
  }
  while (history_.size() > history_limit_ && history_.front().resource_version <= slowest_watch) {
    history_start_ = history_.front().resource_version;
    history_.pop_front();
  }
  changed_.NotifyAll();
  return next;
}

std::string Store::NewUid() { return fmt::format("00000000-0000-4000-8000-{:012x}", ++uids_); }

std::string Store::GenerateName(std::string_view prefix) {
  std::string name(prefix.substr(0, kMaxGenerateNamePrefix));
  for (size_t i = 0; i < kNameSuffixLength; ++i) {
    name.push_back(kNameSuffixAlphabet[random_() % kNameSuffixAlphabet.size()]);
  }
  return name;
}

Result<Object> Store::Get(const Resource& resource, std::string_view namespace_,
                          std::string_view name) const {
  MutexLock lock(mutex_);
  const Object* object = Find(KeyOf(resource, namespace_, name));
  if (object == nullptr) return NotFound(resource, name);
  return *object;
}

Result<ObjectList> Store::List(const Resource& resource, const ListOptions& options) const {
  MutexLock lock(mutex_);
  ASSIGN_OR_RETURN(Filter filter, Filter::Make(resource, options.namespace_, options.label_selector,
                                               options.field_selector));
  ObjectList list;
  ForEachIn(resource, options.namespace_, [&](const SharedObject& object) {
    if (filter.Selects(*object)) list.items.push_back(object);
  });
  list.resource_version = std::to_string(resource_version_);
  return list;
}

Result<std::unique_ptr<Watch>> Store::StartWatch(const Resource& resource,
                                                 const WatchOptions& options) {
  MutexLock lock(mutex_);
  ASSIGN_OR_RETURN(Filter filter, Filter::Make(resource, options.namespace_, options.label_selector,
                                               options.field_selector));
  int64_t after = resource_version_;
  std::deque<WatchEvent> initial;
  if (options.resource_version == "0") {
    ForEachIn(resource, options.namespace_, [&](const SharedObject& object) {
      if (filter.Selects(*object)) initial.push_back({WatchEventType::kAdded, object});
    });
  } else if (!options.resource_version.empty()) {
    const std::optional<int64_t> version = ParseVersion(options.resource_version);
    if (!version) {
      return BadRequest(
          fmt::format("invalid resourceVersion \"{}\": want a number", options.resource_version));
    }
    if (*version < history_start_) return TooOld(*version, history_start_);
    after = *version;
  }
  const uint64_t id = ++watches_started_;
  watch_positions_.emplace(id, after);
  return std::unique_ptr<Watch>(std::make_unique<MemoryWatch>(
      shared_from_this(), id, std::move(filter), after, std::move(initial)));
}

void Store::EndWatch(uint64_t watch) {
  MutexLock lock(mutex_);
  watch_positions_.erase(watch);
}

Result<std::optional<WatchEvent>> Store::NextEvent(uint64_t watch, const Filter& filter,
                                                   int64_t& after,
                                                   std::chrono::milliseconds timeout) {
  const auto deadline = Deadline(timeout);
  MutexLock lock(mutex_);
  const auto position = watch_positions_.find(watch);
  while (true) {
    if (after < history_start_) return TooOld(after, history_start_);
    auto it = std::upper_bound(history_.begin(), history_.end(), after,
                               [](int64_t version, const HistoryEvent& event) {
                                 return version < event.resource_version;
                               });
    for (; it != history_.end(); ++it) {
      after = it->resource_version;
      if (it->resource != filter.resource_id()) continue;
      if (std::optional<WatchEvent> event = filter.Convert(*it)) {
        position->second = after;
        return event;
      }
    }
    position->second = after;
    if (timeout.count() <= 0) return std::optional<WatchEvent>();  // a poll: no futex wait
    while (resource_version_ <= after) {
      if (!changed_.WaitUntil(lock, deadline) && resource_version_ <= after) {
        return std::optional<WatchEvent>();
      }
    }
  }
}

Result<Object> Store::Create(const Resource& resource, const Object& body,
                             const WriteOptions& options) {
  MutexLock lock(mutex_);
  ASSIGN_OR_RETURN(SharedObject created, Insert(resource, body, std::nullopt, options.dry_run));
  return *created;
}

Result<SharedObject> Store::Restore(const Resource& resource, Object object) {
  MutexLock lock(mutex_);
  std::optional<Object> status;
  if (object.is_object()) {  // else Insert refuses it
    if ((resource == resources::kPods || resource == resources::kNodes) &&
        object.contains("status")) {
      status = std::move(object["status"]);
    }
    object.erase("status");
    // What Insert would refuse (a resourceVersion) or keep; it sets uid, creationTimestamp and
    // generation afresh itself.
    if (const auto metadata = object.find("metadata");
        metadata != object.end() && metadata->is_object()) {
      for (const char* field : {"resourceVersion", "managedFields", "selfLink"}) {
        metadata->erase(field);
      }
    }
  }
  return Insert(resource, std::move(object), std::move(status), /*dry_run=*/false);
}

Result<SharedObject> Store::Insert(const Resource& resource, Object body,
                                   std::optional<Object> status, bool dry_run) {
  Result<Object> incoming = DecodeBody(resource, std::move(body));
  if (!incoming.ok()) return incoming.error();
  Object object = std::move(incoming).value();
  Object& metadata = object["metadata"];
  const std::string namespace_(Namespace(object));
  if (!ResourceVersion(object).empty()) {
    return ServerError("resourceVersion should not be set on objects to be created");
  }
  if (resource.namespaced) {
    if (namespace_.empty()) {
      return Invalid(resource, Name(object), RequiredValue("metadata.namespace", ""));
    }
    const Object* owner = Find(KeyOf(resources::kNamespaces, "", namespace_));
    if (owner == nullptr) return NotFound(resources::kNamespaces, namespace_);
    if (!DeletionTimestamp(*owner).empty()) {
      return Forbidden(resource, Name(object),
                       fmt::format("unable to create new content in namespace {} because it is "
                                   "being terminated",
                                   namespace_));
    }
  }
  const std::string generate_name = metadata.value("generateName", "");
  std::string name(Name(object));
  const bool generated = name.empty();
  if (generated && generate_name.empty()) {
    return Invalid(resource, "",
                   RequiredValue("metadata.name", "name or generateName is required"));
  }
  for (int attempt = 1;; ++attempt) {
    if (generated) name = GenerateName(generate_name);
    if (auto error = NameError(resource, name)) {
      return Invalid(resource, name,
                     generated ? InvalidValue("metadata.generateName", generate_name, *error)
                               : InvalidValue("metadata.name", name, *error));
    }
    if (Find(KeyOf(resource, namespace_, name)) == nullptr) break;
    if (!generated || attempt == kGenerateNameAttempts) return AlreadyExists(resource, name);
  }
  metadata["name"] = name;
  RETURN_IF_ERROR(ValidateMetadata(resource, object));
  const TimePoint now = clock_.Now();
  metadata["uid"] = NewUid();
  metadata["creationTimestamp"] = FormatTime(now);
  for (const char* field : {"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds"}) {
    metadata.erase(field);
  }
  if (resource == resources::kPods) {
    const std::string_view class_name = StringAt(object, {"spec", "priorityClassName"});
    const Object* named =
        class_name.empty() ? nullptr : Find(KeyOf(resources::kPriorityClasses, "", class_name));
    if (std::optional<Error> refused = AdmitPodPriority(object, named, DefaultPriorityClass(""))) {
      return *std::move(refused);
    }
  } else if (resource == resources::kPriorityClasses) {
    if (std::optional<Error> refused = PriorityClassError(object, DefaultPriorityClass(name))) {
      return *std::move(refused);
    }
  }
  PrepareForCreate(resource, object, now);
  if (status) object["status"] = std::move(*status);
  if (dry_run) return std::make_shared<const Object>(std::move(object));
  ObjectKey key = KeyOf(resource, namespace_, name);
  if (resource.plural == resources::kEvents.plural) {
    ExpireEvents(now);
    events_.push_back({now, key, std::string(Uid(object))});
  }
  return Record(WatchEventType::kAdded, key, std::move(object));
}

void Store::ExpireEvents(TimePoint now) {
  while (!events_.empty() && now - events_.front().created >= event_ttl_) {
    const StoredEvent& oldest = events_.front();
    if (const Object* event = Find(oldest.key); event != nullptr && Uid(*event) == oldest.uid) {
      DeleteObject(oldest.key);
    }
    events_.pop_front();
  }
}

Result<Object> Store::Update(const Resource& resource, const Object& body,
                             Subresource subresource) {
  MutexLock lock(mutex_);
  if (subresource == Subresource::kStatus && !HasStatusSubresource(resource)) {
    return NoStatusSubresource(resource);
  }
  Result<Object> incoming = DecodeBody(resource, body);
  if (!incoming.ok()) return incoming;
  const ObjectKey key = KeyOf(resource, Namespace(*incoming), Name(*incoming));
  if (Find(key) == nullptr) return NotFound(resource, key.name);
  return Replace(resource, key, *incoming, subresource);
}

Result<Object> Store::Patch(const Resource& resource, std::string_view namespace_,
                            std::string_view name, PatchType type, const Object& patch,
                            Subresource subresource) {
  MutexLock lock(mutex_);
  if (subresource == Subresource::kStatus && !HasStatusSubresource(resource)) {
    return NoStatusSubresource(resource);
  }
  const ObjectKey key = KeyOf(resource, namespace_, name);
  const Object* stored = Find(key);
  if (stored == nullptr) return NotFound(resource, name);
  Object patched = *stored;
  switch (type) {
    case PatchType::kMerge:
      if (!patch.is_object()) return BadRequest("a merge patch must be a JSON object");
      patched.merge_patch(patch);
      break;
    case PatchType::kJson:
      if (!patch.is_array()) return BadRequest("a JSON patch must be a list of operations");
      // A failed "test" and any operation that cannot apply are 422, as on the server (which
      // words them all the same way; the detail is ours).
      try {
        patched = stored->patch(patch);
      } catch (const Object::exception& e) {
        return Error(fmt::format("the server rejected our request due to an error in our "
                                 "request: {}",
                                 e.what()),
                     422, "Invalid");
      }
      break;
  }
  if (Name(patched) != key.name) {
    return BadRequest(
        fmt::format("the name of the object ({}) does not match the name on the URL ({})",
                    Name(patched), key.name));
  }
  if (resource.namespaced && Namespace(patched) != key.namespace_) {
    return BadRequest(fmt::format(
        "the namespace of the object ({}) does not match the namespace on the request ({})",
        Namespace(patched), key.namespace_));
  }
  // The uid of a patched object is no precondition as an update's is, but an immutable field.
  if (!Uid(patched).empty() && Uid(patched) != Uid(*stored)) {
    return Invalid(resource, name,
                   InvalidValue("metadata.uid", std::string(Uid(patched)), "field is immutable"));
  }
  Result<Object> incoming = DecodeBody(resource, patched);
  if (!incoming.ok()) return incoming;
  return Replace(resource, key, *incoming, subresource);
}

Result<Object> Store::Replace(const Resource& resource, const ObjectKey& key, const Object& body,
                              Subresource subresource) {
  // Held: Record replaces the stored object.
  const SharedObject held = objects_.at(key);
  const Object& stored = *held;
  const std::string_view requested_uid = Uid(body);
  if (!requested_uid.empty() && requested_uid != Uid(stored)) {
    return Conflict(resource, key.name,
                    fmt::format("Precondition failed: UID in precondition: {}, UID in object "
                                "meta: {}",
                                requested_uid, Uid(stored)));
  }
  const std::string_view requested_version = ResourceVersion(body);
  if (requested_version.empty() && !AllowsUnconditionalUpdate(resource)) {
    return Invalid(resource, key.name,
                   InvalidValue("metadata.resourceVersion", 0, "must be specified for an update"));
  }
  if (!requested_version.empty() && requested_version != ResourceVersion(stored)) {
    return StaleResourceVersion(resource, key.name);
  }

  // A write to /status takes only the status; a write to the object keeps the stored status.
  Object next = subresource == Subresource::kStatus ? stored : body;
  if (HasStatusSubresource(resource)) {
    const Object& source = subresource == Subresource::kStatus ? body : stored;
    if (source.contains("status")) {
      next["status"] = source.at("status");
    } else {
      next.erase("status");
    }
  }
  RETURN_IF_ERROR(KeepSystemMetadata(resource, stored, next));
  RETURN_IF_ERROR(ValidateMetadata(resource, next));
  if (ChangesGeneration(resource, stored, next)) {
    next["metadata"]["generation"] = Generation(stored) + 1;
  }
  if (next == stored) return stored;  // no change: no new resourceVersion, no event

  // The last finalizer of an object being deleted is gone: the update deletes it.
  if (!DeletionTimestamp(stored).empty() && Finalizers(next).empty() &&
      (!IsNamespace(key) || NamespaceEmpty(key.name))) {
    const Object removed = Remove(key);
    next["metadata"]["resourceVersion"] = removed["metadata"]["resourceVersion"];
    return next;
  }
  return *Record(WatchEventType::kModified, key, std::move(next));
}

Object Store::Remove(const ObjectKey& key) {
  Object removed = *Record(WatchEventType::kDeleted, key, *objects_.at(key));
  if (!key.namespace_.empty()) RemoveNamespaceIfDone(key.namespace_);
  return removed;
}

void Store::DeleteObject(const ObjectKey& key) {
  const SharedObject held = objects_.at(key);
  const Object& stored = *held;
  // Pods are deleted gracefully: the server first records the deletion, then (with a zero grace
  // period, here always) removes them. Other kinds go at once unless finalizers hold them.
  if (DeletionTimestamp(stored).empty() && (IsPod(key) || !Finalizers(stored).empty())) {
    Object next = stored;
    next["metadata"]["deletionTimestamp"] = FormatTime(clock_.Now());
    next["metadata"]["deletionGracePeriodSeconds"] = 0;
    if (Generation(stored) > 0) next["metadata"]["generation"] = Generation(stored) + 1;
    Record(WatchEventType::kModified, key, std::move(next));
  }
  if (Finalizers(stored).empty()) Remove(key);
}

void Store::DeleteNamespace(const ObjectKey& key) {
  const SharedObject held = objects_.at(key);
  const Object& stored = *held;
  if (DeletionTimestamp(stored).empty()) {
    Object next = stored;
    next["metadata"]["deletionTimestamp"] = FormatTime(clock_.Now());
    next["status"]["phase"] = "Terminating";
    Record(WatchEventType::kModified, key, std::move(next));
    // What the namespace controller does on a cluster: delete everything in the namespace.
    std::vector<ObjectKey> content;
    for (const auto& [object_key, object] : objects_) {
      if (object_key.namespace_ == key.name) content.push_back(object_key);
    }
    for (const ObjectKey& object_key : content) DeleteObject(object_key);
  }
  RemoveNamespaceIfDone(key.name);
}

void Store::RemoveNamespaceIfDone(std::string_view namespace_) {
  const ObjectKey key = KeyOf(resources::kNamespaces, "", namespace_);
  const Object* object = Find(key);
  if (object == nullptr || DeletionTimestamp(*object).empty() || !Finalizers(*object).empty() ||
      !NamespaceEmpty(namespace_)) {
    return;
  }
  Record(WatchEventType::kDeleted, key, *object);
}

Status Store::Delete(const Resource& resource, std::string_view namespace_, std::string_view name,
                     const DeleteOptions& options) {
  MutexLock lock(mutex_);
  const ObjectKey key = KeyOf(resource, namespace_, name);
  const Object* stored = Find(key);
  if (stored == nullptr) return NotFound(resource, name);
  if (Status allowed = CheckPreconditions(resource, *stored, options); !allowed.ok()) {
    return allowed;
  }
  if (resource == resources::kNamespaces) {
    DeleteNamespace(key);
  } else {
    DeleteObject(key);
  }
  return {};
}

Status Store::Evict(std::string_view namespace_, std::string_view pod_name,
                    const DeleteOptions& options) {
  MutexLock lock(mutex_);
  const ObjectKey key = KeyOf(resources::kPods, namespace_, pod_name);
  const Object* pod = Find(key);
  if (pod == nullptr) return NotFound(resources::kPods, pod_name);
  if (CanIgnoreBudgets(*pod)) return EvictPod(key, options);

  std::vector<Object> budgets;
  ForEachIn(resources::kPodDisruptionBudgets, namespace_, [&](const SharedObject& budget) {
    if (SelectsPod(*budget, *pod)) budgets.push_back(*budget);
  });
  if (budgets.size() > 1) {
    return ServerError(
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
        "not support.");
  }
  if (budgets.empty()) return EvictPod(key, options);
  const Object& budget = budgets.front();
  // As the API server: a budget whose controller has seen its current generation is decided by
  // its status, which the eviction then charges; without one, it is computed from the pods.
  if (std::optional<DisruptionBudgetStatus> observed = ObservedStatus(budget)) {
    if (!IsPodReady(*pod) && observed->current_healthy >= observed->desired_healthy &&
        observed->desired_healthy > 0) {
      return EvictPod(key, options);
    }
    if (observed->disruptions_allowed < 1) {
      return TooManyRequests(BudgetRefusal(Name(budget), *observed));
    }
    if (Status evicted = EvictPod(key, options); !evicted.ok()) return evicted;
    const ObjectKey budget_key = KeyOf(resources::kPodDisruptionBudgets, namespace_, Name(budget));
    Object charged = *objects_.at(budget_key);
    charged["status"]["disruptionsAllowed"] = observed->disruptions_allowed - 1;
    Record(WatchEventType::kModified, budget_key, std::move(charged));
    return {};
  }
  std::vector<const Object*> pods;  // the stored ones: the lock is held
  ForEachIn(resources::kPods, namespace_,
            [&](const SharedObject& object) { pods.push_back(object.get()); });
  const Result<DisruptionBudgetStatus> status = ComputeDisruptionBudget(budget, pods);
  if (!status.ok()) {
    return TooManyRequests(fmt::format(
        "Cannot evict pod as it would violate the pod's disruption budget. The disruption "
        "budget {} does not allow evicting pods currently because it failed sync: {}",
        Name(budget), status.error().message));
  }
  // An unready pod does not count as healthy, so evicting it costs the budget nothing when the
  // budget is met anyway, or when the budget says unhealthy pods may always go.
  if (!IsPodReady(*pod)) {
    const Object::json_pointer policy("/spec/unhealthyPodEvictionPolicy");
    const bool always_allow = budget.contains(policy) && budget.at(policy) == "AlwaysAllow";
    if (always_allow ||
        (status->desired_healthy > 0 && status->current_healthy >= status->desired_healthy)) {
      return EvictPod(key, options);
    }
  }
  if (status->disruptions_allowed < 1) return TooManyRequests(BudgetRefusal(Name(budget), *status));
  return EvictPod(key, options);
}

std::optional<DisruptionBudgetStatus> Store::ObservedStatus(const Object& budget) {
  const Object* status = kube::Find(budget, {"status"});
  if (status == nullptr || !status->is_object() ||
      status->value("observedGeneration", int64_t{-1}) < Generation(budget) ||
      !status->contains("disruptionsAllowed")) {
    return std::nullopt;
  }
  DisruptionBudgetStatus observed;
  observed.expected_pods = status->value("expectedPods", int64_t{0});
  observed.desired_healthy = status->value("desiredHealthy", int64_t{0});
  observed.current_healthy = status->value("currentHealthy", int64_t{0});
  observed.disruptions_allowed = status->value("disruptionsAllowed", int64_t{0});
  return observed;
}

Status Store::EvictPod(const ObjectKey& key, const DeleteOptions& options) {
  const SharedObject held = objects_.at(key);
  const Object& stored = *held;
  if (Status allowed = CheckPreconditions(resources::kPods, stored, options); !allowed.ok()) {
    return allowed;
  }
  Object next = stored;
  AddDisruptionTarget(next, clock_.Now());
  if (next != stored) Record(WatchEventType::kModified, key, std::move(next));
  DeleteObject(key);
  return {};
}

MemoryClient::MemoryClient(const Clock& clock, MemoryClientOptions options)
    : store_(std::make_shared<Store>(clock, options)) {}

Result<Object> MemoryClient::Get(const Resource& resource, std::string_view namespace_,
                                 std::string_view name) {
  return store_->Get(resource, namespace_, name);
}

Result<ObjectList> MemoryClient::List(const Resource& resource, const ListOptions& options) {
  return store_->List(resource, options);
}

Result<std::unique_ptr<Watch>> MemoryClient::StartWatch(const Resource& resource,
                                                        const WatchOptions& options) {
  return store_->StartWatch(resource, options);
}

Result<Object> MemoryClient::Create(const Resource& resource, const Object& object,
                                    const WriteOptions& options) {
  return store_->Create(resource, object, options);
}

Result<SharedObject> MemoryClient::Restore(const Resource& resource, Object object) {
  return store_->Restore(resource, std::move(object));
}

Result<Object> MemoryClient::Update(const Resource& resource, const Object& object,
                                    Subresource subresource) {
  return store_->Update(resource, object, subresource);
}

Result<Object> MemoryClient::Patch(const Resource& resource, std::string_view namespace_,
                                   std::string_view name, PatchType type, const Object& patch,
                                   Subresource subresource) {
  return store_->Patch(resource, namespace_, name, type, patch, subresource);
}

Status MemoryClient::Delete(const Resource& resource, std::string_view namespace_,
                            std::string_view name, const DeleteOptions& options) {
  return store_->Delete(resource, namespace_, name, options);
}

Status MemoryClient::Evict(std::string_view namespace_, std::string_view pod_name,
                           const DeleteOptions& options) {
  return store_->Evict(namespace_, pod_name, options);
}

}  // namespace karpenter::kube::memory
