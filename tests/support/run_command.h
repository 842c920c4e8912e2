#pragma once
// Runs a shell command from a test and returns what it printed.

#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace karpenter::support {

// What `command` printed on standard output; throws with that output when it fails.
inline std::string RunCommand(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("cannot run: " + command);
  std::string out;
  std::array<char, 4096> buffer{};
  size_t read = 0;
  while ((read = fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0) {
    out.append(buffer.data(), read);
  }
  const int status = pclose(pipe.release());
  if (status != 0) {
    throw std::runtime_error("`" + command + "` failed (status " + std::to_string(status) + "):\n" +
                             out);
  }
  return out;
}

}  // namespace karpenter::support
