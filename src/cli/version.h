#pragma once
// What `karpenter --version` prints: the version from the repository's VERSION file and the build
// (the commit it was built from, and the build type), never a build time, so that the same source
// gives the same binary.

#include <string>
#include <string_view>

namespace karpenter::cli {

std::string_view Version();  // "0.1.0"
// "commit 79dbbd0, Release"; "commit unknown" outside a git checkout; "+dirty" when the tree had
// uncommitted changes at configure time.
std::string_view Build();
// "79dbbd0" ("79dbbd0+dirty", "unknown"): the commit alone, for karpenter_build_info.
std::string_view Commit();
// "karpenter 0.1.0 (commit 79dbbd0, Release)"
std::string VersionLine();

}  // namespace karpenter::cli
