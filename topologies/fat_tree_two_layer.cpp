#include "topologies/fat_tree_two_layer.hpp"

#include <fmt/format.h>

#include <cmath>

namespace clustersim {

FatTreeTwoLayerShape fat_tree_two_layer_shape(const FatTreeTwoLayerParams& p) {
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
                        r, k));
    FatTreeTwoLayerShape s;
    s.up = up;
    s.down = k - up;
    s.max_endpoints = k * s.down;  // every spine port faces a distinct leaf
    s.endpoints = p.endpoints == 0 ? s.max_endpoints : p.endpoints;
    if (s.endpoints > s.max_endpoints)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} endpoints exceed the two-layer fat tree limit of {} at radix {} and "
                        "oversubscription {} (expected at most {}; use ft3 for more)",
                        s.endpoints, s.max_endpoints, k, r, s.max_endpoints));
    s.leaves = (s.endpoints + s.down - 1) / s.down;
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

Topology build_fat_tree_two_layer(const FatTreeTwoLayerParams& p) {
    const FatTreeTwoLayerShape s = fat_tree_two_layer_shape(p);
    const FabricParams& f = p.fabric;
    Topology t;
    t.kind = "ft2";
    PortGraph& g = t.graph;
    const SwitchInfo leaf{0, f.switch_radix, f.switch_latency, f.port_buffer_bytes};
    const SwitchInfo spine{1, f.switch_radix, f.switch_latency, f.port_buffer_bytes};
    for (std::uint32_t i = 0; i < s.leaves; ++i) g.add_switch(leaf);
    for (std::uint32_t i = 0; i < s.spines; ++i) g.add_switch(spine);
    g.set_endpoint_count(s.endpoints);
    for (std::uint32_t e = 0; e < s.endpoints; ++e)
        g.add_cable({NodeKind::Endpoint, e}, {NodeKind::Switch, e / s.down}, f.link_rate,
                    f.link_delay);
    for (std::uint32_t l = 0; l < s.leaves; ++l)
        for (std::uint32_t sp = 0; sp < s.spines; ++sp)
            for (std::uint32_t m = 0; m < s.parallel; ++m)
                g.add_cable({NodeKind::Switch, l}, {NodeKind::Switch, s.leaves + sp}, f.link_rate,
                            f.link_delay);
    g.finalize();

    Inventory& inv = t.inventory;
    inv.endpoints = s.endpoints;
    inv.switches = s.leaves + s.spines;
    inv.tiers = {{"leaf", s.leaves}, {"spine", s.spines}};
    inv.endpoint_links = s.endpoints;
    inv.switch_links = static_cast<std::uint64_t>(s.leaves) * s.spines * s.parallel;
    inv.max_hops = s.leaves > 1 ? 3 : 1;
    inv.max_endpoints = s.max_endpoints;
    // Bisection: half the endpoints on each side (whole leaves where possible). Each side's
    // capacity to the spines is leaves/2 x up links; the cut is the smaller of that and the
    // endpoints' own links.
    const double rate = f.link_rate.gbps();
    const double half_endpoints = std::floor(s.endpoints / 2.0);
    const double half_uplinks = s.leaves > 1 ? std::floor(s.leaves / 2.0) * s.up : half_endpoints;
    inv.bisection_gbps = std::min(half_endpoints, half_uplinks) * rate;
    inv.bisection_exact = s.leaves % 2 == 0 && s.endpoints % s.down == 0;
    return t;
}

}  // namespace clustersim
