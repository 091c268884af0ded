#pragma once
// Dragonfly (Kim et al., ISCA '08): g groups of a switches, all-to-all inside a group, h global
// links per switch, p endpoints per switch. Defaults follow the balanced rule a = 2p = 2h with
// p + (a - 1) + h <= radix (radix 64: a = 32, p = h = 16, up to g = a h + 1 = 513 groups).
// Every group pair gets one global link; spare global ports are used by rings of extra links.
#include <vector>

#include "sim/input/key_spec.hpp"
#include "topologies/topology.hpp"

namespace clustersim {

Topology build_dragonfly(const TopologyRequest& r);
/// Its row's keys (topology.group_switches, endpoints_per_switch, global_links, groups) and
/// their reader.
std::vector<KeySpec> dragonfly_keys();
void parse_dragonfly_keys(const KeyValues& v, TopologyRequest& r);

}  // namespace clustersim
