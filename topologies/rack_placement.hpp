#pragma once
// Which cables stay inside a rack: endpoints fill racks in index order (node by node); a switch
// is top-of-rack when every endpoint it serves is in one rack. Cables within a rack are copper
// (DAC); every other cable keeps its optical kind.
#include <cstdint>

#include "topologies/topology.hpp"

namespace clustersim {

struct RackCabling {
    std::uint64_t endpoint_links_in_rack = 0;  // endpoint to its top-of-rack switch
    std::uint64_t switch_links_in_rack = 0;    // two top-of-rack switches of the same rack
    std::uint32_t top_of_rack_switches = 0;
};

/// endpoints_per_rack = 0 places nothing (every cable optical).
RackCabling place_in_racks(const PortGraph& graph, std::uint32_t endpoints_per_rack);

/// Moves the in-rack cables of `inv` from endpoint-aoc / switch-optics to endpoint-dac /
/// switch-dac; other kinds (breakout, shuffle fibre) stay optical. Drops the transceivers saved.
void apply_rack_cabling(Inventory& inv, const RackCabling& racks);

/// Both steps, recording the placement in the topology's inventory.
void place_topology_in_racks(Topology& t, std::uint32_t endpoints_per_rack);

}  // namespace clustersim
