#include "topologies/fat_tree_three_layer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace clustersim {

FatTreeThreeLayerShape fat_tree_three_layer_shape(const TopologyRequest& r) {
    const std::uint32_t k = r.fabric.switch_radix;
    if (k < 4 || k % 2 != 0)
        throw TopologyError(
            "topology.switch_radix",
            fmt::format("a three-layer fat tree needs an even radix of at least 4 (got {})", k));
    const double up_exact = k / (r.oversubscription + 1.0);
    const auto up = static_cast<std::uint32_t>(std::llround(up_exact));
    if (!(r.oversubscription >= 1.0) || up == 0 || std::abs(up_exact - up) > 1e-9 || up > k / 2)
        throw TopologyError(
            "topology.oversubscription",
            fmt::format("oversubscription {} does not split radix {} into whole down and up ports "
                        "(expected r >= 1 with radix/(r+1) whole)",
                        r.oversubscription, k),
            {"topology.switch_radix"});
    FatTreeThreeLayerShape s;
    s.up = up;
    s.down = k - up;
    s.leaves_per_pod = k / 2;
    const std::uint64_t max_endpoints = std::uint64_t{k} * s.leaves_per_pod * s.down;
    if (r.endpoints == 0)
        check_buildable(max_endpoints, "topology.switch_radix",
                        fmt::format("a full three-layer fat tree at radix {}", k));
    s.max_endpoints =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(max_endpoints, UINT32_MAX));
    s.endpoints = r.endpoints == 0 ? s.max_endpoints : r.endpoints;
    if (s.endpoints > s.max_endpoints)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} endpoints exceed the three-layer fat tree limit of {} at radix {} "
                        "(expected at most {})",
                        s.endpoints, s.max_endpoints, k, s.max_endpoints));
    check_buildable(s.endpoints, "topology.endpoints", "this three-layer fat tree");
    s.leaves = (s.endpoints + s.down - 1) / s.down;
    s.pods = (s.leaves + s.leaves_per_pod - 1) / s.leaves_per_pod;
    s.aggs = s.pods * s.up;
    s.leaf_agg_links = static_cast<std::uint64_t>(s.leaves) * s.up;
    if (s.pods > 1) {
        // Each agg has k/2 uplinks into its core group; with fewer than k pods, cores take
        // parallel links so that no core port is wasted.
        const std::uint32_t agg_up = k / 2;
        s.core_parallel = 1;
        for (std::uint32_t m = agg_up; m >= 1; --m)
            if (agg_up % m == 0 && s.pods * m <= k) {
                s.core_parallel = m;
                break;
            }
        s.cores_per_group = agg_up / s.core_parallel;
        s.cores = s.up * s.cores_per_group;
        s.agg_core_links = static_cast<std::uint64_t>(s.aggs) * agg_up;
    }
    return s;
}

Topology build_fat_tree_three_layer(const TopologyRequest& r) {
    const FatTreeThreeLayerShape s = fat_tree_three_layer_shape(r);
    const FabricParams& f = r.fabric;
    Topology t;
    t.kind = "ft3";
    Inventory& inv = t.inventory;
    inv.endpoints = s.endpoints;
    inv.switches = s.leaves + s.aggs + s.cores;
    inv.tiers = {{"leaf", s.leaves}, {"aggregation", s.aggs}, {"core", s.cores}};
    inv.endpoint_links = s.endpoints;
    inv.switch_links = s.leaf_agg_links + s.agg_core_links;
    inv.max_hops = s.pods > 1 ? 5 : (s.leaves > 1 ? 3 : 1);
    inv.max_endpoints = s.max_endpoints;
    // Full, non-oversubscribed: every cut of the core is as wide as half the endpoints.
    const double rate = f.link_rate.gbps();
    const double half = std::floor(s.endpoints / 2.0);
    const double core_side =
        s.pods > 1 ? std::floor(s.pods / 2.0) * s.up * (f.switch_radix / 2.0) : half;
    const double leaf_side = std::floor(s.leaves / 2.0) * s.up;
    inv.bisection_gbps = std::min({half, core_side, s.leaves > 1 ? leaf_side : half}) * rate;
    inv.bisection_exact = s.endpoints == s.max_endpoints;
    inv.cables = {{"endpoint-aoc", inv.endpoint_links}, {"switch-optics", inv.switch_links}};
    inv.transceivers = 2 * inv.switch_links;
    if (r.counts_only) return t;

    PortGraph& g = t.graph;
    g.set_endpoint_count(s.endpoints);
    auto sw = [&](std::uint32_t tier) {
        return g.add_switch(
            SwitchInfo{tier, f.switch_radix, f.switch_latency, f.port_buffer_bytes, f.cut_through});
    };
    std::vector<std::uint32_t> leaf(s.leaves), agg(s.aggs), core(s.cores);
    for (auto& x : leaf) x = sw(0);
    for (auto& x : agg) x = sw(1);
    for (auto& x : core) x = sw(2);
    for (std::uint32_t e = 0; e < s.endpoints; ++e)
        g.add_cable({NodeKind::Endpoint, e}, {NodeKind::Switch, leaf[e / s.down]}, f.link_rate,
                    f.link_delay);
    for (std::uint32_t l = 0; l < s.leaves; ++l) {
        const std::uint32_t pod = l / s.leaves_per_pod;
        for (std::uint32_t j = 0; j < s.up; ++j)
            g.add_cable({NodeKind::Switch, leaf[l]}, {NodeKind::Switch, agg[pod * s.up + j]},
                        f.link_rate, f.link_delay);
    }
    for (std::uint32_t a = 0; a < s.aggs && s.cores > 0; ++a) {
        const std::uint32_t group = a % s.up;
        for (std::uint32_t c = 0; c < s.cores_per_group; ++c)
            for (std::uint32_t m = 0; m < s.core_parallel; ++m)
                g.add_cable({NodeKind::Switch, agg[a]},
                            {NodeKind::Switch, core[group * s.cores_per_group + c]}, f.link_rate,
                            f.link_delay);
    }
    g.finalize();

    return t;
}

}  // namespace clustersim
