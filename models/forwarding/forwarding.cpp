#include "models/forwarding/forwarding.hpp"

#include <algorithm>
#include <bit>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <stdexcept>
#include <tuple>

#include "sim/random.hpp"

namespace clustersim {

Forwarding::Forwarding(const PortGraph& graph, const ForwardingTables& routes,
                       const NetworkParams& params, const NodeLayout* layout,
                       std::span<const EgressPort> ports)
    : graph_(graph),
      routes_(&routes),
      base_routes_(&routes),
      layout_(layout),
      ports_(ports),
      params_(params.routing) {
    const auto& policies = routing_policies();
    if (params_.policy >= policies.rows().size())
        throw std::invalid_argument("unknown routing policy");
    find_planes();
    RandomStream salts(params.seed, "ecmp-salt");
    for (FabricSwitch& s : fabric_switches_) {
        s.route.salt = salts();
        s.choose = policies[params_.policy].choose;
    }
    if (policies[params_.policy].flowlet_table) {
        const std::uint32_t fabric = layout_ ? layout_->fabric_switches : graph_.switch_count();
        flowlets_.assign(std::size_t{fabric} * kFlowletEntries, Flowlet{});
        for (std::uint32_t s = 0; s < fabric; ++s)
            fabric_switches_[s].route.flowlets =
                std::span<Flowlet>(flowlets_).subspan(s * kFlowletEntries, kFlowletEntries);
    }
    non_minimal_ = policies[params_.policy].non_minimal;
    slow_route_ = non_minimal_ != NonMinimal::Never;
    pure_policy_ = policies[params_.policy].pure;
    detour_salt_ = RandomStream(params.seed, "valiant").operator()();
    hop_bytes_ = params.mtu_bytes + params.header_bytes;
    edge_switch_.assign(routes_->edge_count(), kNone);
    // The tables cover the fabric's switches (node-internal ones come after them).
    const std::uint32_t fabric = layout_ ? layout_->fabric_switches : graph_.switch_count();
    for (std::uint32_t s = 0; s < fabric; ++s)
        if (routes_->edge_index(s) != kNone) edge_switch_[routes_->edge_index(s)] = s;
    index_attachments();
    number_lids();
    find_dmodk_divisors();
    if (layout_) index_node_switches();
}

void Forwarding::number_lids() {
    // As a subnet manager numbers a plane's ports: leaf by leaf (edge index), port by port.
    std::vector<std::uint32_t> order(attachments_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::ranges::sort(order, [&](std::uint32_t a, std::uint32_t b) {
        const Attachment &x = attachments_[a], &y = attachments_[b];
        return std::tie(x.component, x.edge, x.down_channel) <
               std::tie(y.component, y.edge, y.down_channel);
    });
    std::uint32_t lid = 0, component = kNone;
    for (std::uint32_t i : order) {
        if (attachments_[i].component != component) {
            component = attachments_[i].component;
            lid = 0;
        }
        attachments_[i].lid = lid++;
    }
}

void Forwarding::find_dmodk_divisors() {
    // Levels: hops from the nearest edge switch. D-mod-k divides a destination's LID by the
    // product of the up-port counts of the levels below a switch.
    const auto channels = graph_.channels();
    const std::uint32_t fabric = layout_ ? layout_->fabric_switches : graph_.switch_count();
    std::vector<std::uint32_t> level(fabric, kNone), frontier;
    for (const Attachment& a : attachments_)
        if (a.fabric_switch < fabric && level[a.fabric_switch] == kNone) {
            level[a.fabric_switch] = 0;
            frontier.push_back(a.fabric_switch);
        }
    auto each_neighbour = [&](std::uint32_t s, auto&& f) {
        const NodeRef me{NodeKind::Switch, s};
        for (std::uint32_t c = graph_.first_channel(me);
             c < graph_.first_channel(me) + graph_.channels_of(me); ++c)
            if (channels[c].to.kind == NodeKind::Switch && channels[c].to.index < fabric)
                f(channels[c].to.index);
    };
    std::vector<std::uint32_t> up_ports;  // per level, the most up-links of one switch
    for (std::uint32_t l = 0; !frontier.empty(); ++l) {
        std::vector<std::uint32_t> next;
        std::uint32_t most = 0;
        for (std::uint32_t s : frontier) {
            std::uint32_t up = 0;
            each_neighbour(s, [&](std::uint32_t t) {
                if (level[t] == kNone) {
                    level[t] = l + 1;
                    next.push_back(t);
                }
                if (level[t] == l + 1) ++up;
            });
            most = std::max(most, up);
        }
        up_ports.push_back(std::max(most, 1u));
        frontier = std::move(next);
    }
    goes_up_.assign(channels.size(), 0);
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        const Channel& ch = channels[c];
        if (ch.from.kind == NodeKind::Switch && ch.to.kind == NodeKind::Switch &&
            ch.from.index < fabric && ch.to.index < fabric && level[ch.from.index] != kNone &&
            level[ch.to.index] != kNone && level[ch.to.index] > level[ch.from.index])
            goes_up_[c] = 1;
    }
    for (std::uint32_t s = 0; s < fabric; ++s) {
        std::uint64_t d = 1, below = 1;
        for (std::uint32_t l = 0; level[s] != kNone && l < level[s]; ++l) {
            below = d;
            d = std::min<std::uint64_t>(d * up_ports[l], 1u << 30);
        }
        fabric_switches_[s].route.dmodk_divisor = static_cast<std::uint32_t>(d);
        fabric_switches_[s].route.dmodk_down_divisor = static_cast<std::uint32_t>(below);
    }
}

std::uint32_t Forwarding::intermediate(const Packet& p, std::uint32_t component,
                                       std::uint32_t dst_switch) const {
    // A function of the packet's fields alone, so that every switch on the way recomputes the
    // same one: a few draws for an edge switch of this plane outside the source's and the
    // destination's groups (an intermediate there would reuse the minimal route's links).
    const Attachment* src = attachment_in(p.src, component);
    const std::uint32_t src_group = src ? group_of(src->fabric_switch) : kNone;
    const std::uint32_t dst_group = group_of(dst_switch);
    const std::uint64_t base = mix64((std::uint64_t{p.message} << 32 | p.sequence) ^ detour_salt_);
    for (std::uint64_t k = 0; k < 8; ++k) {
        const std::uint32_t e =
            pick_index(static_cast<std::uint32_t>(mix64(base + k)), edge_switch_.size());
        const std::uint32_t s = edge_switch_[e];
        if (s == kNone || fabric_switches_[s].component != component) continue;
        if (group_of(s) != src_group && group_of(s) != dst_group) return e;
    }
    return kNone;
}

Forwarding::PathCost Forwarding::walk(std::uint32_t from, std::uint32_t edge,
                                      bool every_hop) const {
    // Follows the least-loaded candidate hop by hop, as the packet would if it went now.
    const auto channels = graph_.channels();
    PathCost cost;
    std::uint32_t s = from;
    while (routes_->edge_index(s) != edge && cost.hops < 64) {
        const auto c = routes_->candidates(s, edge);
        if (c.empty()) break;
        std::uint32_t best = c[0];
        for (std::uint32_t ch : c)
            if (ports_[ch].queued_bytes < ports_[best].queued_bytes) best = ch;
        if (every_hop || cost.hops == 0) cost.queued_bytes += ports_[best].queued_bytes;
        ++cost.hops;
        s = channels[best].to.index;
    }
    return cost;
}

std::uint32_t Forwarding::detour(std::uint32_t sw, Packet& p) {
    if (p.flags & Packet::kPastIntermediate) return kNone;
    // Decided once, at the first fabric switch; a packet that stayed minimal there stays so.
    if (!(p.flags & Packet::kNonMinimal) && p.fabric_hops != 0) return kNone;
    const std::uint32_t component = fabric_switches_[sw].component;
    const Attachment* dst = attachment_in(p.dst, component);
    if (!dst || dst->fabric_switch == sw) return kNone;
    const std::uint32_t mid = intermediate(p, component, dst->fabric_switch);
    if (mid == kNone) return kNone;
    if (!(p.flags & Packet::kNonMinimal)) {
        if (non_minimal_ == NonMinimal::Adaptive) {
            // UGAL (Singh, PhD thesis 2005): the detour when its queue x hops is smaller. Local:
            // the first hop's queue times the path's hops; global: every hop's queue plus a
            // packet per hop, so that empty paths still prefer the shorter.
            const bool global = params_.knobs.get<UgalKnobs>().global;
            const PathCost m = walk(sw, dst->edge, global);
            const PathCost a = walk(sw, mid, global);
            const PathCost b = walk(edge_switch_[mid], dst->edge, global);
            const std::uint64_t hop = hop_bytes_;
            const std::uint64_t minimal =
                global ? m.queued_bytes + hop * m.hops : (m.queued_bytes + hop) * m.hops;
            const std::uint64_t via =
                global ? a.queued_bytes + b.queued_bytes + hop * (a.hops + b.hops)
                       : (a.queued_bytes + hop) * (a.hops + b.hops);
            if (via >= minimal) return kNone;
        }
        p.flags |= Packet::kNonMinimal;
    }
    if (routes_->edge_index(sw) == mid) {
        p.flags |= Packet::kPastIntermediate;
        return kNone;
    }
    const auto c = routes_->candidates(sw, mid);
    if (c.empty()) return kNone;
    if (c.size() == 1) return c[0];
    const auto h = static_cast<std::uint32_t>(mix64(p.entropy ^ fabric_switches_[sw].route.salt));
    return c[pick_index(h, c.size())];
}

std::uint32_t Forwarding::node_route(std::uint32_t sw, Packet& p, Time now) {
    const NodeLayout& l = *layout_;
    const std::uint32_t b = p.dst;
    switch (l.role[sw]) {
        case SwitchRole::Fabric:
            return fabric_route(sw, p, now);
        case SwitchRole::GpuHub: {
            // Channels: to its GPU (one per GPU path), to the scale-up switch, to its NIC.
            const std::uint32_t first = graph_.first_channel({NodeKind::Switch, sw});
            const std::uint32_t scale_up = first + kGpuPaths, nic = scale_up + 1;
            if (l.hub[b] == sw) return first;
            const bool via_nic = (p.flags & Packet::kViaNic) != 0;
            if (!via_nic && l.node_of_gpu(b) == l.node_of[sw]) return scale_up;
            // A NIC on another plane is reached over NVLink first (PXN), a same-node
            // destination through the NIC included: its plane's switch cannot reach it.
            const std::uint32_t here = hub_gpu_[sw];
            if (l.pxn && dst_plane_[b] != l.plane_of_gpu(here)) return scale_up;
            return nic;
        }
        case SwitchRole::ScaleUp: {
            const std::uint32_t first =
                graph_.first_channel({NodeKind::Switch, sw});  // one per local GPU
            if (l.node_of_gpu(b) == l.node_of[sw]) return first + b % l.gpus_per_node;
            return first + l.gpu_for_plane(dst_plane_[b]);
        }
        case SwitchRole::Nic: {
            const NicPorts& n = nic_ports_[sw];
            // Through the NIC to a GPU of its own node: out to the first switch unless this
            // NIC serves that GPU (then it loops back, as one NIC shared by both GPUs would).
            if (l.node_of_gpu(b) == l.node_of[sw] &&
                ((p.flags & Packet::kViaNic) == 0 || l.nic[b] == sw)) {
                // Its own GPUs directly; another of the node's (its plane lost, the traffic
                // rerouted through this NIC) through its first GPU's hub and the scale-up switch.
                const std::uint32_t k = b % l.gpus_per_node - n.first_gpu;
                if (k < n.gpus_served) return n.first_hub + k;
                if (p.kind == PacketKind::Data && !lost_planes_.empty())
                    rerouted_.add(lost_planes_[l.plane_of_gpu(b)], p.payload_bytes);
                return n.first_hub;
            }
            if (n.network_all == 1) return n.ports[0];  // one port as built (mpft, mrft)
            // Several network ports (dual-plane, shuffle). Bond: one connection, one port,
            // chosen by a hash of its header fields. Spray: packets over the ports in turn.
            std::uint32_t out = 0;
            if (!l.nic_spray) {
                const auto h =
                    static_cast<std::uint32_t>(mix64(p.entropy ^ fabric_switches_[sw].route.salt));
                out = n.ports[(std::uint64_t{h} * n.network_count) >> 32];
            } else {
                std::uint32_t& next = nic_spray_[sw];
                if (next >= n.network_count) next = 0;  // a port was given up
                out = n.ports[next];
                next = next + 1 == n.network_count ? 0 : next + 1;
            }
            if (nic_faults_) [[unlikely]]
                return bond_route(sw, n, p, out);
            return out;
        }
    }
    return kNone;
}

void Forwarding::reroute_plane(std::uint32_t plane, bool lost, std::uint32_t fault) {
    const NodeLayout& l = *layout_;
    if (lost_planes_.empty()) lost_planes_.assign(l.nics_per_node, kNone);
    rerouted_.expect(fault);
    lost_planes_[plane] = lost ? fault : kNone;
    std::vector<std::uint32_t> alive;
    for (std::uint32_t q = 0; q < l.nics_per_node; ++q)
        if (lost_planes_[q] == kNone) alive.push_back(q);
    // Each lost plane's GPUs are reached through a surviving plane, a different one per node,
    // so that the rerouted traffic spreads over the survivors.
    for (std::uint32_t gpu = 0; gpu < dst_plane_.size(); ++gpu) {
        const std::uint32_t own = l.plane_of_gpu(gpu);
        dst_plane_[gpu] = lost_planes_[own] == kNone || alive.empty()
                              ? own
                              : alive[l.node_of_gpu(gpu) % alive.size()];
    }
    // A rerouted GPU is also reached where its traffic now enters the node: the attachments
    // (and addresses) of the NIC of its node on the plane that carries it.
    if (base_first_.empty()) {
        base_attachments_ = attachments_;
        base_first_ = attach_first_;
        if (single_attachment_)
            for (std::uint32_t e = 0; e < base_first_.size(); ++e) base_first_[e] = e;
    }
    std::vector<Attachment> out;
    std::vector<std::uint32_t> first(base_first_.size(), 0);
    auto copy_of = [&](std::uint32_t e) {
        out.insert(out.end(), base_attachments_.begin() + base_first_[e],
                   base_attachments_.begin() + base_first_[e + 1]);
    };
    const auto gpus = static_cast<std::uint32_t>(dst_plane_.size());
    for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) {
        first[gpu] = static_cast<std::uint32_t>(out.size());
        copy_of(gpu);
        if (dst_plane_[gpu] != l.plane_of_gpu(gpu))
            copy_of(l.node_of_gpu(gpu) * l.gpus_per_node + l.gpu_for_plane(dst_plane_[gpu]));
    }
    first[gpus] = static_cast<std::uint32_t>(out.size());
    attachments_ = std::move(out);
    attach_first_ = std::move(first);
    single_attachment_ = attachments_.size() == gpus;
}

void Forwarding::set_nic_port_down(std::uint32_t channel, bool down, std::uint32_t fault) {
    rerouted_.expect(fault);
    const auto channels = graph_.channels();
    const std::uint32_t sw = channels[channel].from.index;
    if (!layout_ || channels[channel].from.kind != NodeKind::Switch ||
        layout_->role[sw] != SwitchRole::Nic)
        return;
    if (nic_port_dead_.empty()) {
        nic_port_dead_.assign(channels.size(), kNone);
        nic_spray_healthy_ = nic_spray_;
    }
    nic_port_dead_[channel] = down ? fault : kNone;
    nic_faults_ = true;
    NicPorts& n = nic_ports_[sw];
    const NodeRef me{NodeKind::Switch, sw};
    std::uint32_t live = 0, all = 0;
    std::array<std::uint32_t, kMaxNicPorts> ports{};
    for (std::uint32_t c = graph_.first_channel(me);
         c < graph_.first_channel(me) + graph_.channels_of(me); ++c) {
        if (channels[c].to.index >= layout_->fabric_switches) continue;
        ++all;
        if (nic_port_dead_[c] == kNone) ports[live++] = c;
    }
    if (live == 0) {  // nothing left: keep every port (their packets are lost)
        for (std::uint32_t i = 0; i < all; ++i) ports[i] = n.first_network + i;
        live = all;
    }
    n.ports = ports;
    n.network_count = live;
    // The destinations behind it: unreachable through that port's plane.
    for (Attachment& a : attachments_)
        if (a.down_channel == channels[channel].reverse) a.dead_by = down ? fault : kNone;
}

std::uint32_t Forwarding::live_port_toward(const NicPorts& n, std::uint32_t dst,
                                           std::uint32_t out) const {
    auto reaches = [&](std::uint32_t port) {
        const std::uint32_t plane = fabric_switches_[graph_.channels()[port].to.index].component;
        const Attachment* a = attachment_in(dst, plane);
        return a && a->dead_by == kNone;
    };
    if (reaches(out)) return out;
    for (std::uint32_t i = 0; i < n.network_count; ++i)
        if (reaches(n.ports[i])) return n.ports[i];
    return out;  // unreachable everywhere: lost where it arrives
}

void Forwarding::set_routes(const ForwardingTables& tables, std::uint32_t fault) {
    const ForwardingTables& before = *routes_;
    routes_ = &tables;
    rerouted_.expect(fault);
    const bool rerouted = rerouted_.swap(*base_routes_, before, tables, fault);
    slow_route_ = non_minimal_ != NonMinimal::Never || rerouted;
}

std::uint32_t Forwarding::fabric_route_slow(std::uint32_t sw, Packet& p, Time now) {
    if (non_minimal_ != NonMinimal::Never) {
        const std::uint32_t out = detour(sw, p);
        if (out != kNone) return out;
    }
    if (routes_ == base_routes_ || p.kind != PacketKind::Data) return minimal_route(sw, p, now);
    FabricSwitch& here = fabric_switches_[sw];
    const Attachment* a = attachment_in(p.dst, here.component);
    if (!a || a->fabric_switch == sw) return minimal_route(sw, p, now);
    const std::uint32_t edges = routes_->edge_count();
    if (!pure_policy_) {
        rerouted_.add_entry(sw, a->edge, edges, p.payload_bytes);
        return minimal_route(sw, p, now);
    }
    const auto healthy = base_routes_->candidates(sw, a->edge);
    const auto c = routes_->candidates(sw, a->edge);
    // No healthy next hop here (a switch the healthy fabric never sent this way): a detour.
    bool moved = healthy.empty();
    if (!moved) {
        const std::uint32_t before = healthy.size() == 1
                                         ? healthy[0]
                                         : here.choose(RouteChoice{healthy, p, a->lid, here.route,
                                                                   ports_, now, params_, goes_up_});
        moved = std::ranges::find(c, before) == c.end();
    }
    if (moved) rerouted_.add_to_owner(sw, a->edge, edges, p.payload_bytes);
    return minimal_route(sw, p, now);
}

std::uint32_t Forwarding::bond_route(std::uint32_t sw, const NicPorts& n, const Packet& p,
                                     std::uint32_t out) {
    // The port the healthy NIC would have taken: the hash over every port, or the rotation
    // over every port. Its packets are rerouted when that port is dead, or when the
    // destination's NIC has lost its port in that port's plane.
    std::uint32_t healthy = 0;
    if (!layout_->nic_spray) {
        const auto h =
            static_cast<std::uint32_t>(mix64(p.entropy ^ fabric_switches_[sw].route.salt));
        healthy =
            n.first_network + static_cast<std::uint32_t>((std::uint64_t{h} * n.network_all) >> 32);
    } else {
        std::uint32_t& next = nic_spray_healthy_[sw];
        healthy = n.first_network + next;
        next = next + 1 >= n.network_all ? 0 : next + 1;
    }
    const std::uint32_t chosen = live_port_toward(n, p.dst, out);
    if (p.kind != PacketKind::Data) return chosen;
    std::uint32_t by = nic_port_dead_[healthy];
    if (by == kNone) {
        const std::uint32_t plane = fabric_switches_[graph_.channels()[healthy].to.index].component;
        if (const Attachment* a = attachment_in(p.dst, plane)) by = a->dead_by;
    }
    if (by != kNone) rerouted_.add(by, p.payload_bytes);
    return chosen;
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
                                              routes_->edge_index(to.index)});
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
    dst_plane_.resize(endpoints);
    for (std::uint32_t gpu = 0; gpu < endpoints; ++gpu) dst_plane_[gpu] = l.plane_of_gpu(gpu);
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
            } else {
                if (n.first_hub == kNone) {
                    n.first_hub = c;
                    n.first_gpu = hub_gpu_[to.index] % l.gpus_per_node;
                }
                ++n.gpus_served;
            }
        }
        if (n.network_count > kMaxNicPorts)
            throw std::invalid_argument("a NIC has more network ports than the node model keeps");
        for (std::uint32_t i = 0; i < n.network_count; ++i) n.ports[i] = n.first_network + i;
        n.network_all = n.network_count;
        if (n.network_count > 0)
            nic_spray_[s] =
                static_cast<std::uint32_t>(fabric_switches_[s].route.salt % n.network_count);
    }
}

std::uint64_t Forwarding::memory_bytes(std::uint64_t fabric_switches, std::uint64_t switches,
                                       std::uint64_t channels, std::uint64_t endpoints,
                                       bool flowlet_tables) {
    return fabric_switches * sizeof(FabricSwitch) + channels +  // goes_up_
           endpoints * (sizeof(Attachment) + sizeof(std::uint32_t)) +
           switches * (sizeof(std::uint32_t) + sizeof(NicPorts) + sizeof(std::uint32_t)) +
           (flowlet_tables ? fabric_switches * kFlowletEntries * sizeof(Flowlet) : 0);
}

void Forwarding::sample_path_spread(std::uint32_t messages) {
    spread_.assign(std::min(messages, kSpreadSample), SpreadRecord{});
}

void Forwarding::record_spread(std::uint32_t sw, const Packet& p, std::span<const std::uint32_t> c,
                               std::uint32_t out, Time now) {
    SpreadRecord& r = spread_[p.message];
    // The first switch with a choice is the flow's; later choices (spine, core) are not counted.
    if (r.switch_index == kNone) {
        r.switch_index = sw;
        r.candidates = static_cast<std::uint32_t>(c.size());
        r.at = now;
    }
    if (r.switch_index != sw) return;
    const auto i = static_cast<std::uint32_t>(std::find(c.begin(), c.end(), out) - c.begin());
    r.taken |= std::uint64_t{1} << (i % 64);
}

void Forwarding::keep_first_spread(Ranks& ranks) {
    // The earliest time, then the lowest switch met at it.
    std::vector<std::uint64_t> words(spread_.size());
    for (std::size_t i = 0; i < spread_.size(); ++i)
        words[i] = static_cast<std::uint64_t>(spread_[i].at.ps());
    ranks.allreduce(words, Ranks::Reduce::MinSigned);
    for (std::size_t i = 0; i < spread_.size(); ++i)
        if (spread_[i].at.ps() != static_cast<std::int64_t>(words[i])) spread_[i] = SpreadRecord{};
    for (std::size_t i = 0; i < spread_.size(); ++i) words[i] = spread_[i].switch_index;
    ranks.allreduce(words, Ranks::Reduce::MinSigned);
    for (std::size_t i = 0; i < spread_.size(); ++i)
        if (spread_[i].switch_index != words[i]) spread_[i] = SpreadRecord{};
}

PathSpread Forwarding::path_spread() const {
    PathSpread s;
    for (const SpreadRecord& r : spread_) {
        if (r.switch_index == kNone) continue;
        const auto paths = static_cast<std::uint32_t>(std::popcount(r.taken));
        ++s.flows;
        s.paths_sum += paths;
        s.candidates_sum += r.candidates;
        s.max_paths = std::max(s.max_paths, paths);
    }
    return s;
}

}  // namespace clustersim
