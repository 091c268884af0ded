#include "traffic/moe_step_size.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace clustersim {
namespace {

// Counts in long double, clamped once at the end: shapes from input may overflow 64 bits.
using Count = long double;

std::uint64_t clamp(Count c) {
    return c >= static_cast<Count>(UINT64_MAX) ? UINT64_MAX : static_cast<std::uint64_t>(c);
}

Count packets_of(Count bytes, Count mtu) {
    return bytes <= 0 ? 0 : std::ceil(bytes / mtu);
}

}  // namespace

MoeStepSize moe_step_size(const MoeStepShape& s, std::uint64_t mtu_bytes) {
    const Count ep = static_cast<Count>(s.ep_size);
    const Count tokens = static_cast<Count>(s.tokens_per_gpu);
    const Count mtu = static_cast<Count>(std::max<std::uint64_t>(1, mtu_bytes));
    const std::uint64_t per_node = std::max<std::uint64_t>(1, s.gpus_per_node);
    const Count nodes = static_cast<Count>((s.ep_size + per_node - 1) / per_node);
    const Count copies = static_cast<Count>(s.top_k + s.remote_copies);  // GPUs per token
    const Count a2a = static_cast<Count>(s.passes) * static_cast<Count>(s.micro_batches) *
                      static_cast<Count>(s.groups);
    const Count dispatch = static_cast<Count>(s.dispatch_bytes_per_token);
    const Count combine = static_cast<Count>(s.combine_bytes_per_token);

    // One all-to-all: its messages each way, their packets, and the largest message.
    Count first_hops = 0, forwards = 0, packets = 0, largest = 0, chunk_joins = 0;
    // Nodes a token reaches (normal mode): its routed experts' (at most the gating's node
    // limit) and each remote shared expert's.
    Count routed_nodes = std::min(static_cast<Count>(s.top_k), nodes);
    if (s.max_nodes_per_token > 0)
        routed_nodes = std::min(routed_nodes, static_cast<Count>(s.max_nodes_per_token));
    const Count node_copies = std::min(routed_nodes + static_cast<Count>(s.remote_copies), nodes);
    if (s.low_latency) {
        // A write per (token, expert) on another GPU: two experts of one GPU are two writes;
        // then from every GPU one signal per expert slot on each other GPU, each way.
        first_hops = s.ep_size > 1 ? ep * tokens * copies : 0;
        const Count signals = s.ep_size > 1 ? ep * static_cast<Count>(s.expert_slots) : 0;
        packets = first_hops * (packets_of(dispatch, mtu) + packets_of(combine, mtu)) + 2 * signals;
        first_hops += signals;
        largest = std::max(dispatch, combine);
    } else if (s.chunked) {
        // Per source, each (channel, node) list of tokens in chunks: at most one partial chunk
        // per list; each chunk forwarded (dispatch) or returned (combine) by at most every
        // other GPU of its node.
        const Count lists = static_cast<Count>(std::max<std::uint64_t>(1, s.channels)) * nodes;
        const Count copies_out = tokens * node_copies;
        auto chunk_count = [&](std::uint64_t chunk) {
            const Count c = static_cast<Count>(std::max<std::uint64_t>(1, chunk));
            return ep * std::min(copies_out, std::floor(copies_out / c) + lists);
        };
        const Count d_chunks = chunk_count(s.dispatch_chunk_tokens);
        const Count c_chunks = chunk_count(s.combine_chunk_tokens);
        const Count peers = static_cast<Count>(per_node - 1);
        first_hops = (d_chunks + c_chunks) / 2;
        forwards = (std::min(d_chunks * peers, ep * tokens * copies) +
                    std::min(c_chunks * peers, ep * tokens * copies)) /
                   2;
        chunk_joins = c_chunks;
        const Count bytes_first = ep * tokens * node_copies;  // token copies
        const Count bytes_forward = ep * tokens * copies;
        packets = packets_of(bytes_first * dispatch, mtu) + packets_of(bytes_first * combine, mtu) +
                  packets_of(bytes_forward * dispatch, mtu) +
                  packets_of(bytes_forward * combine, mtu) + 2 * (first_hops + forwards);
        largest = std::max(
            static_cast<Count>(std::max<std::uint64_t>(1, s.dispatch_chunk_tokens)) * dispatch,
            static_cast<Count>(std::max<std::uint64_t>(1, s.combine_chunk_tokens)) * combine);
        largest = std::min(largest, tokens * std::max(dispatch, combine));
    } else {
        // A message per (GPU, node) pair, to the GPU of the same local rank, then NVLink forwards
        // inside the node: at most one per GPU pair there, each source's tokens once per node.
        first_hops = ep * std::min(nodes, tokens * node_copies);
        forwards = ep * std::min(static_cast<Count>(per_node - 1), tokens * copies);
        const Count bytes_first = ep * tokens * node_copies;  // token copies
        const Count bytes_forward = ep * tokens * copies;
        packets = packets_of(bytes_first * dispatch, mtu) + packets_of(bytes_first * combine, mtu) +
                  packets_of(bytes_forward * dispatch, mtu) +
                  packets_of(bytes_forward * combine, mtu) + 2 * (first_hops + forwards);
        largest = tokens * nodes * std::max(dispatch, combine);  // a forward of every node's tokens
    }
    const Count messages = 2 * (first_hops + forwards);
    // StepBuilder's edges: two per message (what it waits for, what waits for it), one more per
    // dispatch first hop that feeds a forward (normal mode: low-latency writes feed none), and
    // per GPU its attention, gate, experts and combine joins (at most eight); normal mode's SM
    // holds add one per message. Chunked normal mode adds a queue-pair order edge per chunk.
    // Five stages add per GPU three entry joins, their inputs and the program-order edges.
    const Count dependencies = 2 * messages + (s.low_latency ? 0 : first_hops) +
                               (s.hold_sms ? messages : 0) +
                               (s.five_stage ? 16 : 8) * ep + chunk_joins;
    // Attention and experts, each in two with five stages.
    const Count computes = (s.five_stage ? 4 : 2) * ep;
    // gate, ready, forward and gather, SM holds; chunked combine's reduction per chunk
    const Count joins = ((s.hold_sms ? 8 : 4) + (s.five_stage ? 3 : 0)) * ep + chunk_joins;

    MoeStepSize out;
    out.all_to_alls = clamp(a2a);
    out.workload.messages = clamp(messages * a2a);
    out.workload.message_bytes = clamp(largest);
    out.workload.dependencies = clamp(dependencies * a2a);
    out.workload.computes = clamp(computes * a2a);
    out.workload.joins = clamp(joins * a2a);
    out.packets = clamp(packets * a2a);
    out.gating_draws = clamp(ep * tokens * a2a);
    out.gating_scores = clamp(ep * tokens * a2a * static_cast<Count>(s.routed_experts));
    // While one all-to-all is built: per GPU six counters and two sent-lists' headers, its
    // transfers (24 bytes), normal mode's forward map nodes (about 64) and the message indices
    // the sent-lists hold.
    // Low-latency mode keeps each write (16 bytes) and a sorted copy; chunked normal mode each
    // token's route (an offset and its GPUs), its per-(channel, node) lists and the chunk
    // plan (40 bytes a chunk).
    const Count writes = s.low_latency ? ep * tokens * copies * 2 * 16 : 0;
    const Count routes =
        s.low_latency ? 0 : ep * tokens * (8 + 4 * copies + 8 * node_copies) + first_hops * 40;
    out.build_bytes = clamp(ep * (6 * 8 + 2 * 24) + first_hops * 24 + forwards * (24 + 64) +
                            messages * 4 + ep * a2a * 8 + writes + routes);
    out.workload.other_bytes = out.build_bytes;
    out.workload.gating_scores = out.gating_scores;
    return out;
}

}  // namespace clustersim
