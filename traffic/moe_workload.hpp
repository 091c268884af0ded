#pragma once
// A decode step, prefill step or training iteration of a MoE model as a workload DAG, for a
// packet-level run: per simulated MoE layer and micro-batch, on every EP rank, attention
// (compute) -> dispatch (messages) -> expert compute -> combine (messages) -> the next layer's
// attention; training adds the backward pass, the same all-to-alls from the top layer down. Compute
// tasks queue in order on their GPU, so the two micro-batches overlap as DeepSeek's deployment does
// (one computes while the other communicates). Dispatch and combine follow the seeded gating of
// each (layer, micro-batch); in low-latency mode each (token, expert) is its own write, as DeepEP
// does, so per-message costs show.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "models/dag/workload.hpp"
#include "models/hardware/moe_compute.hpp"
#include "traffic/moe_traffic.hpp"
#include "traffic/request_contexts.hpp"

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

/// How a step's compute is cut and ordered around its all-to-alls (workload.schedule). Two
/// stages: per micro-batch attention, then the experts (shared and routed together) once the
/// dispatch is in, so one micro-batch computes while the other communicates. Five (DeepSeek's
/// decode): attention in two tasks (before the core, then the core with its output and the
/// router), the shared expert while the dispatch is in flight, the routed experts after it;
/// each GPU runs its tasks in the order they become ready.
enum class StepSchedule : std::uint8_t { FiveStage, TwoStage };
inline constexpr std::array<std::string_view, 2> kStepScheduleNames = {"five-stage", "two-stage"};

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
    std::uint32_t first_gpu = 0;  // rank 0 of group 0 is this GPU (a serving run's instances)
    // Packed groups in pods: `groups_per_pod` of them from the start of each pod of
    // `pod_stride_gpus` (a serving deployment's instances of one kind in every pod, beside the
    // other kind's). 0: all packed one after another.
    std::uint32_t groups_per_pod = 0;
    std::uint32_t pod_stride_gpus = 0;
    std::uint32_t simulated_layers = 2;  // MoE layers simulated; the rest are extrapolated
    std::uint64_t kv_length = 4096;      // prefill and training: the prompt length
    KvLengthDistribution contexts;       // decode: each request's context length
    RequestBalance request_balance = RequestBalance::Kv;
    std::uint32_t gpu_sms = 0;   // SMs per GPU (0: compute never slows)
    std::uint32_t comm_sms = 0;  // normal mode: SMs DeepEP's dispatch/combine kernels hold
    NormalKernelConfig normal;   // normal mode, library order: its channels and chunks
    // Decode with multi-token prediction: each request carries 1 + draft tokens through every
    // layer (traffic.tokens_per_gpu counts them all), and the MTP module runs once per draft
    // token over one token per request; of the drafts, `mtp_acceptance` are kept on average.
    std::uint32_t mtp_draft_tokens = 0;
    StepSchedule schedule = StepSchedule::TwoStage;
    double mtp_acceptance = 0;

    std::uint32_t requests_per_gpu() const {
        return traffic.tokens_per_gpu / (1 + mtp_draft_tokens);
    }
    std::uint64_t seed = 1;
    // EP ranks lost for good (faults gpu_down, node_down), as GPUs: their experts served by
    // redundant copies where placement has them; they hold no requests, so the step's tokens
    // count only the live ranks (the scenario library zeroes their tasks: lose_ranks).
    std::vector<std::uint32_t> lost_ranks;
};

/// The GPU rank `rank` of EP group `group` runs on.
inline std::uint32_t group_gpu(const MoeRunSpec& spec, std::uint32_t group, std::uint32_t rank) {
    const std::uint32_t ep = spec.placement.ep_size;
    if (spec.spread) return spec.first_gpu + rank * spec.groups + group;
    if (spec.groups_per_pod == 0) return spec.first_gpu + group * ep + rank;
    return spec.first_gpu + group / spec.groups_per_pod * spec.pod_stride_gpus +
           group % spec.groups_per_pod * ep + rank;
}

/// The EP group GPU `gpu` is a rank of; spec.groups when it is in none.
inline std::uint32_t gpu_group(const MoeRunSpec& spec, std::uint32_t gpu) {
    const std::uint32_t ep = spec.placement.ep_size, none = spec.groups;
    if (gpu < spec.first_gpu || ep == 0) return none;
    const std::uint32_t at = gpu - spec.first_gpu;
    if (spec.spread) return at / spec.groups < ep ? at % spec.groups : none;
    if (spec.groups_per_pod == 0 || spec.pod_stride_gpus == 0) return std::min(at / ep, none);
    const std::uint32_t in_pod = at % spec.pod_stride_gpus;
    if (in_pod >= spec.groups_per_pod * ep) return none;
    return std::min(at / spec.pod_stride_gpus * spec.groups_per_pod + in_pod / ep, none);
}

/// Where each simulated all-to-all's messages and compute tasks are, for the report.
struct MoeAllToAllRange {
    std::uint32_t layer = 0, micro_batch = 0;             // (and one range per EP group)
    bool backward = false;                                // training's backward pass
    bool mtp = false;                                     // decode: an MTP module's MoE
    std::uint32_t dispatch_first = 0, dispatch_last = 0;  // message indices [first, last)
    std::uint32_t combine_first = 0, combine_last = 0;
    std::vector<std::uint32_t> experts;        // per rank: the compute task of its routed experts
    std::uint32_t group = 0;                   // the EP group
    std::vector<std::uint32_t> expert_tokens;  // per routed expert: tokens that selected it
};

/// What a MoE compute task is (its ComputeSpec::label): the trace names it so.
enum class MoeComputeStage : std::uint64_t {
    Other = 0,
    Attention,        // attention and router (two-stage)
    AttentionBefore,  // five-stage ATTN-0: before the core attention
    CoreAttention,    // five-stage ATTN-1
    Experts,          // routed and shared experts together (two-stage)
    SharedExpert,     // five-stage: during the dispatch
    RoutedExperts,    // five-stage MLP
};
std::string_view moe_compute_stage_name(std::uint64_t label);

struct MoeRun {
    MoeRunSpec spec;  // the step it is: tokens, micro-batches, phase, model
    Workload workload;
    std::vector<MoeAllToAllRange> all_to_alls;
    // Per (group, micro-batch, rank), flattened: a main layer's attention and router (forward),
    // and in decode with MTP the compute an MTP module runs before its MoE (embedding,
    // projection, its attention and router; the head before it is added per module).
    std::vector<Time> attention, mtp_before_moe;
    // Five stages: what of `attention` (and of mtp_before_moe) comes before the core attention.
    Time attention_before_core, mtp_attention_before_core;
    Time dense_ffn;  // per micro-batch per GPU (dense layers, forward)
    Time router;     // per micro-batch per GPU per layer (within `attention`)
    // Per micro-batch per GPU, once per step (decode): the embedding of the step's tokens, the
    // LM head and sampling after the main model over 1 + draft tokens per request, and the
    // MTP module's head and sampling over one token per request.
    Time embedding, lm_head, sampling, mtp_head, mtp_sampling, mtp_embedding, mtp_projection;
    std::vector<Time> expert;  // per (pass, layer, micro-batch, group, GPU), flattened
    std::uint32_t simulated_layers = 0;
    std::int64_t nominal_compute_ps = 0;  // every compute task's own duration, summed

    std::size_t rank_index(std::uint32_t group, std::uint32_t micro_batch,
                           std::uint32_t rank) const {
        return (std::size_t{group} * spec.micro_batches + micro_batch) * spec.placement.ep_size +
               rank;
    }
};

/// A lost rank neither computes nor communicates: its messages carry nothing and its compute
/// tasks take no time (the DAG keeps its shape, so every other rank's order is unchanged).
void lose_ranks(MoeRun& run);

MoeRun build_moe_run(const MoeRunSpec& spec);

}  // namespace clustersim
