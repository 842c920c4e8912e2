#pragma once
// Where the SDK's tests find the tools they check against (AWS's SigV4 test suite, a Python with
// botocore and moto): the directory scripts/aws-test-tools installs them to and prints. CTest
// runs that script first (the aws_tools fixture); asking it again here costs nothing once cached.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "support/run_command.h"

namespace karpenter::aws::testing {

using karpenter::support::RunCommand;

// The installed tools' directory: $KARPENTER_AWS_TEST_TOOLS, else what scripts/aws-test-tools
// prints (it installs them on first use).
inline std::string AwsTestToolsDir() {
  if (const char* dir = std::getenv("KARPENTER_AWS_TEST_TOOLS"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  std::string dir = RunCommand(std::string(KARPENTER_AWS_TEST_TOOLS_SCRIPT) + " 2>&1");
  while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
  if (const size_t line = dir.rfind('\n'); line != std::string::npos) dir.erase(0, line + 1);
  return dir;
}

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace karpenter::aws::testing
