#pragma once
// Reading a scrape in tests: the samples of a Prometheus text exposition, and sums over those
// whose labels match.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace karpenter::support {

struct Sample {
  std::string name;  // with its suffix: "x_bucket", "x_count", "x_total"
  std::map<std::string, std::string, std::less<>> labels;
  double value = 0;
};

// The samples of `text`; an error names the line that does not parse.
Result<std::vector<Sample>> ParseExposition(std::string_view text);

using LabelFilter = std::map<std::string, std::string, std::less<>>;
// The sum of the samples named `name` whose labels include `filter`.
double Sum(const std::vector<Sample>& samples, std::string_view name,
           const LabelFilter& filter = {});
// How many samples named `name` have labels including `filter`.
size_t Count(const std::vector<Sample>& samples, std::string_view name,
             const LabelFilter& filter = {});

}  // namespace karpenter::support
