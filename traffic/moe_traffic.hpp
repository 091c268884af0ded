#pragma once
// Expert-parallel dispatch and combine traffic of one all-to-all (one MoE layer, one
// micro-batch), as DeepEP moves tokens:
//  - normal (throughput): a token goes once to each node that holds one of its experts -- over
//    RDMA to the GPU of the same local rank there, the own node's copy over NVLink -- and is
//    then forwarded over NVLink to each other GPU on that node that holds one of its experts;
//  - low-latency (decode): one write per (token, selected expert) straight from the source GPU,
//    even when two selected experts share a GPU; destinations on the own node over NVLink (or
//    through the NIC with intranode_via=rdma).
// Dispatch is FP8 (1 B per element plus one 4-byte scale per 128 elements), combine BF16 (2 B
// per element) back along the same first hops.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "traffic/moe_gating.hpp"

namespace clustersim {

enum class MoeMode : std::uint8_t { Normal, LowLatency };

/// The order a GPU issues its all-to-all messages in. `Library` is DeepEP's: low-latency writes
/// token by token (each token's top-k slots in turn) and the combine interleaved over the
/// (source rank, expert) pairs its warp groups serve; normal mode in chunks per channel with
/// the NVLink forwarding pipelined behind them. `DestinationSorted` (comparison only) groups
/// each GPU's messages by destination, one message per GPU pair in normal mode, forwarding only
/// once every first hop is in.
enum class IssueOrder : std::uint8_t { Library, DestinationSorted };

struct MoeTrafficParams {
    MoeMode mode = MoeMode::LowLatency;
    std::uint32_t tokens_per_gpu = 128;
    bool shared_expert_remote = false;  // shared experts count as network destinations
    bool intranode_via_rdma = false;    // low-latency: own-node destinations through the NIC
    IssueOrder issue_order = IssueOrder::Library;
};

/// Low-latency mode: one write of token `token` from `src` to the GPU `dst` that serves
/// `expert` for it (self-copies left out).
struct MoeWrite {
    std::uint32_t src = 0, dst = 0, expert = 0, token = 0;
};

/// One first-hop transfer: `src` sends `tokens` token copies to `dst` (dispatch).
struct MoeTransfer {
    std::uint32_t src = 0, dst = 0;
    std::uint64_t tokens = 0;
    bool nvlink = false;  // first hop inside the node
};

struct MoeAllToAll {
    std::uint32_t ep_size = 0;
    std::vector<MoeTransfer> transfers;  // first hops, per (src, dst), sorted by (src, dst)
    std::vector<MoeTransfer> forwards;   // normal mode: NVLink forwarding inside destinations
    // Low-latency mode: every write, per source in token order (top-k slot order within a
    // token), the order DeepEP's dispatch issues them in.
    std::vector<MoeWrite> writes;
    // Normal mode: the distinct GPUs (sorted) that token t of GPU s reaches are
    // route_gpus[route_first[i]..route_first[i + 1]) with i = s x tokens_per_gpu + t.
    std::vector<std::uint64_t> route_first;
    std::vector<std::uint32_t> route_gpus;
    // Per GPU, token copies (multiply by bytes per token for dispatch or combine):
    std::vector<std::uint64_t> sent, received;  // first hops, NVLink and RDMA
    std::vector<std::uint64_t> rdma_sent, rdma_received;
    std::vector<std::uint64_t> forwarded;  // NVLink forwards caused by its tokens
    // First-hop copies as DeepEP's benchmark counts them (what `dispatch_bytes_per_gpu` is made
    // of): one per destination node in normal mode, the own node's included; one per (token,
    // selected expert) in low-latency mode, own GPU included. Transfers leave the self-copies out.
    std::vector<std::uint64_t> copies;
    std::vector<std::uint32_t> expert_tokens;  // per routed expert: tokens that selected it
    std::uint64_t tokens = 0;                  // tokens gated
    std::uint64_t node_visits = 0;             // sum over tokens of distinct nodes reached
    std::uint32_t max_nodes_per_token = 0;
};

/// Normal mode: the GPU of node `node` a token of `src` goes to first (the same local rank).
inline std::uint32_t normal_first_hop(const ExpertPlacement& placement, std::uint32_t src,
                                      std::uint32_t node) {
    return std::min(node * placement.gpus_per_node + src % placement.gpus_per_node,
                    placement.ep_size - 1);
}

/// Gates every token of every EP rank once (the caller's stream) and counts first hops.
MoeAllToAll moe_all_to_all(Gating& gating, const ExpertPlacement& placement, const MoeModel& model,
                           const MoeTrafficParams& params, RandomStream& rng);

/// Bytes of one token copy: dispatch FP8 payload, its scales, combine BF16 payload.
inline std::uint64_t dispatch_payload_bytes(std::uint32_t hidden) {
    return hidden;
}
inline std::uint64_t dispatch_scale_bytes(std::uint32_t hidden) {
    return (std::uint64_t{hidden} + 127) / 128 * 4;
}
inline std::uint64_t combine_payload_bytes(std::uint32_t hidden) {
    return 2ull * hidden;
}
/// DeepEP's low-latency dispatch write carries a 16-byte header before the token (its source
/// index and three reserved ints; internode_ll.cu); the combine write is the bare BF16 token.
inline constexpr std::uint64_t kLowLatencyDispatchHeaderBytes = 16;
/// Its completion signals are 4-byte RDMA atomics (a count at dispatch, a flag at combine).
inline constexpr std::uint64_t kLowLatencySignalBytes = 4;
/// DeepEP's normal internode kernels send each token as a record: at dispatch the FP8 token
/// and its scales, an 8-byte source record (node and NVLink mask) and each top-k slot's expert
/// index and weight (4 B each); at combine the BF16 token, the source record and the weights;
/// padded to 16 B (internode.cu at 3b1045d, get_num_bytes_per_rdma_token).
inline std::uint64_t normal_dispatch_record_bytes(std::uint32_t hidden, std::uint32_t top_k) {
    const std::uint64_t raw =
        dispatch_payload_bytes(hidden) + dispatch_scale_bytes(hidden) + 8 + 8ull * top_k;
    return (raw + 15) / 16 * 16;
}
inline std::uint64_t normal_combine_record_bytes(std::uint32_t hidden, std::uint32_t top_k) {
    return (combine_payload_bytes(hidden) + 8 + 4ull * top_k + 15) / 16 * 16;
}

}  // namespace clustersim
