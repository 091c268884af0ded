#include <fmt/format.h>

#include "topologies/dragonfly.hpp"
#include "topologies/fat_tree_three_layer.hpp"
#include "topologies/fat_tree_two_layer.hpp"
#include "topologies/multi_plane_fat_tree.hpp"
#include "topologies/multi_rail_fat_tree.hpp"
#include "topologies/single_switch_planes.hpp"
#include "topologies/slim_fly.hpp"

namespace clustersim {

void check_buildable(std::uint64_t endpoints, const std::string& key, const std::string& what) {
    if (endpoints > kMaxBuiltEndpoints)
        throw TopologyError(key,
                            fmt::format("{} would have {} endpoints, more than the {} "
                                        "clustersim builds (expected a smaller radix, or "
                                        "topology.endpoints at most {})",
                                        what, endpoints, kMaxBuiltEndpoints, kMaxBuiltEndpoints));
}

Topology build_topology(const TopologyRequest& r) {
    if (r.kind == "ft2") {
        FatTreeTwoLayerParams p;
        p.fabric = r.fabric;
        p.oversubscription = r.oversubscription;
        p.endpoints = r.endpoints;
        return build_fat_tree_two_layer(p);
    }
    if (r.kind == "ft3") return build_fat_tree_three_layer(r);
    if (r.kind == "mpft") return build_multi_plane_fat_tree(r);
    if (r.kind == "mrft") return build_multi_rail_fat_tree(r);
    if (r.kind == "dual-plane" || r.kind == "shuffle")
        return build_single_switch_planes(r, r.nic_rate_gbps);
    if (r.kind == "slimfly") return build_slim_fly(r);
    if (r.kind == "dragonfly") return build_dragonfly(r);
    throw TopologyError("topology.kind", fmt::format("unknown topology kind '{}'", r.kind));
}

}  // namespace clustersim
