#include "fuzz.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "common/json.h"

namespace karpenter::bench {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  std::string name;
  int64_t executions = 0;
  int64_t coverage = 0;
  int64_t features = 0;
  int64_t corpus = 0;
  double seconds = 0;
  std::string crash;  // the reproducer's path; empty when none
  int status = 0;
};

// The last number after `key` in libFuzzer's output ("cov: 123", "stat::number_of_executed_units:
// 4567"); 0 when absent.
int64_t LastNumber(const std::string& output, const std::string& key) {
  const std::regex pattern(key + R"(\s*([0-9]+))");
  int64_t value = 0;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    value = std::stoll((*it)[1].str());
  }
  return value;
}

// `text` as one shell word.
std::string Quote(const std::string& text) {
  std::string out(1, '\'');
  for (const char c : text) {
    if (c == '\'') {
      out.append("'\\''");
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

// Runs `binary` from its seeds (read only: what it finds goes to a scratch folder).
Outcome RunTarget(const fs::path& binary, const fs::path& seeds, const FuzzArgs& args,
                  const fs::path& scratch) {
  Outcome outcome;
  outcome.name = binary.filename().string();
  const fs::path found = scratch / outcome.name / "corpus";
  const fs::path artifacts = scratch / outcome.name / "crashes";
  fs::create_directories(found);
  fs::create_directories(artifacts);
  std::string command = fmt::format(
      "{} -print_final_stats=1 -timeout=25 -rss_limit_mb=2048 -max_len=65536 -artifact_prefix={}",
      Quote(binary.string()), Quote(artifacts.string() + "/"));
  command.append(args.runs > 0 ? fmt::format(" -runs={}", args.runs)
                               : fmt::format(" -max_total_time={}", args.seconds));
  if (args.seed > 0) command.append(fmt::format(" -seed={}", args.seed));
  command.append(fmt::format(" {}", Quote(found.string())));
  if (fs::is_directory(seeds)) command.append(fmt::format(" {}", Quote(seeds.string())));
  command.append(" 2>&1");
  const auto started = std::chrono::steady_clock::now();
  std::string output;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
    outcome.status = ::pclose(pipe);
  } else {
    outcome.status = -1;
  }
  outcome.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  outcome.executions = LastNumber(output, "stat::number_of_executed_units:");
  outcome.coverage = LastNumber(output, "cov:");
  outcome.features = LastNumber(output, "ft:");
  outcome.corpus = LastNumber(output, "corp:");
  if (outcome.status != 0) {
    for (const fs::directory_entry& entry : fs::directory_iterator(artifacts)) {
      outcome.crash = entry.path().string();
    }
    // What it said, for the one who fixes it.
    std::cerr << "--- " << outcome.name << " (exit status " << outcome.status << ") ---\n"
              << output.substr(output.size() > 8000 ? output.size() - 8000 : 0) << "\n";
  }
  return outcome;
}

}  // namespace

int RunFuzz(const FuzzArgs& args) {
  const fs::path source(KARPENTER_SOURCE_DIR);
  const fs::path fuzzers = args.fuzzers.empty() ? source / "build-fuzz" : fs::path(args.fuzzers);
  const fs::path corpus =
      args.corpus.empty() ? source / "tests" / "fuzz" / "corpus" : fs::path(args.corpus);
  std::vector<fs::path> binaries;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(fuzzers, error)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !name.ends_with("_fuzz")) continue;
    const std::string target = name.substr(0, name.size() - 5);
    if (args.targets.empty() ||
        std::find(args.targets.begin(), args.targets.end(), target) != args.targets.end()) {
      binaries.push_back(entry.path());
    }
  }
  if (binaries.size() < args.targets.size()) {
    std::cerr << "karpenter-bench fuzz: some of the --targets have no executable in "
              << fuzzers.string() << " (names are without \"_fuzz\")\n";
    return 1;
  }
  if (binaries.empty()) {
    std::cerr << "karpenter-bench fuzz: no *_fuzz executables in " << fuzzers.string()
              << " (scripts/fuzz builds them)\n";
    return 1;
  }
  std::sort(binaries.begin(), binaries.end());
  const fs::path scratch = fs::temp_directory_path() / fmt::format("karpenter-fuzz-{}", ::getpid());
  Json targets = Json::array();
  int64_t executions = 0;
  int crashes = 0;
  for (const fs::path& binary : binaries) {
    const std::string name = binary.filename().string();
    const Outcome outcome =
        RunTarget(binary, corpus / name.substr(0, name.size() - 5), args, scratch);
    executions += outcome.executions;
    if (outcome.status != 0) ++crashes;
    targets.push_back({{"name", outcome.name},
                       {"executions", outcome.executions},
                       {"coverage", outcome.coverage},
                       {"features", outcome.features},
                       {"corpus", outcome.corpus},
                       {"seconds", outcome.seconds},
                       {"crash", outcome.crash.empty() ? Json(nullptr) : Json(outcome.crash)}});
  }
  std::cout
      << Json{{"targets", targets},
              {"summary",
               {{"targets", targets.size()}, {"executions", executions}, {"crashes", crashes}}}}
             .dump()
      << '\n';
  if (crashes == 0) fs::remove_all(scratch, error);
  return crashes == 0 ? 0 : 1;
}

}  // namespace karpenter::bench
