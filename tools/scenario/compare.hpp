#pragma once
// `clustersim compare OUT_A OUT_B ...`: what-ifs side by side. The headline numbers of each
// run (its results.json) against the first's: absolute and relative differences and, where
// both ran replicates, whether the difference lies outside their 95 % intervals -- a
// difference inside them is not one the runs can tell from their seeds' noise.
#include <string>
#include <vector>

#include "tools/scenario/results_json.hpp"

namespace clustersim {

/// A run's results.json, from its --out folder (or the file itself). Throws InputError, one
/// located line, for a folder without one or a document that is not a run's.
Json read_run_results(const std::string& path);

/// The comparison as JSON: `runs` (the names given), `rows` (key, values, deltas against the
/// first, relative deltas, and `beyond_intervals` where both have a _ci95).
Json compare_runs(const std::vector<std::string>& names, const std::vector<Json>& results);
/// The same as an aligned table.
std::string compare_table(const Json& comparison);

}  // namespace clustersim
