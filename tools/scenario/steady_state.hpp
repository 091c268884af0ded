#pragma once
// A fault that starts inside the simulated window puts its transient (losses, timeouts, the
// reroute) into the simulated layers. The step that contains it and the degraded steady state
// after it are two numbers: the steady state is the same scenario with every fault still
// present at the window's end in place from the start (all reactions done) and those over by
// then left out, simulated as many layers; the transient step is the faulted run's simulated
// layers as they ran plus the others at the steady state's pace.
#include "tools/scenario/run.hpp"

namespace clustersim {

/// Some fault starts inside the window (at_us > 0).
bool has_transient(const Scenario& s);
/// The degraded steady state of `s`, whose faulted run's window ended at `window_end`: the
/// same seed and layers (`simulated_layers`), and the transport the faulted run had.
Scenario degraded_steady_state(const Scenario& s, Time window_end, std::uint32_t simulated_layers);
/// With a transient in a completed MoE run: simulates the steady state and rewrites the phase
/// section of `o` -- the step containing the transient, paced by the steady state after its
/// simulated layers -- adding `degraded_steady_state` (that run's headline numbers, or why it
/// has none).
void add_steady_state(const Scenario& s, const PreparedRun& prepared, RunOutcome& o, bool progress);

}  // namespace clustersim
