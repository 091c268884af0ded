#pragma once
// Multi-plane fat tree (MPFT, as deployed for DeepSeek-V3): P independent two-layer fat trees;
// NIC i of every node attaches to plane i. Endpoint e is NIC (e mod P) of node e / P. Traffic
// between planes is forwarded inside the node (NVLink), never through the fabric.
#include "topologies/topology.hpp"

namespace clustersim {

Topology build_multi_plane_fat_tree(const TopologyRequest& r);

}  // namespace clustersim
