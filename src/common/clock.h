#pragma once
// All time comes from a Clock: the real one in production, a virtual one in tests and `simulate`,
// where time moves only when the simulation advances it.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace karpenter {

using TimePoint = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
};

class RealClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::system_clock::now(); }
};

// Starts at `start` and moves only by Advance/Set.
class VirtualClock final : public Clock {
 public:
  explicit VirtualClock(TimePoint start) : now_(start) {}
  TimePoint Now() const override { return now_; }
  void Advance(std::chrono::nanoseconds by) {
    now_ += std::chrono::duration_cast<TimePoint::duration>(by);
  }
  void Set(TimePoint to) { now_ = to; }

 private:
  TimePoint now_;
};

// Kubernetes timestamps: RFC 3339 in UTC with whole seconds ("2026-11-30T23:53:15Z"), and the
// MicroTime form with microseconds ("2026-11-30T23:53:15.123456Z") used by Leases and Events.
std::string FormatTime(TimePoint time);
std::string FormatMicroTime(TimePoint time);
// Accepts both forms, any fraction of a second, and "Z" or a numeric offset.
std::optional<TimePoint> ParseTime(std::string_view text);

}  // namespace karpenter
