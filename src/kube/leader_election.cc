#include "kube/leader_election.h"

#include <thread>
#include <utility>

namespace karpenter::kube {
namespace {

int64_t IntOr(const Object& spec, const char* field, int64_t fallback) {
  const auto it = spec.find(field);
  return it != spec.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

std::string StringOr(const Object& spec, const char* field) {
  const auto it = spec.find(field);
  return it != spec.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

LeaderElector::LeaderElector(Client& client, const Clock& clock, LeaderElectionOptions options)
    : client_(client), clock_(clock), options_(std::move(options)) {}

Object LeaderElector::NewLease() const {
  const std::string now = FormatMicroTime(clock_.Now());
  return Object{{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", options_.lease_name}, {"namespace", options_.namespace_}}},
                {"spec",
                 {{"holderIdentity", options_.identity},
                  {"leaseDurationSeconds", options_.lease_duration.count()},
                  {"acquireTime", now},
                  {"renewTime", now},
                  {"leaseTransitions", 0}}}};
}

Result<bool> LeaderElector::TryAcquireOrRenew() {
  Result<Object> current =
      client_.Get(resources::kLeases, options_.namespace_, options_.lease_name);
  if (!current.ok()) {
    if (current.error().status != 404) return current.error();
    Result<Object> created = client_.Create(resources::kLeases, NewLease(), WriteOptions{});
    if (created.ok()) return true;
    if (created.error().status == 409) return false;  // another replica created it first
    return created.error();
  }
  Object lease = std::move(*current);
  Object& spec = lease["spec"];
  if (!spec.is_object()) spec = Object::object();
  const std::string holder = StringOr(spec, "holderIdentity");
  const auto duration = std::chrono::seconds(IntOr(spec, "leaseDurationSeconds", 15));
  // Another holder's Lease expires `duration` after this replica last saw it change, timed on this
  // replica's monotonic clock: the replicas' wall clocks need not agree.
  const MonoTime seen = clock_.Monotonic();
  std::string record =
      holder + "\n" + StringOr(spec, "renewTime") + "\n" + std::to_string(duration.count());
  if (record != observed_record_) {
    observed_record_ = std::move(record);
    observed_at_ = seen;
  }
  if (holder != options_.identity && !holder.empty() && seen < observed_at_ + duration) {
    return false;  // held, and renewed within its duration as far as this replica saw
  }
  const TimePoint now = clock_.Now();
  const std::string now_text = FormatMicroTime(now);
  if (holder != options_.identity) {
    spec["holderIdentity"] = options_.identity;
    spec["acquireTime"] = now_text;
    spec["leaseTransitions"] = IntOr(spec, "leaseTransitions", 0) + 1;
  }
  spec["leaseDurationSeconds"] = options_.lease_duration.count();
  spec["renewTime"] = now_text;
  Result<Object> updated = client_.Update(resources::kLeases, lease, Subresource::kNone);
  if (updated.ok()) return true;
  if (updated.error().status == 409) return false;  // someone else renewed or took it over
  return updated.error();
}

Status LeaderElector::Release() {
  Result<Object> current =
      client_.Get(resources::kLeases, options_.namespace_, options_.lease_name);
  if (!current.ok()) return current.error().status == 404 ? Status() : Status(current.error());
  Object lease = std::move(*current);
  Object& spec = lease["spec"];
  if (!spec.is_object() || StringOr(spec, "holderIdentity") != options_.identity) return {};
  spec["holderIdentity"] = "";
  spec["leaseDurationSeconds"] = 1;
  Result<Object> updated = client_.Update(resources::kLeases, lease, Subresource::kNone);
  if (!updated.ok() && updated.error().status != 409) return updated.error();
  return {};
}

bool LeaderElector::AwaitLeadership(const std::stop_token& stop,
                                    const std::function<void(const Error&)>& on_error) {
  while (!stop.stop_requested()) {
    Result<bool> leading = TryAcquireOrRenew();
    if (leading.ok() && *leading) return true;
    if (!leading.ok()) on_error(leading.error());
    std::this_thread::sleep_for(options_.follower_period);
  }
  return false;
}

Status LeaderElector::HoldLeadership(const std::stop_token& stop) {
  MonoTime last_renewed = clock_.Monotonic();
  while (!stop.stop_requested()) {
    std::this_thread::sleep_for(options_.renew_period);
    Result<bool> leading = TryAcquireOrRenew();
    if (leading.ok() && *leading) {
      last_renewed = clock_.Monotonic();
    } else if (clock_.Monotonic() - last_renewed >= options_.lease_duration) {
      return Error("lost leadership: the lease was not renewed in time");
    }
  }
  return {};
}

}  // namespace karpenter::kube
