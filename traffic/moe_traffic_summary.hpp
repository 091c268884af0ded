#pragma once
// One all-to-all of a MoE step summarised without simulating it: first-hop bytes (payload, FP8
// scales, NVLink forwarding), the traffic matrix, the load per NIC and node, and the ISCA '25
// section 2.3.2 communication bound. Totals stay integers; means are the reader's to take.
#include <cstdint>
#include <string>

#include "models/hardware/moe_model.hpp"
#include "traffic/expert_placement.hpp"
#include "traffic/moe_traffic.hpp"

namespace clustersim {

/// ISCA '25 section 2.3.2: (dispatch + combine payload per GPU) / the GPU's nominal EP bandwidth,
/// times micro-batches per layer, times every layer of the model.
struct MoeBound {
    double ep_bandwidth_GBps = 0;
    bool nvlink = false;  // the group fits one NVLink domain (else its NICs' line rate)
    double alltoall_us = 0, layer_us = 0, step_ms = 0, tokens_per_s = 0;
};
MoeBound isca25_bound(double payload_bytes_per_gpu, double ep_bandwidth_GBps, bool nvlink,
                      std::uint32_t micro_batches, std::uint32_t layers);

struct MoeTrafficSummary {
    std::uint32_t ep_size = 0, nodes = 0;
    // One all-to-all (one micro-batch of one layer), summed over the EP group.
    std::uint64_t dispatch_bytes = 0, combine_bytes = 0;  // payload, first-hop copies
    std::uint64_t dispatch_bytes_max_gpu = 0;
    std::uint64_t dispatch_scale_bytes = 0;  // FP8 scales
    std::uint64_t nvlink_forward_bytes = 0, rdma_dispatch_bytes = 0;
    std::uint64_t comms_per_iteration = 0;  // dispatch all-to-alls per step
    std::uint64_t iteration_bytes = 0;      // dispatch + combine per step, summed over GPUs
    double nodes_per_token_mean = 0;
    std::uint32_t nodes_per_token_max = 0;
    // The first-hop matrix and the load per NIC (sent + received) and node.
    std::uint64_t pairs = 0, max_pair_bytes = 0, pair_bytes = 0;
    std::uint32_t hottest_gpu = 0, hottest_node = 0;
    std::uint64_t hottest_gpu_bytes = 0, hottest_node_bytes = 0, nic_bytes = 0;
    MoeBound bound;
};

/// `training`: forward and backward all-to-alls per step. `ep_bandwidth_GBps` and `nvlink`: the
/// GPU's nominal expert-parallel bandwidth for the bound (node_ep_bandwidth gives it).
MoeTrafficSummary summarise_moe_traffic(const MoeAllToAll& a, const ExpertPlacement& placement,
                                        const MoeModel& model, std::uint32_t micro_batches,
                                        bool training, double ep_bandwidth_GBps, bool nvlink);

}  // namespace clustersim
