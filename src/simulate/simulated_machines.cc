#include "simulate/simulated_machines.h"

namespace karpenter::simulate {

SimulatedMachines::SimulatedMachines(op::Manager& manager, kube::Client& client,
                                     cloud::SimCloudProvider& cloud, const Clock& clock,
                                     const Logger& logger, cloud::NodeBooterOptions options)
    : logger_(logger.Named("sim.nodebooter")),
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

}  // namespace karpenter::simulate
