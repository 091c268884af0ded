#pragma once
// `clustersim sweep`: many runs of one base scenario over a grid (cartesian) and zipped lists
// of key values, each point a full run (with `seeds`, several), ranked by cost against an
// objective. Points run on threads of one process (no global state); each finished point is
// kept under OUT/points/ so that rerunning the same command resumes.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tools/scenario/results_json.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/sweep_file.hpp"

namespace clustersim {

/// Gathers every rank's text at rank 0 (rank order); other ranks get an empty list.
using GatherToRoot = std::function<std::vector<std::string>(const std::string&)>;

struct SweepOptions {
    unsigned threads = 1;
    std::string out_dir;  // empty: nothing written, nothing resumed
    // Serving points' step runs kept across runs (step_store.hpp); empty: none. Created when a
    // serving point first needs it; if it cannot be, the points run without it.
    std::string step_store;
    bool progress = true;
    // Over MPI: this rank runs points i with i % ranks == rank; rank 0 gathers and writes.
    std::size_t rank = 0, ranks = 1;
    GatherToRoot gather;  // required when ranks > 1
};

struct SweepSummary {
    std::size_t points = 0, failed = 0, resumed = 0;
    std::string csv;  // results.csv
    Json json;        // results.json
};

/// Runs every point not already finished under out_dir, then writes results.csv and
/// results.json there.
SweepSummary run_sweep(const SweepSpec& spec, const SweepOptions& options);

/// What `sweep` prints: one aligned row per point -- the varied values under their keys, the
/// status, the cluster's cost, the objective (with its interval) and the decode headline where
/// there is one, rounded to four figures, the Pareto front starred (results.csv has it all).
std::string sweep_table(const SweepSpec& spec, const SweepSummary& summary);

}  // namespace clustersim
