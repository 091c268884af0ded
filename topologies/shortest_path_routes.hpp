#pragma once
// Forwarding state for any port graph: for every switch and every edge switch (one that
// endpoints attach to), all next hops on a shortest path. Computed with Boost.Graph BFS at
// build time only; the result is keyed by edge switch, not by host. `dead` (per channel, may be
// empty) leaves failed cables out; edge switches keep their numbers.
#include <cstdint>
#include <span>

#include "models/forwarding/forwarding_tables.hpp"
#include "models/network/port_graph.hpp"

namespace clustersim {

ForwardingTables shortest_path_routes(const PortGraph& graph,
                                      std::span<const std::uint8_t> dead = {});

}  // namespace clustersim
