#include "common/run_program.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX names it, no header does

namespace karpenter {
namespace {

// What an error message keeps of a program's output: its end, where the reason usually is.
constexpr size_t kOutputKept = 2000;

std::string Tail(const std::string& text) {
  if (text.size() <= kOutputKept) return text;
  return "…" + text.substr(text.size() - kOutputKept);
}

}  // namespace

Result<std::string> RunProgram(const std::vector<std::string>& argv) {
  if (argv.empty()) return Error("no program to run");
  std::array<int, 2> pipe_ends{};
  if (pipe2(pipe_ends.data(), O_CLOEXEC) != 0) {
    return Error(fmt::format("{}: pipe: {}", argv[0], std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_ends[1]);
  if (spawned != 0) {
    close(pipe_ends[0]);
    Error error(fmt::format("{}: cannot run it: {}", argv[0], std::strerror(spawned)));
    if (spawned == ENOENT) error.reason = "NotFound";
    return error;
  }
  std::string output;
  std::array<char, 4096> buffer{};
  while (true) {
    const ssize_t read_bytes = read(pipe_ends[0], buffer.data(), buffer.size());
    if (read_bytes > 0) {
      output.append(buffer.data(), static_cast<size_t>(read_bytes));
    } else if (read_bytes == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_ends[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Error(fmt::format("{}: waiting: {}", argv[0], std::strerror(errno)));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return output;
  const std::string how = WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                            : fmt::format("signal {}", WTERMSIG(status));
  return Error(fmt::format("{} failed ({}): {}", argv[0], how, Tail(output)));
}

}  // namespace karpenter
