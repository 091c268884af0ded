#pragma once
// Three-layer fat tree (leaf, aggregation, core), k-ary: pods of k/2 leaves and `up`
// aggregation switches, `up` core groups of k/2 cores; at full size with k = 64 and no
// oversubscription, 65,536 endpoints on 5,120 switches (ISCA '25 Table 3). Smaller sizes keep
// the radix and build the pods, and the cores, that the endpoints need.
#include "topologies/topology.hpp"

namespace clustersim {

struct FatTreeThreeLayerShape {
    std::uint32_t down = 0, up = 0;    // leaf endpoint ports / leaf uplinks (= aggs per pod)
    std::uint32_t leaves_per_pod = 0;  // k/2
    std::uint32_t pods = 0, leaves = 0, aggs = 0, cores = 0;
    std::uint32_t core_parallel = 0;  // links from one agg to one core of its group
    std::uint32_t cores_per_group = 0;
    std::uint32_t endpoints = 0, max_endpoints = 0;
    std::uint64_t leaf_agg_links = 0, agg_core_links = 0;
};

FatTreeThreeLayerShape fat_tree_three_layer_shape(const TopologyRequest& r);
Topology build_fat_tree_three_layer(const TopologyRequest& r);

}  // namespace clustersim
