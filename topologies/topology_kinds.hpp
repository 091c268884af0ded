#pragma once
// The topology kinds this build has: one row each (name, help, builder, the facts the rest of
// the program needs about the kind, and the kind's own keys with the function that reads them
// into its TopologyRequest). Adding a kind is a builder in its own file and a row in
// topologies/topology_kinds.cpp; the scenario schema and `check --schema` take names and keys
// from here. A kind whose knobs have no field in TopologyRequest keeps them in its `knobs`.
#include <string_view>
#include <vector>

#include "sim/input/key_spec.hpp"
#include "sim/registry.hpp"

#include "topologies/topology.hpp"

namespace clustersim {

struct TopologyKind {
    std::string_view name;
    std::string_view help;
    Topology (*build)(const TopologyRequest&);
    std::string_view default_switch;  // switch preset when topology.switch is not set
    bool needs_node_model = false;    // traffic between planes or ports goes through the node
    bool pxn = false;                 // cross-plane traffic is forwarded inside the source node
    bool pods = false;                // may be several pods with nothing between them
    std::vector<KeySpec> keys;        // topology.* keys of this kind only
    void (*parse)(const KeyValues&, TopologyRequest&) = nullptr;
};

const Registry<TopologyKind>& topology_kinds();
/// The kind named `name`, or null.
const TopologyKind* find_topology_kind(std::string_view name);

}  // namespace clustersim
