#include "aws/provider/interruption_metrics.h"

#include <algorithm>
#include <string>

#include "metrics/buckets.h"

namespace karpenter::aws {

InterruptionMetrics::InterruptionMetrics(prometheus::Registry& registry)
    : received_(prometheus::BuildCounter()
                    .Name("karpenter_interruption_received_messages_total")
                    .Help("Messages received from the interruption queue, by type.")
                    .Register(registry)),
      deleted_(prometheus::BuildCounter()
                   .Name("karpenter_interruption_deleted_messages_total")
                   .Help("Messages deleted from the interruption queue.")
                   .Register(registry)
                   .Add({})),
      queue_duration_(prometheus::BuildHistogram()
                          .Name("karpenter_interruption_message_queue_duration_seconds")
                          .Help("From an interruption event to its message being handled, in "
                                "seconds.")
                          .Register(registry)
                          .Add({}, metrics::DurationBuckets())) {}

void InterruptionMetrics::Received(std::string_view message_type) {
  received_.Add({{"message_type", std::string(message_type)}}).Increment();
}

void InterruptionMetrics::Deleted() { deleted_.Increment(); }

void InterruptionMetrics::Handled(std::chrono::nanoseconds delay) {
  queue_duration_.Observe(std::max(0.0, std::chrono::duration<double>(delay).count()));
}

}  // namespace karpenter::aws
