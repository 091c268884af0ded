#pragma once
// One run from a loaded scenario to its results document: cheap validation, the estimate and
// its limits, building, simulating, reporting. `run` and every point of `sweep` go through it.
#include <optional>

#include "tools/scenario/estimate.hpp"
#include "tools/scenario/results_json.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/build.hpp"
#include "models/network/simulation.hpp"

namespace clustersim {

/// Checked and built, ready to simulate.
struct PreparedRun {
    RunEstimate estimate;
    std::optional<MoeRun> moe;  // workload.kind: moe (its workload moved into `workload`)
    SimulatedFabric fabric;
    Workload workload;
};

/// Validates the workload, estimates from formulas and refuses what exceeds sim.max_events or
/// sim.max_memory_gb, then builds the fabric and the workload. Throws InputError.
PreparedRun prepare_run(const Scenario& s);

struct RunOutcome {
    SimulationResult result;
    Json results;  // the results.json document
};

/// Simulates a prepared run; `progress` prints a progress line on stderr for long runs.
RunOutcome execute_run(const Scenario& s, const PreparedRun& p, bool progress);

}  // namespace clustersim
