#pragma once
// `clustersim availability`: what a MoE step's cluster delivers over days of component failures.
// The fabric's parts are grouped by class and tier (its symmetry: a mode counts how many of a
// group are out, not which; a seeded representative stands for them), days of failures are
// sampled from the failure rates (availability_days.hpp), and each distinct mode the days meet
// is one packet-level run of the step with those parts lost from the start (the faults
// machinery, docs/faults.md). Results: the healthy run's document plus `availability`.
#include <string>
#include <vector>

#include "tools/scenario/results_json.hpp"
#include "tools/scenario/scenario.hpp"

namespace clustersim {

/// Runs the analysis (InputError for a scenario it cannot take: not a MoE step, a serving
/// run, its own faults, too many modes). `progress`: a line per simulated mode on stderr.
Json run_availability(const Scenario& s, bool progress);

/// What `availability` prints: the headline, the groups and the worst modes.
std::string availability_table(const Json& results);

/// The numeric keys of the `availability` section (sweep objectives).
std::vector<std::string> availability_result_keys();

}  // namespace clustersim
