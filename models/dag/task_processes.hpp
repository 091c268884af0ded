#pragma once
// Where a workload's tasks run, in logical processes (models/network/logical_processes.hpp): a
// transfer is activated at its sender and completes there (last byte sent) and at its receiver
// (last byte received); a compute task runs on its GPU; a join runs where it is fed. A join
// named after a GPU is that GPU's; any other takes the process all its inputs complete in. A
// dependency whose two ends are in different processes with no delay between them ties the two
// together: a parallel engine must keep them in one partition, since nothing in between gives
// it lookahead.
#include <cstdint>
#include <span>
#include <vector>

#include "models/dag/workload.hpp"

namespace clustersim {

/// Two processes a dependency joins with less delay than a parallel engine's lookahead.
struct ProcessTie {
    std::uint32_t from = 0, to = 0;
    friend bool operator==(const ProcessTie&, const ProcessTie&) = default;
    friend auto operator<=>(const ProcessTie&, const ProcessTie&) = default;
};

struct TaskProcesses {
    std::vector<std::uint32_t> of_join;  // per join: the process it runs in
    // Distinct pairs of processes joined by a dependency with no delay, sorted.
    std::vector<ProcessTie> ties;
    // Joins fed from more than one process (each placed with its first input; a tie per other).
    std::uint64_t mixed_joins = 0;
};

/// `gpu_process`: per GPU (endpoint), its process; `fallback`: the process of a join nothing
/// feeds (the observer's). Only delays shorter than `min_delay` make ties.
TaskProcesses task_processes(const Workload& workload, std::span<const std::uint32_t> gpu_process,
                             std::uint32_t fallback, Time min_delay);

}  // namespace clustersim
