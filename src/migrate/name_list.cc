#include "migrate/name_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace karpenter::migrate {

std::string NameList(const std::vector<std::string>& names) {
  constexpr size_t kShown = 5;
  if (names.size() <= kShown) return fmt::format("{}", fmt::join(names, ", "));
  return fmt::format("{}, … ({} more)", fmt::join(names.begin(), names.begin() + kShown, ", "),
                     names.size() - kShown);
}

}  // namespace karpenter::migrate
