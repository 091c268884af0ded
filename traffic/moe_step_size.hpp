#pragma once
// How large a MoE step will be, from the model and the step's shape alone, before gating draws
// a token or StepBuilder adds a task: what `check` prints and the memory and event limits are
// applied to. Each count is an upper bound on what build_moe_run builds (every token's top_k
// experts and remote shared experts on other GPUs; normal mode's first hops at most one per
// node, its forwards at most one per GPU pair in a node); tests hold it to the built step.
#include <cstdint>

#include "traffic/workload_kinds.hpp"

namespace clustersim {

struct MoeStepShape {
    std::uint64_t ep_size = 0, gpus_per_node = 1, groups = 1, micro_batches = 1;
    std::uint64_t tokens_per_gpu = 0;  // per micro-batch
    std::uint64_t passes = 0;          // all-to-all rounds: simulated layers (twice in training)
    std::uint64_t routed_experts = 0, top_k = 0;
    std::uint64_t max_nodes_per_token = 0;  // the gating's node limit (0: none)
    std::uint64_t remote_copies = 0;  // shared experts sent to another node (shared_expert_remote)
    std::uint64_t expert_slots = 0;   // routed experts and their redundant copies
    bool low_latency = true;
    bool hold_sms = false;    // normal mode's kernels hold SMs (comm_sms > 0)
    bool chunked = true;      // normal mode in the library's order (else one message per pair)
    bool five_stage = false;  // four compute tasks per rank and all-to-all (else two)
    std::uint64_t channels = 1, dispatch_chunk_tokens = 1, combine_chunk_tokens = 1;
    std::uint64_t dispatch_bytes_per_token = 0, combine_bytes_per_token = 0;
};

struct MoeStepSize {
    WorkloadSize workload;
    std::uint64_t packets = 0;
    std::uint64_t all_to_alls = 0;    // passes x micro-batches x groups
    std::uint64_t gating_draws = 0;   // tokens the gating routes, over the whole step
    std::uint64_t gating_scores = 0;  // expert scores drawn for them (the gating's inner loop)
    // One all-to-all's traffic tables while the step is built, and the per-GPU expert times
    // the step keeps (also in workload.other_bytes).
    std::uint64_t build_bytes = 0;
};

/// Saturates at UINT64_MAX rather than wrapping, whatever the shape.
MoeStepSize moe_step_size(const MoeStepShape& shape, std::uint64_t mtu_bytes);

}  // namespace clustersim
