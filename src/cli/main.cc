// karpenter: the node autoscaler's command line (cli/command_line.h).

#include <iostream>
#include <string>
#include <vector>

#include "cli/command_line.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return karpenter::cli::RunCommandLine(args, std::cout, std::cerr);
}
