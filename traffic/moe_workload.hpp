#pragma once
// A decode step, prefill step or training iteration of a MoE model as a workload DAG, for a
// packet-level run: per simulated MoE layer and micro-batch, on every EP rank, attention
// (compute) -> dispatch (messages) -> expert compute -> combine (messages) -> the next layer's
// attention; training adds the backward pass, the same all-to-alls from the top layer down. Compute
// tasks queue in order on their GPU, so the two micro-batches overlap as DeepSeek's deployment does
// (one computes while the other communicates). Dispatch and combine follow the seeded gating of
// each (layer, micro-batch); in low-latency mode each (token, expert) is its own write, as DeepEP
// does, so per-message costs show.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "models/dag/workload.hpp"
#include "models/hardware/moe_compute.hpp"
#include "traffic/moe_traffic.hpp"

namespace clustersim {

enum class MoePhase : std::uint8_t { Decode, Prefill, Training };
inline constexpr std::array<std::string_view, 3> kMoePhaseNames = {"decode", "prefill", "training"};
/// The key name of a phase (results.json's section name too).
inline std::string_view phase_name(MoePhase p) {
    return kMoePhaseNames[static_cast<std::size_t>(p)];
}

/// DeepEP's normal kernels as configured: channels (half the SMs they hold) and the tokens per
/// RDMA chunk of dispatch and combine (its Config for that many ranks).
struct NormalKernelConfig {
    std::uint32_t channels = 12;
    std::uint32_t dispatch_chunk_tokens = 20;
    std::uint32_t combine_chunk_tokens = 20;
};

struct MoeRunSpec {
    MoePhase phase = MoePhase::Decode;
    MoeModel model;
    ExpertPlacement placement;
    GatingParams gating;
    MoeTrafficParams traffic;
    GpuThroughput gpu;
    std::uint32_t micro_batches = 2;
    std::uint32_t groups = 1;  // EP groups (data-parallel replicas), each placement.ep_size ranks
    bool spread = false;       // groups interleaved over the GPUs (else packed one after another)
    std::uint32_t simulated_layers = 2;  // MoE layers simulated; the rest are extrapolated
    std::uint64_t kv_length = 4096;      // decode: context per request; else the prompt length
    std::uint32_t gpu_sms = 0;           // SMs per GPU (0: compute never slows)
    std::uint32_t comm_sms = 0;          // normal mode: SMs DeepEP's dispatch/combine kernels hold
    NormalKernelConfig normal;           // normal mode, library order: its channels and chunks
    double mtp_acceptance = 0;           // decode: tokens per step are 1 + this per request
    std::uint64_t seed = 1;
};

/// Where each simulated all-to-all's messages and compute tasks are, for the report.
struct MoeAllToAllRange {
    std::uint32_t layer = 0, micro_batch = 0;             // (and one range per EP group)
    bool backward = false;                                // training's backward pass
    std::uint32_t dispatch_first = 0, dispatch_last = 0;  // message indices [first, last)
    std::uint32_t combine_first = 0, combine_last = 0;
};

struct MoeRun {
    MoeRunSpec spec;  // the step it is: tokens, micro-batches, phase, model
    Workload workload;
    std::vector<MoeAllToAllRange> all_to_alls;
    Time attention;            // per micro-batch per GPU (forward)
    Time dense_ffn;            // per micro-batch per GPU (dense layers, forward)
    std::vector<Time> expert;  // per (pass, layer, micro-batch, group, GPU), flattened
    std::uint32_t simulated_layers = 0;
};

MoeRun build_moe_run(const MoeRunSpec& spec);

}  // namespace clustersim
