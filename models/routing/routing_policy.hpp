#pragma once
// Routing policies: how a switch picks one output among the candidates its forwarding table
// gives for a destination. One table entry per policy (name, help, chooser); a chooser sees
// what a real switch sees -- the packet's header fields, the switch's own salt, state and
// egress queues, and the clock. Called only where there is a choice (more than one candidate).
#include <cstdint>
#include <span>
#include <string_view>

#include "models/fabric/egress_port.hpp"
#include "models/network/packet.hpp"
#include "sim/time.hpp"

namespace clustersim {

/// Knobs of the routing policies (network.* keys), shared by every switch.
struct RoutingParams {
    std::uint32_t policy = 0;  // index into routing_policies()
    bool ecmp_salted = true;   // ecmp: a salt per switch (false: one hash everywhere, which
                               // polarises: a tier sees only flows the tier below sent its way)
    bool spray_round_robin = false;          // spray: in turn (else a random candidate per packet)
    Time flowlet_gap = Time::from_ns(2000);  // flowlet: idle gap that opens a new flowlet
    bool adaptive_two_choices = false;       // adaptive: the less loaded of two random candidates
    bool ugal_global = false;  // ugal: queues along the whole path (else the first hop's)
};

/// One entry of a switch's flowlet table (flowlet routing).
struct Flowlet {
    Time last_seen = Time::never();
    std::uint32_t entropy = 0;  // the flow that owns the entry
    std::uint32_t choice = 0;   // candidate index in use
};

/// What a switch keeps for its policy.
struct SwitchRouteState {
    std::uint64_t salt = 0;                // per switch, from the seed
    std::uint32_t dmodk_divisor = 1;       // static: destinations per choice at the levels below
    std::uint32_t dmodk_down_divisor = 1;  // static: the level below's divisor (parallel links)
    std::uint32_t next = 0;                // spray round-robin position
    std::span<Flowlet> flowlets;           // flowlet table (flowlet policy only)
};

struct RouteChoice {
    std::span<const std::uint32_t> candidates;  // output channels, at least two
    const Packet& packet;
    std::uint32_t destination_lid;  // the destination's address in its plane (static)
    SwitchRouteState& state;
    std::span<const EgressPort> ports;  // every egress port, indexed by channel
    Time now;
    const RoutingParams& params;
    std::span<const std::uint8_t> channel_goes_up;  // per channel: toward a higher fabric level
};

using ChooseOutput = std::uint32_t (*)(const RouteChoice&);

/// Whether a policy may leave the minimal routes (through an intermediate switch).
enum class NonMinimal : std::uint8_t { Never, Always, Adaptive };

struct RoutingPolicyInfo {
    std::string_view name;
    std::string_view help;
    ChooseOutput choose;  // among minimal candidates
    NonMinimal non_minimal = NonMinimal::Never;
};

/// Every routing policy this build has, in the order `check --schema` lists them.
std::span<const RoutingPolicyInfo> routing_policies();
/// Index into routing_policies(), or kNone.
std::uint32_t find_routing_policy(std::string_view name);

/// A candidate index in [0, n) from 32 random bits (multiply-shift, no modulo bias to speak of).
inline std::uint32_t pick_index(std::uint32_t bits, std::size_t n) {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(bits) * n) >> 32);
}

}  // namespace clustersim
