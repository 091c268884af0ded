#pragma once
// How a network splits into logical processes, the units a parallel run schedules: a fabric
// switch with its egress ports and the links that arrive at it; a node with its GPUs, hubs,
// scale-up switch and NICs (or, without a node model, a bare endpoint). Every event names the
// process that handles it, and events at one time run in (source process, sequence) order, so
// the serial and the parallel engine agree. One more process, the simulator's observer, sets
// the run up and handles what acts on the whole network (samplers, faults).
#include <cstdint>
#include <vector>

#include "models/network/node_layout.hpp"
#include "models/network/port_graph.hpp"

namespace clustersim {

struct LogicalProcesses {
    std::uint32_t count = 0;
    std::vector<std::uint32_t> of_switch;    // per switch of the port graph
    std::vector<std::uint32_t> of_endpoint;  // per endpoint
    std::uint32_t of(NodeRef n) const {
        return n.kind == NodeKind::Switch ? of_switch[n.index] : of_endpoint[n.index];
    }
    /// Per process: the simulator's counters (events issued, fingerprint); run estimates.
    static constexpr std::uint64_t kBytesPerProcess = 2 * sizeof(std::uint64_t);
};

/// Fabric switches first (process = switch index), then nodes in order, or endpoints in order
/// when `layout` is null.
LogicalProcesses logical_processes(const PortGraph& graph, const NodeLayout* layout);

}  // namespace clustersim
