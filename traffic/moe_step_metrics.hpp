#pragma once
// What a simulated MoE step means to its buyer: the time of each dispatch and combine, the step
// time (TPOT for decode) extrapolated from the simulated layers' steady state, compute against
// exposed communication, and tokens/s, from the tokens the step carried (MoeRunSpec).
#include <cstdint>
#include <span>
#include <string>

#include "models/dag/dag_runtime.hpp"
#include "models/transport/rdma_transport.hpp"
#include "traffic/moe_workload.hpp"

namespace clustersim {

struct MoeStepMetrics {
    double step_ms = 0;  // one step (decode: TPOT)
    double tokens_per_step_per_gpu = 0;
    double tokens_per_s_per_gpu = 0, tokens_per_s_per_node = 0;
    double tokens_per_s_per_user = 0;        // decode
    double dispatch_us = 0, combine_us = 0;  // mean over the simulated all-to-alls
    double layer_us = 0, forward_layer_us = 0, backward_layer_us = 0;
    double compute_ms = 0, compute_slowdown_ms = 0, exposed_comm_ms = 0;
    double attention_us = 0, expert_us = 0;
    std::uint32_t simulated_layers = 0;
    std::string extrapolation;  // how step_ms was formed, in words
};

/// `messages` and `computes` are the finished run's states, indexed as `run.workload`'s.
MoeStepMetrics moe_step_metrics(const MoeRunSpec& spec, const MoeRun& run,
                                std::span<const MessageState> messages,
                                std::span<const ComputeState> computes,
                                std::uint32_t gpus_per_node);

}  // namespace clustersim
