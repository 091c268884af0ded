#pragma once
// gpu_timeline.csv: what a sample of GPUs did over the run -- computing (named by stage),
// sending (some message of theirs in flight while they do not compute) and waiting (neither:
// for the tokens or results of others) -- the per-GPU picture of where a step's time goes.
#include <cstdint>
#include <ostream>
#include <vector>

#include "models/network/simulation.hpp"
#include "traffic/moe_workload.hpp"

namespace clustersim {

/// At most this many GPUs, spread evenly over the cluster (GPU i x N / k).
inline constexpr std::uint32_t kTimelineGpus = 16;

std::vector<std::uint32_t> timeline_gpus(std::uint32_t endpoints, std::uint32_t count);

/// `gpu,state,start_us,end_us,stage`: states compute, sending and waiting; intervals of one GPU
/// do not overlap and cover [0, its last activity]. `moe` may be null (stages unnamed).
void write_gpu_timeline_csv(std::ostream& out, const Workload& w, const SimulationResult& r,
                            const MoeRun* moe, std::uint32_t endpoints);

}  // namespace clustersim
