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
#include <cstdint>
#include <vector>

#include "traffic/moe_gating.hpp"

namespace clustersim {

enum class MoeMode : std::uint8_t { Normal, LowLatency };

struct MoeTrafficParams {
    MoeMode mode = MoeMode::LowLatency;
    std::uint32_t tokens_per_gpu = 128;
    bool shared_expert_remote = false;  // shared experts count as network destinations
    bool intranode_via_rdma = false;    // low-latency: own-node destinations through the NIC
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
    // Per GPU, token copies (multiply by bytes per token for dispatch or combine):
    std::vector<std::uint64_t> sent, received;  // first hops, NVLink and RDMA
    std::vector<std::uint64_t> rdma_sent, rdma_received;
    std::vector<std::uint64_t> forwarded;  // NVLink forwards caused by its tokens
    // First-hop copies as DeepEP's benchmark counts them (what `dispatch_bytes_per_gpu` is made
    // of): one per destination node in normal mode, the own node's included; one per (token,
    // selected expert) in low-latency mode, own GPU included. Transfers leave the self-copies out.
    std::vector<std::uint64_t> copies;
    std::uint64_t tokens = 0;       // tokens gated
    std::uint64_t node_visits = 0;  // sum over tokens of distinct nodes reached
    std::uint32_t max_nodes_per_token = 0;
};

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

}  // namespace clustersim
