#include "traffic/moe_traffic_summary.hpp"

#include <algorithm>
#include <vector>

namespace clustersim {

MoeBound isca25_bound(double payload_bytes_per_gpu, double ep_bandwidth_GBps, bool nvlink,
                      std::uint32_t micro_batches, std::uint32_t layers) {
    MoeBound b;
    b.ep_bandwidth_GBps = ep_bandwidth_GBps;
    b.nvlink = nvlink;
    b.alltoall_us = payload_bytes_per_gpu / (ep_bandwidth_GBps * 1e9) * 1e6;
    b.layer_us = b.alltoall_us * micro_batches;
    b.step_ms = b.layer_us * layers / 1000.0;
    b.tokens_per_s = b.step_ms > 0 ? 1000.0 / b.step_ms : 0.0;
    return b;
}

MoeTrafficSummary summarise_moe_traffic(const MoeAllToAll& a, const ExpertPlacement& placement,
                                        const MoeModel& model, std::uint32_t micro_batches,
                                        bool training, double ep_bandwidth_GBps, bool nvlink) {
    MoeTrafficSummary t;
    const std::uint32_t ep = placement.ep_size;
    const std::uint64_t token_bytes = dispatch_payload_bytes(model.hidden);  // FP8, one copy
    t.ep_size = ep;
    t.nodes = placement.nodes();
    std::uint64_t copies = 0, max_copies = 0, forwarded = 0, rdma = 0;
    for (std::uint32_t g = 0; g < ep; ++g) {
        copies += a.copies[g];
        forwarded += a.forwarded[g];
        rdma += a.rdma_sent[g];
        max_copies = std::max(max_copies, a.copies[g]);
    }
    t.dispatch_bytes = copies * dispatch_payload_bytes(model.hidden);
    t.combine_bytes = copies * combine_payload_bytes(model.hidden);
    t.dispatch_bytes_max_gpu = max_copies * dispatch_payload_bytes(model.hidden);
    t.dispatch_scale_bytes = copies * dispatch_scale_bytes(model.hidden);
    t.nvlink_forward_bytes = forwarded * token_bytes;
    t.rdma_dispatch_bytes = rdma * token_bytes;
    t.comms_per_iteration = std::uint64_t{model.moe_layers()} * micro_batches * (training ? 2 : 1);
    t.iteration_bytes = (t.dispatch_bytes + t.combine_bytes) * t.comms_per_iteration;
    t.nodes_per_token_mean =
        a.tokens ? static_cast<double>(a.node_visits) / static_cast<double>(a.tokens) : 0.0;
    t.nodes_per_token_max = a.max_nodes_per_token;

    t.pairs = a.transfers.size();
    for (const auto& tr : a.transfers) {
        t.max_pair_bytes = std::max(t.max_pair_bytes, tr.tokens * token_bytes);
        t.pair_bytes += tr.tokens * token_bytes;
    }
    std::vector<std::uint64_t> node_load(placement.nodes(), 0);
    for (std::uint32_t g = 0; g < ep; ++g) {
        const std::uint64_t b = (a.rdma_sent[g] + a.rdma_received[g]) * token_bytes;
        t.nic_bytes += b;
        node_load[placement.node_of_gpu(g)] += b;
        if (b > t.hottest_gpu_bytes) {
            t.hottest_gpu_bytes = b;
            t.hottest_gpu = g;
        }
    }
    if (!node_load.empty()) {
        t.hottest_node = static_cast<std::uint32_t>(
            std::max_element(node_load.begin(), node_load.end()) - node_load.begin());
        t.hottest_node_bytes = node_load[t.hottest_node];
    }
    t.bound = isca25_bound(static_cast<double>(t.dispatch_bytes + t.combine_bytes) / ep,
                           ep_bandwidth_GBps, nvlink, micro_batches, model.layers);
    return t;
}

}  // namespace clustersim
