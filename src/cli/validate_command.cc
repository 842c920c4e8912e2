#include "cli/validate_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "api/manifest.h"

namespace karpenter::cli {
namespace {

bool IsManifestFile(const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  return extension == ".yaml" || extension == ".yml" || extension == ".json";
}

// The files to read: each argument, with directories replaced by their manifest files (sorted).
std::vector<std::string> ExpandArguments(const std::vector<std::string>& arguments,
                                         std::vector<std::string>& errors) {
  std::vector<std::string> files;
  files.reserve(arguments.size());
  for (const std::string& argument : arguments) {
    std::error_code error;
    if (argument == "-" || !std::filesystem::is_directory(argument, error)) {
      files.push_back(argument);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = std::filesystem::recursive_directory_iterator(argument, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_regular_file(error) && IsManifestFile(it->path())) {
        found.push_back(it->path().string());
      }
    }
    if (error) errors.push_back(fmt::format("{}: cannot list: {}", argument, error.message()));
    std::sort(found.begin(), found.end());
    files.insert(files.end(), std::make_move_iterator(found.begin()),
                 std::make_move_iterator(found.end()));
  }
  return files;
}

size_t ObjectCount(const api::Manifest& manifest) {
  return manifest.node_pools.size() + manifest.node_claims.size() + manifest.node_classes.size() +
         manifest.node_overlays.size() + manifest.capacity_buffers.size() +
         manifest.pod_templates.size() + manifest.pods.size() + manifest.nodes.size() +
         manifest.workloads.size() + manifest.pdbs.size() + manifest.persistent_volumes.size() +
         manifest.persistent_volume_claims.size() + manifest.storage_classes.size();
}

}  // namespace

int RunValidate(const std::vector<std::string>& files, std::ostream& out, std::ostream& err) {
  if (files.empty()) {
    err << "validate: no files given\n";
    return 1;
  }
  std::vector<std::string> problems;
  const std::vector<std::string> paths = ExpandArguments(files, problems);
  size_t valid = 0;
  size_t ignored = 0;
  for (const std::string& path : paths) {
    api::DecodeOutcome outcome;
    if (path == "-") {
      std::ostringstream text;
      text << std::cin.rdbuf();
      outcome = api::DecodeManifest(text.view(), "<stdin>");
    } else {
      outcome = api::LoadManifestFile(path);
    }
    valid += ObjectCount(outcome.manifest);
    ignored += outcome.manifest.ignored.size();
    problems.insert(problems.end(), std::make_move_iterator(outcome.errors.begin()),
                    std::make_move_iterator(outcome.errors.end()));
  }
  for (const std::string& problem : problems) out << problem << '\n';
  err << fmt::format("{} valid object{}, {} ignored, {} problem{} in {} file{}\n", valid,
                     valid == 1 ? "" : "s", ignored, problems.size(),
                     problems.size() == 1 ? "" : "s", paths.size(), paths.size() == 1 ? "" : "s");
  return problems.empty() ? 0 : 1;
}

}  // namespace karpenter::cli
