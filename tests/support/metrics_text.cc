#include "support/metrics_text.h"

#include <cstdlib>
#include <string>

namespace karpenter::support {
namespace {

bool Matches(const Sample& sample, std::string_view name, const LabelFilter& filter) {
  if (sample.name != name) return false;
  for (const auto& [key, value] : filter) {
    const auto found = sample.labels.find(key);
    if (found == sample.labels.end() ? !value.empty() : found->second != value) return false;
  }
  return true;
}

}  // namespace

Result<std::vector<Sample>> ParseExposition(std::string_view text) {
  std::vector<Sample> samples;
  size_t number = 0;
  while (!text.empty()) {
    ++number;
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;
    auto fail = [&](std::string_view why) {
      return Error("line " + std::to_string(number) + ": " + std::string(why) + ": " +
                   std::string(line));
    };
    Sample sample;
    size_t i = line.find_first_of("{ ");
    if (i == std::string_view::npos) return fail("no value");
    sample.name = std::string(line.substr(0, i));
    if (line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        const size_t equals = line.find('=', i);
        if (equals == std::string_view::npos || equals + 1 >= line.size() ||
            line[equals + 1] != '"') {
          return fail("a label without =\"");
        }
        std::string key(line.substr(i, equals - i));
        std::string value;
        size_t j = equals + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
          if (line[j] == '\\' && j + 1 < line.size()) {
            ++j;
            value += line[j] == 'n' ? '\n' : line[j];
          } else {
            value += line[j];
          }
        }
        if (j >= line.size()) return fail("an unterminated label value");
        sample.labels[std::move(key)] = std::move(value);
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      if (i >= line.size()) return fail("no closing }");
      ++i;
    }
    const std::string value(line.substr(i));
    char* parsed_end = nullptr;
    sample.value = std::strtod(value.c_str(), &parsed_end);
    if (parsed_end == value.c_str()) return fail("the value is not a number");
    samples.push_back(std::move(sample));
  }
  return samples;
}

double Sum(const std::vector<Sample>& samples, std::string_view name, const LabelFilter& filter) {
  double sum = 0;
  for (const Sample& sample : samples) {
    if (Matches(sample, name, filter)) sum += sample.value;
  }
  return sum;
}

size_t Count(const std::vector<Sample>& samples, std::string_view name, const LabelFilter& filter) {
  size_t count = 0;
  for (const Sample& sample : samples) count += Matches(sample, name, filter) ? 1 : 0;
  return count;
}

}  // namespace karpenter::support
