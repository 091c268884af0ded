#include "models/forwarding.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <stdexcept>

#include "sim/random.hpp"

namespace clustersim {

Forwarding::Forwarding(const PortGraph& graph, const ForwardingTables& routes,
                       const NetworkParams& params, const NodeLayout* layout,
                       std::span<const EgressPort> ports)
    : graph_(graph), routes_(routes), layout_(layout), ports_(ports) {
    const auto policies = routing_policies();
    if (params.routing >= policies.size()) throw std::invalid_argument("unknown routing policy");
    find_planes();
    RandomStream salts(params.seed, "ecmp-salt");
    for (FabricSwitch& s : fabric_switches_) {
        s.salt = salts();
        s.choose = policies[params.routing].choose;
    }
    index_attachments();
    if (layout_) index_node_switches();
}

std::uint32_t Forwarding::node_route(std::uint32_t sw, const Packet& p) {
    const NodeLayout& l = *layout_;
    const std::uint32_t b = p.dst;
    switch (l.role[sw]) {
        case SwitchRole::Fabric:
            return fabric_route(sw, p);
        case SwitchRole::GpuHub: {
            // Channels: to its GPU (one per GPU path), to the scale-up switch, to its NIC.
            const std::uint32_t first = graph_.first_channel({NodeKind::Switch, sw});
            const std::uint32_t scale_up = first + kGpuPaths, nic = scale_up + 1;
            if (l.hub[b] == sw) return first;
            if (l.node_of_gpu(b) == l.node_of[sw]) return scale_up;
            const std::uint32_t here = hub_gpu_[sw];
            if (l.pxn && l.plane_of_gpu(b) != l.plane_of_gpu(here)) return scale_up;
            return nic;
        }
        case SwitchRole::ScaleUp: {
            const std::uint32_t first =
                graph_.first_channel({NodeKind::Switch, sw});  // one per local GPU
            if (l.node_of_gpu(b) == l.node_of[sw]) return first + b % l.gpus_per_node;
            return first + l.gpu_for_plane(l.plane_of_gpu(b));
        }
        case SwitchRole::Nic: {
            const NicPorts& n = nic_ports_[sw];
            if (l.node_of_gpu(b) == l.node_of[sw])
                return n.first_hub + (b % l.gpus_per_node - n.first_gpu);
            if (n.network_count == 1) return n.first_network;
            // Several network ports (dual-plane, shuffle). Bond: one connection, one port,
            // chosen by a hash of its header fields. Spray: packets over the ports in turn.
            if (!l.nic_spray) {
                const auto h =
                    static_cast<std::uint32_t>(mix64(p.entropy ^ fabric_switches_[sw].salt));
                return n.first_network +
                       static_cast<std::uint32_t>((std::uint64_t{h} * n.network_count) >> 32);
            }
            std::uint32_t& next = nic_spray_[sw];
            const std::uint32_t out = n.first_network + next;
            next = next + 1 == n.network_count ? 0 : next + 1;
            return out;
        }
    }
    return kNone;
}

void Forwarding::find_planes() {
    // Planes: connected components of the fabric's switch-to-switch links (node-internal
    // switches belong to none).
    const auto channels = graph_.channels();
    const std::uint32_t switches = graph_.switch_count();
    const std::uint32_t fabric = layout_ ? layout_->fabric_switches : switches;
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    Graph g(fabric);
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        const Channel& ch = channels[c];
        if (ch.from.kind == NodeKind::Switch && ch.to.kind == NodeKind::Switch &&
            ch.from.index < fabric && ch.to.index < fabric && ch.from.index < ch.to.index)
            boost::add_edge(ch.from.index, ch.to.index, g);
    }
    std::vector<std::uint32_t> component(fabric);
    if (fabric > 0) boost::connected_components(g, component.data());
    fabric_switches_.assign(switches, FabricSwitch{});
    for (std::uint32_t s = 0; s < fabric; ++s) fabric_switches_[s].component = component[s];
}

void Forwarding::index_attachments() {
    // Where each destination endpoint meets the fabric: its own channels (bare NICs), or the
    // network ports of its NIC switch (node model).
    const auto channels = graph_.channels();
    const std::uint32_t fabric = layout_ ? layout_->fabric_switches : graph_.switch_count();
    const std::uint32_t endpoints = graph_.endpoint_count();
    attach_first_.assign(endpoints + 1, 0);
    attachments_.clear();
    auto add_attachments_of = [&](NodeRef owner) {
        for (std::uint32_t c = graph_.first_channel(owner);
             c < graph_.first_channel(owner) + graph_.channels_of(owner); ++c) {
            const NodeRef to = channels[c].to;
            if (to.kind != NodeKind::Switch || to.index >= fabric) continue;
            attachments_.push_back(Attachment{to.index, channels[c].reverse,
                                              fabric_switches_[to.index].component,
                                              routes_.edge_index(to.index)});
        }
    };
    for (std::uint32_t e = 0; e < endpoints; ++e) {
        attach_first_[e] = static_cast<std::uint32_t>(attachments_.size());
        add_attachments_of(layout_ ? NodeRef{NodeKind::Switch, layout_->nic[e]}
                                   : NodeRef{NodeKind::Endpoint, e});
    }
    attach_first_[endpoints] = static_cast<std::uint32_t>(attachments_.size());
    single_attachment_ = attachments_.size() == endpoints;
    for (std::uint32_t e = 0; e < endpoints && single_attachment_; ++e)
        single_attachment_ = attach_first_[e] == e;
}

void Forwarding::index_node_switches() {
    const auto channels = graph_.channels();
    const NodeLayout& l = *layout_;
    const std::uint32_t switches = graph_.switch_count();
    const std::uint32_t endpoints = graph_.endpoint_count();
    hub_gpu_.assign(switches, kNone);
    for (std::uint32_t gpu = 0; gpu < endpoints; ++gpu) hub_gpu_[l.hub[gpu]] = gpu;
    nic_ports_.assign(switches, NicPorts{});
    nic_spray_.assign(switches, 0);
    // Each spraying NIC starts its rotation at its own port (from its salt): NICs that all began
    // at port 0 would move in lockstep and load one plane at a time.
    for (std::uint32_t s = l.fabric_switches; s < switches; ++s) {
        if (l.role[s] != SwitchRole::Nic) continue;
        NicPorts& n = nic_ports_[s];
        const NodeRef me{NodeKind::Switch, s};
        n.first_network = graph_.first_channel(me);
        for (std::uint32_t c = n.first_network; c < n.first_network + graph_.channels_of(me); ++c) {
            const NodeRef to = channels[c].to;
            if (to.index < l.fabric_switches) {
                ++n.network_count;
            } else if (n.first_hub == kNone) {
                n.first_hub = c;
                n.first_gpu = hub_gpu_[to.index] % l.gpus_per_node;
            }
        }
        if (n.network_count > 0)
            nic_spray_[s] = static_cast<std::uint32_t>(fabric_switches_[s].salt % n.network_count);
    }
}

}  // namespace clustersim
