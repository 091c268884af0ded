#pragma once
// Forwarding tables after a fault, as each kind of fabric reacts (docs/faults.md):
//  - `rerouted`: a subnet manager's (or routing protocol's) recomputation on the surviving
//    graph: shortest paths without the dead cables. Where nothing survives, the old next hops
//    stay (their packets are dropped at the dead port, as they are in the real fabric);
//  - `without_dead_ports`: a switch's own reaction (adaptive routing, ECMP member removal):
//    each switch stops choosing its dead outputs where another candidate remains, and nothing
//    upstream changes.
// Both keep the edge-switch numbering, so the running network can swap tables.
#include <cstdint>
#include <span>

#include "models/forwarding/forwarding_tables.hpp"
#include "models/network/port_graph.hpp"

namespace clustersim {

ForwardingTables rerouted(const PortGraph& fabric, const ForwardingTables& healthy,
                          std::span<const std::uint8_t> dead);
ForwardingTables without_dead_ports(const PortGraph& fabric, const ForwardingTables& current,
                                    std::span<const std::uint8_t> dead);

}  // namespace clustersim
