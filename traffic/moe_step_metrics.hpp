#pragma once
// What a simulated MoE step means to its buyer: the time of each dispatch and combine, the step
// time (TPOT for decode) extrapolated from the simulated layers' steady state, compute against
// exposed communication, and tokens/s, from the tokens the step carried (MoeRunSpec).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/dag/dag_runtime.hpp"
#include "models/transport/rdma_transport.hpp"
#include "traffic/moe_workload.hpp"

namespace clustersim {

/// One simulated pass (a layer forward, backward, or an MTP module) as it ran: the timeline a
/// fault's transient shows in (the stalled layer, then the recovered ones).
struct PassTiming {
    double end_us = 0;   // its last combine delivered (from the window's start)
    double time_us = 0;  // from the previous pass's end (the first: from the start)
    double dispatch_us = 0, combine_us = 0;  // its all-to-alls, the mean over micro-batches
};

struct MoeStepMetrics {
    double step_ms = 0;  // one step
    double tpot_ms = 0;  // decode: step_ms / (1 + mtp_acceptance x mtp_draft_tokens)
    double tokens_per_step_per_gpu = 0;
    double tokens_per_s_per_gpu = 0, tokens_per_s_per_node = 0;
    double tokens_per_s_per_user = 0;        // decode
    double dispatch_us = 0, combine_us = 0;  // mean over the simulated all-to-alls
    double layer_us = 0, forward_layer_us = 0, backward_layer_us = 0;
    double compute_ms = 0, compute_slowdown_ms = 0, exposed_comm_ms = 0;
    // Compute per micro-batch per GPU: a main layer's attention (mean and slowest rank), router
    // and experts; once per step the embedding, LM head, sampling and the MTP modules (all
    // their compute, MoE included), and the MTP modules' time in the step.
    double attention_us = 0, attention_max_us = 0, router_us = 0, expert_us = 0;
    double embedding_us = 0, lm_head_us = 0, sampling_us = 0, mtp_us = 0, mtp_layer_us = 0;
    std::uint32_t simulated_layers = 0;
    // Each EP group's step, formed as step_ms from its own messages and compute (its traffic
    // met the other groups' in the fabric): a serving instance's step, not the slowest's.
    std::vector<double> group_step_ms, group_forward_layer_us, group_backward_layer_us;
    std::vector<PassTiming> passes;  // every simulated pass, in simulated order
    std::string extrapolation;       // how step_ms was formed, in words
};

/// `messages` and `computes` are the finished run's states, indexed as `workload`'s (the run's
/// workload as simulated).
/// `use_layers` (0: all) extrapolates from the first that many simulated layers only, as a run
/// of fewer would (the settling of workload.simulated_layers: auto compares them). `pace`, when
/// given, is the degraded steady state's step (a fault's transient inside the simulated
/// layers): the layers not simulated run at its per-layer time, not at this run's own.
MoeStepMetrics moe_step_metrics(const MoeRunSpec& spec, const MoeRun& run, const Workload& workload,
                                std::span<const MessageState> messages,
                                std::span<const ComputeState> computes, std::uint32_t gpus_per_node,
                                std::uint32_t use_layers = 0, const MoeStepMetrics* pace = nullptr);

}  // namespace clustersim
