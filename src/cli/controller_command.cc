#include "cli/controller_command.h"

#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "cli/command_line.h"
#include "cli/version.h"
#include "common/clock.h"
#include "common/log.h"
#include "operator/aws_backend.h"
#include "operator/operator.h"
#include "operator/options.h"
#include "simulate/sim_backend.h"

namespace karpenter::cli {
namespace {

std::optional<std::string> Getenv(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

int RunController(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Result<op::Options> options = op::ParseOptions(args, Getenv);
  if (!options.ok()) {
    err << "karpenter controller: " << options.error().message << "\n"
        << "Run 'karpenter controller --help' for usage.\n";
    return kExitUsage;
  }
  if (options->show_help) {
    out << op::OptionsHelp();
    return 0;
  }
  // SIGTERM and SIGINT become a stop request: block them in every thread (threads inherit the
  // mask) and wait for them on one.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::stop_source stop;
  std::jthread signal_waiter([&signals, &stop](std::stop_token done) {
    while (!done.stop_requested()) {
      timespec wait{0, 200'000'000};
      if (sigtimedwait(&signals, nullptr, &wait) > 0) {
        stop.request_stop();
        return;
      }
    }
  });

  const RealClock clock;
  auto sink = std::make_shared<LogSink>(stdout, clock, options->log_level);
  const Logger logger(sink);
  const op::CloudBackendFactory new_backend =
      options->cloud_provider == op::CloudProviderKind::kAws
          ? op::CloudBackendFactory(op::NewAwsBackend)
          : op::CloudBackendFactory(simulate::NewSimBackend);
  Status outcome = op::RunOperator(*options, {std::string(Version()), std::string(Commit())},
                                   logger, stop.get_token(), new_backend);
  signal_waiter.request_stop();
  if (!outcome.ok()) {
    logger.Error("controller failed", {logkey::Err(outcome.error())});
    return kExitFailure;
  }
  return 0;
}

}  // namespace karpenter::cli
