#pragma once
// `clustersim check SWEEP.yaml` and `sweep --dry-run`: every point expanded and validated
// before any runs -- a bad value located at its grid entry, the objective checked against the
// keys a run will produce -- and what the sweep would spend (events, memory, wall time).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/input/input_error.hpp"
#include "tools/scenario/sweep_file.hpp"

namespace clustersim {

struct SweepCheck {
    std::vector<InputError> errors;    // one per problem, located (a bad value once, not per point)
    std::vector<InputError> warnings;  // located: an axis that changes nothing
    std::uint64_t points = 0, valid_points = 0, runs = 0;  // runs: valid points x seeds
    std::uint64_t events = 0;                              // summed over the runs
    std::uint64_t memory_bytes = 0;  // the largest point's (a thread runs one at a time)
    double wall_s = 0;               // one thread's, summed over the runs (wall_estimate.hpp)
    std::uint64_t unestimated = 0;   // valid points whose workload has no size formula
    bool availability = false;       // points are availability analyses: a run per mode more
};

SweepCheck check_sweep(const SweepSpec& spec);
/// The summary line: points, runs, events, memory, wall time (and with how many threads).
std::string sweep_check_summary(const SweepSpec& spec, const SweepCheck& c, std::uint32_t threads);

}  // namespace clustersim
