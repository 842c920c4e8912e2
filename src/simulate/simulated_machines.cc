#include "simulate/simulated_machines.h"

namespace karpenter::simulate {

SimulatedMachines::SimulatedMachines(op::Manager& manager, kube::Client& client,
                                     cloud::SimCloudProvider& cloud, const Clock& clock,
                                     const Logger& logger, cloud::NodeBooterOptions options)
    : clock_(clock),
      logger_(logger.Named("sim.nodebooter")),
      booter_(client, manager.cluster().nodes(), cloud, clock, logger_, options) {
  manager.AddRoundController(*this);
}

void SimulatedMachines::Start() {
  const size_t recovered = booter_.Recover();
  if (recovered > 0) logger_.Info("recovered simulated instances", {{"instances", recovered}});
}

void SimulatedMachines::Run() {
  if (Result<size_t> booted = booter_.Boot(); !booted.ok()) {
    logger_.Error("booting simulated nodes failed", {logkey::Err(booted.error())});
  }
}

// The booter's deadlines are launch times (written on the instances) plus the boot delay.
std::optional<MonoTime> SimulatedMachines::NextWake() const {
  const std::optional<TimePoint> wake = booter_.NextWake();
  if (!wake) return std::nullopt;
  return MonotonicAt(clock_, *wake);
}

}  // namespace karpenter::simulate
