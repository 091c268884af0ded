#pragma once
// Routing policies: how a switch picks one output among the candidates its forwarding table
// gives for a destination. One table entry per policy (name, help, chooser); a chooser sees
// what a real switch sees -- the packet's header fields, the switch's own salt and its own
// egress queues. Called only where there is a choice (more than one candidate).
#include <cstdint>
#include <span>
#include <string_view>

#include "models/egress_port.hpp"
#include "models/packet.hpp"

namespace clustersim {

struct RouteChoice {
    std::span<const std::uint32_t> candidates;  // output channels, at least two
    const Packet& packet;
    std::uint64_t switch_salt;          // per switch, from the seed
    std::span<const EgressPort> ports;  // every egress port, indexed by channel
};

using ChooseOutput = std::uint32_t (*)(const RouteChoice&);

struct RoutingPolicyInfo {
    std::string_view name;
    std::string_view help;
    ChooseOutput choose;
};

/// Every routing policy this build has, in the order `check --schema` lists them.
std::span<const RoutingPolicyInfo> routing_policies();
/// Index into routing_policies(), or kNone.
std::uint32_t find_routing_policy(std::string_view name);

}  // namespace clustersim
