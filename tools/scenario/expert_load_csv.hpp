#pragma once
// experts.csv: how many tokens each routed expert received in each simulated all-to-all (the
// gating's draw), what the report draws as the per-expert load heatmap; hot experts and the
// GPUs that hold them are what stretch a dispatch.
#include <ostream>

#include "traffic/moe_workload.hpp"

namespace clustersim {

/// `pass,layer,micro_batch,group,expert,gpu,tokens` (gpu: the expert's primary copy's EP rank).
void write_expert_load_csv(std::ostream& out, const MoeRun& run);

}  // namespace clustersim
