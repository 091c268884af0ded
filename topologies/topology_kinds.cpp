#include "topologies/topology_kinds.hpp"

#include <array>

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

// clang-format off
constexpr std::array kKinds = {
    TopologyKind{"ft2", "two-layer fat tree (leaf, spine)", &build_ft2, "quantum2"},
    TopologyKind{"ft3", "three-layer fat tree (leaf, aggregation, core)", &build_fat_tree_three_layer, "quantum2"},
    TopologyKind{"mpft", "multi-plane fat tree: NIC i of every node on plane i, planes disjoint",
                 &build_multi_plane_fat_tree, "quantum2", true, true},
    TopologyKind{"mrft", "multi-rail fat tree: NIC i on rail-i leaves under shared spines",
                 &build_multi_rail_fat_tree, "quantum2", false, true},
    TopologyKind{"dual-plane", "one switch per plane, every NIC on both planes (2 x 200G)",
                 &build_planes, "tomahawk5-200g", true},
    TopologyKind{"shuffle", "one switch per plane, NIC lanes shuffled over the planes",
                 &build_planes, "tomahawk5-100g", true},
    TopologyKind{"slimfly", "Slim Fly (MMS graph over GF(q)), diameter 2", &build_slim_fly, "quantum2"},
    TopologyKind{"dragonfly", "Dragonfly: all-to-all groups joined by global links", &build_dragonfly, "quantum2"},
};
// clang-format on

}  // namespace

std::span<const TopologyKind> topology_kinds() {
    return kKinds;
}

const TopologyKind* find_topology_kind(std::string_view name) {
    for (const auto& k : kKinds)
        if (k.name == name) return &k;
    return nullptr;
}

}  // namespace clustersim
