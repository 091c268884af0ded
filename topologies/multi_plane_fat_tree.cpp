#include "topologies/multi_plane_fat_tree.hpp"

#include <fmt/format.h>

#include "topologies/fat_tree_two_layer.hpp"

namespace clustersim {

Topology build_multi_plane_fat_tree(const TopologyRequest& r) {
    const std::uint32_t planes = r.planes == 0 ? r.nics_per_node : r.planes;
    if (planes == 0) throw TopologyError("topology.planes", "an MPFT needs at least one plane");
    FatTreeTwoLayerParams plane_params;
    plane_params.fabric = r.fabric;
    plane_params.oversubscription = r.oversubscription;
    const FatTreeTwoLayerShape full = fat_tree_two_layer_shape(plane_params);
    const std::uint64_t max_endpoints64 = std::uint64_t{full.max_endpoints} * planes;
    if (r.endpoints == 0)
        check_buildable(
            max_endpoints64,
            r.planes != 0 && full.max_endpoints <= kMaxBuiltEndpoints ? "topology.planes"
                                                                      : "topology.switch_radix",
            fmt::format("a full {}-plane MPFT at radix {}", planes, r.fabric.switch_radix));
    const auto max_endpoints =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(max_endpoints64, UINT32_MAX));
    const std::uint32_t endpoints = r.endpoints == 0 ? max_endpoints : r.endpoints;
    check_buildable(endpoints, "topology.endpoints", "this MPFT");
    if (endpoints > max_endpoints)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} endpoints exceed the MPFT limit of {} ({} planes x {} per two-layer "
                        "plane at radix {}; expected at most {})",
                        endpoints, max_endpoints, planes, full.max_endpoints, r.fabric.switch_radix,
                        max_endpoints));
    if (endpoints % planes != 0)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} endpoints do not fill whole nodes of {} NICs, one per plane "
                        "(expected a multiple of {})",
                        endpoints, planes, planes));
    plane_params.endpoints = endpoints / planes;
    const FatTreeTwoLayerShape s = fat_tree_two_layer_shape(plane_params);

    Topology t;
    t.kind = "mpft";
    t.planes = planes;
    t.inventory = fat_tree_two_layer_inventory(s, r.fabric.link_rate.gbps(), planes);
    t.inventory.max_endpoints = max_endpoints;
    if (r.counts_only) return t;
    t.graph.set_endpoint_count(endpoints);
    for (std::uint32_t p = 0; p < planes; ++p)
        add_fat_tree_two_layer(t.graph, s, r.fabric, [&](std::uint32_t leaf, std::uint32_t port) {
            const std::uint32_t position = leaf * s.down + port;  // node index within the plane
            return position < s.endpoints ? position * planes + p : kNone;
        });
    t.graph.finalize();
    return t;
}

}  // namespace clustersim
