#pragma once
// The topology kinds this build has: one table entry each (name, help, builder and the facts
// the rest of the program needs about the kind). Adding a kind is a builder in its own file
// and a row in topologies/topology_kinds.cpp; the scenario schema and `check --schema` read the
// names from here.
#include <span>
#include <string_view>

#include "topologies/topology.hpp"

namespace clustersim {

struct TopologyKind {
    std::string_view name;
    std::string_view help;
    Topology (*build)(const TopologyRequest&);
    std::string_view default_switch;  // switch preset when topology.switch is not set
    bool needs_node_model = false;    // traffic between planes or ports goes through the node
    bool pxn = false;                 // cross-plane traffic is forwarded inside the source node
};

std::span<const TopologyKind> topology_kinds();
/// The kind named `name`, or null.
const TopologyKind* find_topology_kind(std::string_view name);

}  // namespace clustersim
