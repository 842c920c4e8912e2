#include "cli/version.h"

namespace karpenter::cli {

// Defined for this file only (CMakeLists.txt), so a new commit recompiles one file.
std::string_view Version() { return KARPENTER_VERSION; }
std::string_view Build() { return KARPENTER_BUILD; }
std::string_view Commit() { return KARPENTER_COMMIT; }
std::string VersionLine() {
  return "karpenter " + std::string(Version()) + " (" + std::string(Build()) + ")";
}

}  // namespace karpenter::cli
