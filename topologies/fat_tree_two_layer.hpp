#pragma once
// Two-layer fat tree (leaf-spine) of any radix with leaf oversubscription down:up. At full size
// it has `radix` leaves and radix/(r+1) spines; smaller sizes keep the radix, build
// ceil(endpoints / down) leaves, and the spines those leaves need with equal parallel links.
// Also the building block of the multi-plane (mpft) and multi-rail (mrft) fabrics.
#include <cstdint>
#include <functional>

#include "topologies/topology.hpp"

namespace clustersim {

struct FatTreeTwoLayerParams {
    FabricParams fabric;
    double oversubscription = 1.0;  // leaf down-ports : up-ports
    std::uint32_t endpoints = 0;    // 0 = the maximum
};

struct FatTreeTwoLayerShape {
    std::uint32_t down = 0;  // endpoint ports per leaf
    std::uint32_t up = 0;    // uplinks per leaf
    std::uint32_t leaves = 0;
    std::uint32_t spines = 0;
    std::uint32_t parallel = 0;  // links between one leaf and one spine
    std::uint32_t endpoints = 0;
    std::uint32_t max_endpoints = 0;
    std::uint64_t switch_links() const {
        return static_cast<std::uint64_t>(leaves) * spines * parallel;
    }
};

/// The sizes only (no graph), for inventory questions and validation. `leaves_needed` overrides
/// ceil(endpoints / down) (rail-aligned leaves may be partly empty).
FatTreeTwoLayerShape fat_tree_two_layer_shape(const FatTreeTwoLayerParams& p,
                                              std::uint32_t leaves_needed = 0);

/// Adds one two-layer fabric to `g`: `endpoint_at(leaf, port)` names the endpoint on that leaf
/// port (kNone for an empty port). Returns the index of its first switch.
std::uint32_t add_fat_tree_two_layer(
    PortGraph& g, const FatTreeTwoLayerShape& s, const FabricParams& f,
    const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& endpoint_at);

/// Bisection of one FT2: (exact?, Gb/s).
std::pair<bool, double> fat_tree_two_layer_bisection(const FatTreeTwoLayerShape& s,
                                                     double rate_gbps);

/// Inventory of `planes` identical FT2s of shape `s` (1 for ft2 and mrft, P for mpft).
Inventory fat_tree_two_layer_inventory(const FatTreeTwoLayerShape& s, double rate_gbps,
                                       std::uint32_t planes);

Topology build_fat_tree_two_layer(const FatTreeTwoLayerParams& p);

}  // namespace clustersim
