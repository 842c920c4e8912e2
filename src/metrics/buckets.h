#pragma once
// The histogram buckets and summary quantiles upstream's series use (docs/metrics.md, "Buckets"),
// so that dashboards' histogram_quantile queries and recording rules read the same boundaries.

#include <prometheus/histogram.h>
#include <prometheus/summary.h>

namespace karpenter::metrics {

// Durations: 5 ms to 10 minutes in 45 bounds (upstream's DurationBuckets).
prometheus::Histogram::BucketBoundaries DurationBuckets();
// `count` bounds from `start`, each `factor` times the one before.
prometheus::Histogram::BucketBoundaries ExponentialBuckets(double start, double factor, int count);
// client_golang's default buckets (5 ms to 10 s), where upstream sets none.
prometheus::Histogram::BucketBoundaries DefaultBuckets();
// Quantiles 0, 0.5, 0.9, 0.99 and 1, each within 0.01 (upstream's SummaryObjectives).
prometheus::Summary::Quantiles SummaryQuantiles();

}  // namespace karpenter::metrics
