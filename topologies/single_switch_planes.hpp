#pragma once
// Pods whose planes are each one big switch, with every NIC on every plane: the single-rail
// dual-plane fabric (each 400G NIC as 2 x 200G ports, one per plane) and the shuffle
// multi-plane fabric (an optical shuffle box sends lane p of every NIC to plane switch p).
// One switch hop between any two NICs of a pod; the pod limit is the switch radix, and a
// larger cluster is several pods (`pods`), each with its own plane switches and nothing
// between them. See
// shared/reference/moe-inference-traffic.md for the wiring these follow.
#include "topologies/topology.hpp"

namespace clustersim {

/// kind "dual-plane" or "shuffle"; `nic_rate_gbps` splits into `planes` equal ports/lanes.
Topology build_single_switch_planes(const TopologyRequest& r, double nic_rate_gbps);

}  // namespace clustersim
