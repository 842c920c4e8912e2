#include "simulate/simulated_machines.h"

#include <chrono>
#include <thread>

namespace karpenter::simulate {

SimulatedMachines::SimulatedMachines(op::Manager& manager, kube::Client& client,
                                     cloud::SimCloudProvider& cloud, const Clock& clock,
                                     const Logger& logger, cloud::NodeBooterOptions options,
                                     BootLoop loop)
    : clock_(clock),
      logger_(logger.Named("sim.nodebooter")),
      loop_(loop),
      booter_(client, manager.cluster().nodes(), cloud, clock, logger_, options) {
  manager.AddRoundController(*this);
}

void SimulatedMachines::Start() {
  const size_t recovered = booter_.Recover();
  if (recovered > 0) logger_.Info("recovered simulated instances", {{"instances", recovered}});
  started_.store(true, std::memory_order_release);
}

void SimulatedMachines::Run() {
  if (loop_ != BootLoop::kManagerRounds) return;
  if (Result<size_t> booted = booter_.Boot(); !booted.ok()) {
    logger_.Error("booting simulated nodes failed", {logkey::Err(booted.error())});
  }
}

// The booter's deadlines are launch times (written on the instances) plus the boot delay.
std::optional<MonoTime> SimulatedMachines::NextWake() const {
  if (loop_ != BootLoop::kManagerRounds) return std::nullopt;
  const std::optional<TimePoint> wake = booter_.NextWake();
  if (!wake) return std::nullopt;
  return MonotonicAt(clock_, *wake);
}

void SimulatedMachines::RunBootLoop(const std::stop_token& stop) {
  // The cloud does not signal launches, so the loop looks every tick: a Node appears at most a
  // tick after its boot ends (boots take tens of seconds), and a look without news is a counter
  // read (NodeBooter::Boot).
  constexpr std::chrono::milliseconds kTick(50);
  while (!stop.stop_requested()) {
    if (started_.load(std::memory_order_acquire)) {
      if (Result<size_t> booted = booter_.Boot(); !booted.ok()) {
        logger_.Error("booting simulated nodes failed", {logkey::Err(booted.error())});
      }
    }
    std::this_thread::sleep_for(kTick);
  }
}

}  // namespace karpenter::simulate
