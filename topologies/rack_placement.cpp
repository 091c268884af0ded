#include "topologies/rack_placement.hpp"

#include <algorithm>
#include <vector>

namespace clustersim {

RackCabling place_in_racks(const PortGraph& graph, std::uint32_t endpoints_per_rack) {
    RackCabling r;
    if (endpoints_per_rack == 0) return r;
    constexpr std::uint32_t kUnset = kNone - 1;  // no endpoint seen yet
    std::vector<std::uint32_t> rack_of_switch(graph.switch_count(), kUnset);
    const auto rack_of = [&](std::uint32_t endpoint) { return endpoint / endpoints_per_rack; };
    for (const auto& c : graph.cables()) {
        if ((c.a.kind == NodeKind::Endpoint) == (c.b.kind == NodeKind::Endpoint)) continue;
        const NodeRef sw = c.a.kind == NodeKind::Switch ? c.a : c.b;
        const NodeRef ep = c.a.kind == NodeKind::Switch ? c.b : c.a;
        auto& rack = rack_of_switch[sw.index];
        if (rack == kUnset)
            rack = rack_of(ep.index);
        else if (rack != rack_of(ep.index))
            rack = kNone;  // serves several racks: sits in a network rack
    }
    for (auto& rack : rack_of_switch)
        if (rack == kUnset) rack = kNone;  // no endpoints: a network rack
    r.top_of_rack_switches =
        static_cast<std::uint32_t>(std::count_if(rack_of_switch.begin(), rack_of_switch.end(),
                                                 [](std::uint32_t rack) { return rack != kNone; }));
    for (const auto& c : graph.cables()) {
        const bool a_ep = c.a.kind == NodeKind::Endpoint, b_ep = c.b.kind == NodeKind::Endpoint;
        if (a_ep && b_ep) continue;
        if (a_ep || b_ep) {
            const NodeRef sw = a_ep ? c.b : c.a;
            const NodeRef ep = a_ep ? c.a : c.b;
            if (rack_of_switch[sw.index] == rack_of(ep.index)) ++r.endpoint_links_in_rack;
        } else {
            const std::uint32_t ra = rack_of_switch[c.a.index];
            if (ra != kNone && ra == rack_of_switch[c.b.index]) ++r.switch_links_in_rack;
        }
    }
    return r;
}

namespace {

void move_cables(Inventory& inv, const char* from, const char* to, std::uint64_t count) {
    if (count == 0) return;
    auto src = std::find_if(inv.cables.begin(), inv.cables.end(),
                            [&](const CableCount& c) { return c.kind == from; });
    if (src == inv.cables.end()) return;  // another kind (breakout, shuffle): stays optical
    const std::uint64_t moved = std::min(count, src->count);
    src->count -= moved;
    auto dst = std::find_if(inv.cables.begin(), inv.cables.end(),
                            [&](const CableCount& c) { return c.kind == to; });
    if (dst == inv.cables.end())
        inv.cables.insert(src + 1, CableCount{to, moved});  // keep endpoint kinds together
    else
        dst->count += moved;
    std::erase_if(inv.cables, [](const CableCount& c) { return c.count == 0; });
}

}  // namespace

void apply_rack_cabling(Inventory& inv, const RackCabling& racks) {
    move_cables(inv, "endpoint-aoc", "endpoint-dac", racks.endpoint_links_in_rack);
    const auto optics = std::find_if(inv.cables.begin(), inv.cables.end(),
                                     [](const CableCount& c) { return c.kind == "switch-optics"; });
    if (optics != inv.cables.end()) {
        const std::uint64_t moved = std::min(racks.switch_links_in_rack, optics->count);
        inv.transceivers -= std::min(inv.transceivers, 2 * moved);
    }
    move_cables(inv, "switch-optics", "switch-dac", racks.switch_links_in_rack);
}

void place_topology_in_racks(Topology& t, std::uint32_t endpoints_per_rack) {
    if (!t.inventory.constructible) return;  // formula counts, no cables to place: all optical
    const RackCabling racks = place_in_racks(t.graph, endpoints_per_rack);
    apply_rack_cabling(t.inventory, racks);
    t.inventory.endpoints_per_rack = endpoints_per_rack;
    t.inventory.top_of_rack_switches = racks.top_of_rack_switches;
}

}  // namespace clustersim
