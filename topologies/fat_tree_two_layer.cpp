#include "topologies/fat_tree_two_layer.hpp"

#include <fmt/format.h>

#include <cmath>

namespace clustersim {

FatTreeTwoLayerShape fat_tree_two_layer_shape(const FatTreeTwoLayerParams& p,
                                              std::uint32_t leaves_needed) {
    const std::uint32_t k = p.fabric.switch_radix;
    if (k < 2)
        throw TopologyError("topology.switch_radix", "a fat tree needs a radix of at least 2");
    const double r = p.oversubscription;
    if (!(r >= 1.0))
        throw TopologyError(
            "topology.oversubscription",
            fmt::format("oversubscription {} is below 1 (expected down:up >= 1)", r));
    const double up_exact = k / (r + 1.0);
    const auto up = static_cast<std::uint32_t>(std::llround(up_exact));
    if (up == 0 || std::abs(up_exact - up) > 1e-9)
        throw TopologyError(
            "topology.oversubscription",
            fmt::format("oversubscription {} does not split radix {} into whole down and up ports "
                        "(expected r such that radix/(r+1) is a whole number, e.g. 1 or 3)",
                        r, k),
            {"topology.switch_radix"});
    FatTreeTwoLayerShape s;
    s.up = up;
    s.down = k - up;
    // Every spine port faces a distinct leaf; at most 65,536 x 65,535, which fits 32 bits.
    s.max_endpoints = static_cast<std::uint32_t>(static_cast<std::uint64_t>(k) * s.down);
    s.endpoints = p.endpoints == 0 ? s.max_endpoints : p.endpoints;
    s.leaves = leaves_needed != 0 ? leaves_needed : (s.endpoints + s.down - 1) / s.down;
    if (s.endpoints > s.max_endpoints || s.leaves > k)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} endpoints exceed the two-layer fat tree limit of {} at radix {} and "
                        "oversubscription {} (expected at most {}; use ft3 for more)",
                        s.endpoints, s.max_endpoints, k, r, s.max_endpoints));
    if (s.leaves == 1) {
        s.spines = 0;
        s.parallel = 0;
        return s;
    }
    // Parallel links per leaf-spine pair: the largest divisor of `up` whose spines still have a
    // port for every leaf. At full size that is 1 (one link from each leaf to each spine).
    s.parallel = 1;
    for (std::uint32_t m = up; m >= 1; --m)
        if (up % m == 0 && s.leaves * m <= k) {
            s.parallel = m;
            break;
        }
    s.spines = up / s.parallel;
    return s;
}

std::uint32_t add_fat_tree_two_layer(
    PortGraph& g, const FatTreeTwoLayerShape& s, const FabricParams& f,
    const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& endpoint_at) {
    const SwitchInfo leaf{0, f.switch_radix, f.switch_latency, f.port_buffer_bytes, f.cut_through};
    const SwitchInfo spine{1, f.switch_radix, f.switch_latency, f.port_buffer_bytes, f.cut_through};
    const std::uint32_t first = g.switch_count();
    for (std::uint32_t i = 0; i < s.leaves; ++i) g.add_switch(leaf);
    for (std::uint32_t i = 0; i < s.spines; ++i) g.add_switch(spine);
    for (std::uint32_t l = 0; l < s.leaves; ++l)
        for (std::uint32_t port = 0; port < s.down; ++port) {
            const std::uint32_t e = endpoint_at(l, port);
            if (e != kNone)
                g.add_cable({NodeKind::Endpoint, e}, {NodeKind::Switch, first + l}, f.link_rate,
                            f.link_delay);
        }
    for (std::uint32_t l = 0; l < s.leaves; ++l)
        for (std::uint32_t sp = 0; sp < s.spines; ++sp)
            for (std::uint32_t m = 0; m < s.parallel; ++m)
                g.add_cable({NodeKind::Switch, first + l},
                            {NodeKind::Switch, first + s.leaves + sp}, f.link_rate, f.link_delay);
    return first;
}

std::pair<bool, double> fat_tree_two_layer_bisection(const FatTreeTwoLayerShape& s,
                                                     double rate_gbps) {
    // Half the endpoints on each side (whole leaves where possible). Each side reaches the
    // spines over leaves/2 x up links; the cut is the smaller of that and the endpoints' links.
    const double half_endpoints = std::floor(s.endpoints / 2.0);
    const double half_uplinks = s.leaves > 1 ? std::floor(s.leaves / 2.0) * s.up : half_endpoints;
    const bool exact = s.leaves == 1 || (s.leaves % 2 == 0 && s.endpoints % s.down == 0);
    return {exact, std::min(half_endpoints, half_uplinks) * rate_gbps};
}

Inventory fat_tree_two_layer_inventory(const FatTreeTwoLayerShape& s, double rate_gbps,
                                       std::uint32_t planes) {
    Inventory inv;
    inv.endpoints = planes * s.endpoints;
    inv.switches = planes * (s.leaves + s.spines);
    inv.tiers = {{"leaf", planes * s.leaves}, {"spine", planes * s.spines}};
    inv.endpoint_links = inv.endpoints;
    inv.switch_links = planes * s.switch_links();
    inv.max_hops = s.leaves > 1 ? 3 : 1;
    inv.max_endpoints = planes * s.max_endpoints;
    const auto [exact, plane_bisection] = fat_tree_two_layer_bisection(s, rate_gbps);
    inv.bisection_gbps = planes * plane_bisection;
    inv.bisection_exact = exact;
    inv.cables = {{"endpoint-aoc", inv.endpoint_links}, {"switch-optics", inv.switch_links}};
    inv.transceivers = 2 * inv.switch_links;
    return inv;
}

Topology build_fat_tree_two_layer(const FatTreeTwoLayerParams& p) {
    const FatTreeTwoLayerShape s = fat_tree_two_layer_shape(p);
    check_buildable(s.endpoints, p.endpoints == 0 ? "topology.switch_radix" : "topology.endpoints",
                    "this two-layer fat tree");
    Topology t;
    t.kind = "ft2";
    t.graph.set_endpoint_count(s.endpoints);
    add_fat_tree_two_layer(t.graph, s, p.fabric, [&](std::uint32_t leaf, std::uint32_t port) {
        const std::uint32_t e = leaf * s.down + port;
        return e < s.endpoints ? e : kNone;
    });
    t.graph.finalize();

    t.inventory = fat_tree_two_layer_inventory(s, p.fabric.link_rate.gbps(), 1);
    return t;
}

}  // namespace clustersim
