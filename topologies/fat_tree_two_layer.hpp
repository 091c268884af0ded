#pragma once
// Two-layer fat tree (leaf-spine) of any radix with leaf oversubscription down:up. At full size
// it has `radix` leaves and radix/(r+1) spines; smaller sizes keep the radix, build
// ceil(endpoints / down) leaves, and the spines those leaves need with equal parallel links.
#include <cstdint>

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
};

/// The sizes only (no graph), for inventory questions and validation.
FatTreeTwoLayerShape fat_tree_two_layer_shape(const FatTreeTwoLayerParams& p);
Topology build_fat_tree_two_layer(const FatTreeTwoLayerParams& p);

}  // namespace clustersim
