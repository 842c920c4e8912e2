#pragma once
// Text wrapped for a terminal: help screens and reports.

#include <cstddef>
#include <string>
#include <string_view>

namespace karpenter {

// `text` in lines of at most `width` columns, each after `indent` spaces and ending with a
// newline. A word too long for a line (a list of feature gates) is broken after its commas.
std::string Wrap(std::string_view text, size_t indent, size_t width);

}  // namespace karpenter
