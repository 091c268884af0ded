#pragma once
// Puts the node model into a fabric: every fabric endpoint (a NIC) becomes a NIC switch, and each
// node gets its GPUs (the new endpoints, each with two sending paths into its hub: NVLink and
// RDMA), one hub per GPU, and a scale-up switch. Fabric switches
// and their channels keep their indices, so forwarding tables computed on the fabric still apply.
#include "models/network/node_layout.hpp"
#include "topologies/topology.hpp"

namespace clustersim {

struct NodeSpec {
    std::uint32_t gpus = 8;
    std::uint32_t nics = 8;
    DataRate scale_up_rate;      // per GPU per direction, achievable
    Time scale_up_link_latency;  // GPU to scale-up switch
    Time scale_up_switch_latency;
    DataRate pcie_rate;  // GPU to NIC, achievable
    Time pcie_latency;
    Time nic_latency;
    DataRate local_rate = DataRate::from_gigabytes_per_s(3000);  // GPU memory to its own hub
    std::uint64_t buffer_bytes = 1 << 20;                        // per port of the node's switches
    bool pxn = false;
    bool nic_spray = false;      // several network ports: spray packets (else bond by flow hash)
    Time rdma_message_overhead;  // per message, issue included
    Time rdma_issue;             // serial per sender
    Time scale_up_message_overhead;
    Time scale_up_issue;
};

/// Nodes `fabric_nics` NICs make; throws TopologyError when they do not fill whole nodes.
std::uint32_t node_count(std::uint32_t fabric_nics, const NodeSpec& spec);
/// What expand_nodes adds per node (before the fabric's own switches and cables).
inline std::uint64_t node_switches(const NodeSpec& spec) {
    return spec.nics + 1 + spec.gpus;  // NICs, the scale-up switch, a hub per GPU
}
inline std::uint64_t node_cables(const NodeSpec& spec) {
    return 4 * std::uint64_t{spec.gpus};  // two GPU-hub paths, hub to scale-up, hub to NIC
}
Topology expand_nodes(const Topology& fabric, const NodeSpec& spec, NodeLayout& layout);

}  // namespace clustersim
