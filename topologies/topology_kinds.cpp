#include "topologies/topology_kinds.hpp"

#include "topologies/dragonfly.hpp"
#include "topologies/fat_tree_three_layer.hpp"
#include "topologies/fat_tree_two_layer.hpp"
#include "topologies/multi_plane_fat_tree.hpp"
#include "topologies/multi_rail_fat_tree.hpp"
#include "topologies/single_switch_planes.hpp"
#include "topologies/slim_fly.hpp"

namespace clustersim {
namespace {

Topology build_ft2(const TopologyRequest& r) {
    FatTreeTwoLayerParams p;
    p.fabric = r.fabric;
    p.oversubscription = r.oversubscription;
    p.endpoints = r.endpoints;
    if (r.counts_only) {
        const FatTreeTwoLayerShape s = fat_tree_two_layer_shape(p);
        Topology t;
        t.kind = "ft2";
        t.inventory = fat_tree_two_layer_inventory(s, p.fabric.link_rate.gbps(), 1);
        return t;
    }
    return build_fat_tree_two_layer(p);
}
Topology build_planes(const TopologyRequest& r) {
    return build_single_switch_planes(r, r.nic_rate_gbps);
}

}  // namespace

// clang-format off
const Registry<TopologyKind>& topology_kinds() {
    static const Registry<TopologyKind> kinds({
        {"ft2", "two-layer fat tree (leaf, spine)", &build_ft2, "quantum2", false, false, false, {}, nullptr},
        {"ft3", "three-layer fat tree (leaf, aggregation, core)", &build_fat_tree_three_layer, "quantum2", false, false, false, {}, nullptr},
        {"mpft", "multi-plane fat tree: NIC i of every node on plane i, planes disjoint",
         &build_multi_plane_fat_tree, "quantum2", true, true, false, {}, nullptr},
        {"mrft", "multi-rail fat tree: NIC i on rail-i leaves under shared spines",
         &build_multi_rail_fat_tree, "quantum2", false, true, false, {}, nullptr},
        {"dual-plane", "one switch per plane, every NIC on both planes (2 x 200G)", &build_planes,
         "tomahawk5-200g", true, false, true, {}, nullptr},
        {"shuffle", "one switch per plane, NIC lanes shuffled over the planes", &build_planes,
         "tomahawk5-100g", true, false, true, {}, nullptr},
        {"slimfly", "Slim Fly (MMS graph over GF(q)), diameter 2", &build_slim_fly, "quantum2",
         false, false, false, slim_fly_keys(), &parse_slim_fly_keys},
        {"dragonfly", "Dragonfly: all-to-all groups joined by global links", &build_dragonfly,
         "quantum2", false, false, false, dragonfly_keys(), &parse_dragonfly_keys},
    });
    return kinds;
}
// clang-format on

const TopologyKind* find_topology_kind(std::string_view name) {
    return topology_kinds().find(name);
}

}  // namespace clustersim
