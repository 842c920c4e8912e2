#pragma once
// All time comes from a Clock: the real one in production, a virtual one in tests and `simulate`,
// where time moves only when the simulation advances it.
//
// A clock tells two times. The wall time (Now) is what gets written to objects and compared with
// the times read from them (creationTimestamp, a Lease's renewTime, an STS expiration). The
// monotonic time (Monotonic) is for timers and deadlines a process keeps to itself: it never
// jumps, so a stepped wall clock (NTP, a VM resumed) neither stretches nor skips a timer.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace karpenter {

using TimePoint = std::chrono::system_clock::time_point;  // wall time
using MonoTime = std::chrono::steady_clock::time_point;   // timers and deadlines

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
  virtual MonoTime Monotonic() const = 0;
};

class RealClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::system_clock::now(); }
  MonoTime Monotonic() const override { return std::chrono::steady_clock::now(); }
};

// Starts at `start` and moves only by Advance/Set. Advance and a Set forward move the wall and the
// monotonic time together; a Set backward steps the wall time alone, as an NTP correction steps a
// real one, so tests can show that timers do not follow it.
class VirtualClock final : public Clock {
 public:
  explicit VirtualClock(TimePoint start) : now_(start) {}
  TimePoint Now() const override { return now_; }
  MonoTime Monotonic() const override { return MonoTime{} + elapsed_; }
  void Advance(std::chrono::nanoseconds by) {
    now_ += std::chrono::duration_cast<TimePoint::duration>(by);
    elapsed_ += std::chrono::duration_cast<MonoTime::duration>(by);
  }
  void Set(TimePoint to) {
    if (to > now_) elapsed_ += std::chrono::duration_cast<MonoTime::duration>(to - now_);
    now_ = to;
  }

 private:
  TimePoint now_;
  MonoTime::duration elapsed_{0};
};

// The monotonic time at which `clock`'s wall time will read `wall`, as far as it knows now: for a
// timer on a deadline that comes from a written time (an instance's launch time plus its boot
// delay).
inline MonoTime MonotonicAt(const Clock& clock, TimePoint wall) {
  return clock.Monotonic() + std::chrono::duration_cast<MonoTime::duration>(wall - clock.Now());
}

// Kubernetes timestamps: RFC 3339 in UTC with whole seconds ("2026-11-30T23:53:15Z"), and the
// MicroTime form with microseconds ("2026-11-30T23:53:15.123456Z") used by Leases and Events.
std::string FormatTime(TimePoint time);
std::string FormatMicroTime(TimePoint time);
// Accepts both forms, any fraction of a second, and "Z" or a numeric offset; nullopt for what is
// not such a time or lies outside a TimePoint's range (before 1678 or after 2262).
std::optional<TimePoint> ParseTime(std::string_view text);

}  // namespace karpenter
