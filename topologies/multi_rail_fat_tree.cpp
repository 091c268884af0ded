#include "topologies/multi_rail_fat_tree.hpp"

#include <fmt/format.h>

#include "topologies/fat_tree_two_layer.hpp"

namespace clustersim {

Topology build_multi_rail_fat_tree(const TopologyRequest& r) {
    const std::uint32_t rails = r.planes == 0 ? r.nics_per_node : r.planes;
    if (rails == 0) throw TopologyError("topology.planes", "an MRFT needs at least one rail");
    FatTreeTwoLayerParams p;
    p.fabric = r.fabric;
    p.oversubscription = r.oversubscription;
    const FatTreeTwoLayerShape full = fat_tree_two_layer_shape(p);
    const std::uint32_t endpoints = r.endpoints == 0 ? full.max_endpoints : r.endpoints;
    check_buildable(endpoints, r.endpoints == 0 ? "topology.switch_radix" : "topology.endpoints",
                    "this MRFT");
    if (endpoints % rails != 0)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} endpoints do not fill whole nodes of {} NICs, one per rail "
                        "(expected a multiple of {})",
                        endpoints, rails, rails));
    const std::uint32_t nodes = endpoints / rails;
    const std::uint32_t leaves_per_rail = (nodes + full.down - 1) / full.down;
    p.endpoints = endpoints;
    if (endpoints > full.max_endpoints || leaves_per_rail * rails > r.fabric.switch_radix)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} endpoints on {} rails need {} rail-aligned leaves, beyond the "
                        "two-layer limit of {} leaves at radix {} (expected at most {} endpoints)",
                        endpoints, rails, leaves_per_rail * rails, r.fabric.switch_radix,
                        r.fabric.switch_radix,
                        (r.fabric.switch_radix / rails) * full.down * rails));
    const FatTreeTwoLayerShape s = fat_tree_two_layer_shape(p, leaves_per_rail * rails);

    Topology t;
    t.kind = "mrft";
    t.inventory = fat_tree_two_layer_inventory(s, r.fabric.link_rate.gbps(), 1);
    t.inventory.max_endpoints = (r.fabric.switch_radix / rails) * rails * s.down;
    if (r.counts_only) return t;
    t.graph.set_endpoint_count(endpoints);
    add_fat_tree_two_layer(t.graph, s, r.fabric, [&](std::uint32_t leaf, std::uint32_t port) {
        const std::uint32_t rail = leaf / leaves_per_rail;
        const std::uint32_t node = (leaf % leaves_per_rail) * s.down + port;
        return node < nodes ? node * rails + rail : kNone;
    });
    t.graph.finalize();
    return t;
}

}  // namespace clustersim
