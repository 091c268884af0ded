#pragma once
// Lossless credits that can never run out. A channel into a NIC or a GPU's hub whose packets
// all leave by ports that never block, and that those ports drain faster than their inputs can
// fill, holds at most what its own rate puts on the wire over one credit loop; where its buffer
// is larger than that (with two packets to spare) its credits never hold a packet back, so the
// port need not keep them (Fabric::set_non_binding): the same departures, without writing the
// upstream port's credit line for every packet. Proved per channel before the run, from rates,
// delays, buffers and the node's forwarding; the run must be fault-free (faults change rates,
// routes and sinks) and have no message from a GPU to itself.
#include <cstdint>
#include <span>
#include <vector>

#include "models/dag/workload.hpp"
#include "models/network/network_params.hpp"
#include "models/network/node_layout.hpp"
#include "models/network/port_graph.hpp"

namespace clustersim {

/// The longest a packet can wait at egress `e` of a switch before it starts (network calculus:
/// a work-conserving port never blocked, k inputs of total rate at most its own, each at most
/// one packet ahead of its rate, leaves at most k packets before a new one, plus one for the
/// order of same-picosecond arrivals), or Time::never() when its inputs can outrun it.
Time worst_wait(const PortGraph& graph, std::uint32_t e, std::uint32_t largest_wire_bytes,
                std::uint32_t smallest_wire_bytes);

/// Channels, ascending, whose credits cannot bind: NIC -> hub (its packets leave to the GPU, a
/// sink) and fabric -> NIC (its packets leave over such NIC -> hub channels). Empty without a
/// node model, in lossy mode, or when a message goes from a GPU to itself.
std::vector<std::uint32_t> non_binding_channels(const PortGraph& graph, const NodeLayout& layout,
                                                const NetworkParams& params,
                                                std::span<const Message> messages);

}  // namespace clustersim
