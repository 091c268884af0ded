#pragma once
// workload.simulated_layers: auto. A MoE run simulates a few layers and extrapolates the step
// from their steady state; auto adds layers until the step moves by less than 1 % with the
// last one added (decode: the run's first L - 1 layers against all L of it, doubling L until
// they agree; prefill and training: against the previous run, one layer fewer), or the cap is
// reached, and says where it stopped.
#include "tools/scenario/run.hpp"

namespace clustersim {

inline constexpr double kSettledChange = 0.01;

/// Executes `prepared` and, with auto layers, reruns with more (replacing `prepared` by the
/// run whose outcome is returned, so that its files are written from it); a fault's transient
/// inside the window adds its degraded steady state (steady_state.hpp).
RunOutcome execute_settled(const Scenario& s, PreparedRun& prepared, bool progress);

}  // namespace clustersim
