#include "topologies/node_expansion.hpp"

#include <fmt/format.h>

namespace clustersim {

std::uint32_t node_count(std::uint32_t fabric_nics, const NodeSpec& spec) {
    if (spec.nics == 0 || spec.gpus == 0 || spec.gpus % spec.nics != 0)
        throw TopologyError(
            "cluster.node",
            fmt::format("a node of {} GPUs cannot share {} NICs evenly", spec.gpus, spec.nics));
    if (fabric_nics % spec.nics != 0)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} NICs do not fill whole nodes of {} NICs (expected a multiple of {})",
                        fabric_nics, spec.nics, spec.nics));
    return fabric_nics / spec.nics;
}

Topology expand_nodes(const Topology& fabric, const NodeSpec& spec, NodeLayout& layout) {
    const PortGraph& fg = fabric.graph;
    const std::uint32_t fabric_nics = fg.endpoint_count();
    const std::uint32_t nodes = node_count(fabric_nics, spec);
    const std::uint32_t gpus = nodes * spec.gpus;

    Topology t;
    t.kind = fabric.kind;
    t.inventory = fabric.inventory;
    t.planes = fabric.planes;
    t.virtual_lanes = fabric.virtual_lanes;
    PortGraph& g = t.graph;
    layout = NodeLayout{};
    layout.gpus_per_node = spec.gpus;
    layout.nics_per_node = spec.nics;
    layout.fabric_switches = fg.switch_count();
    layout.pxn = spec.pxn;
    layout.nic_spray = spec.nic_spray;
    layout.rdma_message_overhead = spec.rdma_message_overhead;
    layout.scale_up_message_overhead = spec.scale_up_message_overhead;
    layout.rdma_issue = spec.rdma_issue;
    layout.scale_up_issue = spec.scale_up_issue;
    auto add = [&](const SwitchInfo& info, SwitchRole role, std::uint32_t node) {
        const std::uint32_t s = g.add_switch(info);
        layout.role.push_back(role);
        layout.node_of.push_back(node);
        return s;
    };
    for (const SwitchInfo& s : fg.switches()) add(s, SwitchRole::Fabric, kNone);
    std::vector<std::uint32_t> nic_switch(fabric_nics);
    for (std::uint32_t n = 0; n < fabric_nics; ++n)
        nic_switch[n] = add(SwitchInfo{0, 8, spec.nic_latency, spec.buffer_bytes}, SwitchRole::Nic,
                            n / spec.nics);
    layout.hub.resize(gpus);
    layout.nic.resize(gpus);
    layout.scale_up.resize(nodes);
    for (std::uint32_t node = 0; node < nodes; ++node) {
        layout.scale_up[node] =
            add(SwitchInfo{0, spec.gpus, spec.scale_up_switch_latency, spec.buffer_bytes},
                SwitchRole::ScaleUp, node);
        for (std::uint32_t j = 0; j < spec.gpus; ++j) {
            const std::uint32_t gpu = node * spec.gpus + j;
            layout.hub[gpu] =
                add(SwitchInfo{0, 4, Time::zero(), spec.buffer_bytes}, SwitchRole::GpuHub, node);
            layout.nic[gpu] = nic_switch[node * spec.nics + layout.plane_of_gpu(gpu)];
        }
    }
    g.set_endpoint_count(gpus);
    // The fabric's cables first and in order (NIC endpoints become NIC switches), so that every
    // fabric switch keeps its channel indices.
    for (const auto& c : fg.cables()) {
        auto map = [&](NodeRef r) {
            return r.kind == NodeKind::Endpoint ? NodeRef{NodeKind::Switch, nic_switch[r.index]}
                                                : r;
        };
        g.add_cable(map(c.a), map(c.b), c.rate, c.propagation);
    }
    for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) {
        const std::uint32_t hub = layout.hub[gpu];
        // Two independent paths out of the GPU, each with its own queue and credits: NVLink
        // stores (copy engines / SMs) and the NIC's reads over PCIe. Both draw on HBM, far
        // faster than either, so one never waits behind the other.
        g.add_cable({NodeKind::Endpoint, gpu}, {NodeKind::Switch, hub}, spec.local_rate,
                    Time::zero());  // kScaleUpPath
        g.add_cable({NodeKind::Endpoint, gpu}, {NodeKind::Switch, hub}, spec.local_rate,
                    Time::zero());  // kRdmaPath
        g.add_cable({NodeKind::Switch, hub}, {NodeKind::Switch, layout.scale_up[gpu / spec.gpus]},
                    spec.scale_up_rate, spec.scale_up_link_latency);
        g.add_cable({NodeKind::Switch, hub}, {NodeKind::Switch, layout.nic[gpu]}, spec.pcie_rate,
                    spec.pcie_latency);
    }
    g.finalize();
    return t;
}

}  // namespace clustersim
