#pragma once
// Multi-rail fat tree (MRFT, rail-optimised): one two-layer fat tree whose leaves are rail
// aligned, NIC i of every node on a rail-i leaf; the spines join all rails. The single-plane
// comparison for MPFT (ISCA '25 Table 4). Endpoint e is NIC (e mod R) of node e / R.
#include "topologies/topology.hpp"

namespace clustersim {

Topology build_multi_rail_fat_tree(const TopologyRequest& r);

}  // namespace clustersim
