#pragma once
// The events each logical process can expect to handle, from the workload before it runs, so
// that partitions balance work rather than wiring: a packet costs its process about two events
// at every graph node it passes (arrival, then service), so a process's load is the packets
// through it times the nodes it forwards them across. A node's share comes from its own GPUs'
// packets and the hops between a GPU and the node's way out (or in); the fabric's share from
// the switches between the two nodes' attachment switches, the first and last charged to those,
// the ones between spread over the other fabric switches by their channels (a fat tree's tiers
// carry equal per-switch loads under spread traffic). Stated simplifications: one path per
// message at the shortest hop count, so forwarding across planes inside a node, adaptive
// detours and control packets are not counted; a message's packets are its bytes over the MTU;
// a message between two GPUs of one node takes the in-node path even when the step sends it
// through the NIC; nodes are placed by the set of switches all their NICs reach, so two nodes
// on the same rails count as one switch apart whichever rails their GPUs use.
#include <cstdint>
#include <vector>

#include "models/dag/workload.hpp"
#include "models/network/logical_processes.hpp"
#include "models/network/port_graph.hpp"

namespace clustersim {

/// Per logical process of `lp` (not the observer): expected events, in packet-node visits x 2.
std::vector<std::uint64_t> expected_process_load(const PortGraph& graph, const LogicalProcesses& lp,
                                                 const Workload& workload, std::uint32_t mtu_bytes);

}  // namespace clustersim
