#pragma once
// The interruption queue's series, under upstream's names: messages received by type, messages
// deleted, and how long after the event a message was handled.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <string_view>

namespace karpenter::aws {

class InterruptionMetrics {
 public:
  // Registered on `registry`, which must outlive this (several controllers may share it).
  explicit InterruptionMetrics(prometheus::Registry& registry);

  // `message_type`: MessageType() of a message that parsed.
  void Received(std::string_view message_type);
  void Deleted();
  // A message handled `delay` after its event happened.
  void Handled(std::chrono::nanoseconds delay);

 private:
  prometheus::Family<prometheus::Counter>& received_;
  prometheus::Counter& deleted_;
  prometheus::Histogram& queue_duration_;
};

}  // namespace karpenter::aws
