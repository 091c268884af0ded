#pragma once
// `check --json`: what `check` says of a scenario or a sweep, as one JSON document (the CLI
// contract's `memory_estimate_bytes` and `events_estimate`, with the memory by part).
#include <cstdint>
#include <string>

#include "tools/scenario/estimate.hpp"
#include "tools/scenario/results_json.hpp"
#include "tools/scenario/sweep_check.hpp"

namespace clustersim {

/// `file` is the scenario as named on the command line; `replicates` its sim.replicates;
/// `ranks`, when given (check --ranks R), adds what each MPI rank would hold and handle.
Json scenario_check_json(const std::string& file, const ScenarioEstimate& e,
                         std::uint32_t replicates, const RanksEstimate* ranks = nullptr);
/// `threads`: points run at once (the wall-time estimate divides by it).
Json sweep_check_json(const SweepSpec& spec, const SweepCheck& c, std::uint32_t threads);

}  // namespace clustersim
