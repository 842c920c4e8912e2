#pragma once
// A scrape: the series of several sources (the registry the controllers count on, collectors that
// read their values at scrape time) in the Prometheus text exposition format, version 0.0.4.

#include <prometheus/collectable.h>

#include <span>
#include <string>
#include <string_view>

namespace karpenter::metrics {

inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// The families of every source, sorted by name (a name two sources both give is an error of ours;
// both are written, and the linter test catches it).
std::string TextExposition(std::span<const prometheus::Collectable* const> sources);

}  // namespace karpenter::metrics
