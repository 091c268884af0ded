#pragma once
// A run spread over MPI ranks (sim/ranks.hpp) ends with each rank holding what its partitions
// did, and its copy of the rest of the model idle at its initial state: message and task times
// at `never`, counts at zero. Merged, every rank holds the serial run's result.
#include "models/network/simulation.hpp"
#include "sim/ranks.hpp"

namespace clustersim {

/// Merges `r`'s per-rank parts (counters, message and compute times, channel counts, path
/// spread, bytes of unfinished messages) over the ranks: a collective.
void merge_over_ranks(SimulationResult& r, Ranks& ranks);

}  // namespace clustersim
