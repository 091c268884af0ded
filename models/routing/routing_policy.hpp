#pragma once
// Routing policies: how a switch picks one output among the candidates its forwarding table
// gives for a destination. One row per policy (name, help, chooser, its keys); a chooser sees
// what a real switch sees -- the packet's header fields, the switch's own salt, state and
// egress queues, and the clock. Called only where there is a choice (more than one candidate).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "models/fabric/egress_port.hpp"
#include "models/network/packet.hpp"
#include "sim/inline_knobs.hpp"
#include "sim/input/key_spec.hpp"
#include "sim/random.hpp"
#include "sim/registry.hpp"
#include "sim/time.hpp"

namespace clustersim {

/// The policy a run uses and its own knobs, which its row parses from its keys (a struct of
/// the policy's, trivially copyable, read back by its chooser with knobs.get<T>()).
using RoutingKnobs = InlineKnobs<16>;
/// A policy's knobs at their declared defaults (as a scenario that sets none of its keys).
RoutingKnobs routing_default_knobs(std::uint32_t policy);

struct RoutingParams {
    std::uint32_t policy = 0;  // index into routing_policies(): ECMP unless set
    RoutingKnobs knobs = routing_default_knobs(0);
    /// `policy` with its knobs at their defaults.
    static RoutingParams of(std::uint32_t policy) {
        return {policy, routing_default_knobs(policy)};
    }
};

/// UGAL's knob: the forwarding layer reads it where it decides between minimal and Valiant.
struct UgalKnobs {
    bool global = false;  // queues along the whole path (else the first hop's)
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

/// One row of the routing family: what `check --schema` shows, the chooser, and the policy's own
/// keys (network.*) with the function that reads them into RoutingParams::knobs.
struct RoutingPolicyInfo {
    std::string_view name;
    std::string_view help;
    ChooseOutput choose;  // among minimal candidates
    NonMinimal non_minimal = NonMinimal::Never;
    bool flowlet_table = false;  // each fabric switch keeps a flowlet table
    std::vector<KeySpec> keys;
    void (*parse)(const KeyValues&, RoutingParams&) = nullptr;
    // Its choice is a function of the packet's header fields and the switch's fixed salt and
    // divisors alone (static, ECMP): asked again, it answers the same, so the fault accounting
    // can ask what the healthy tables would have chosen.
    bool pure = false;
};

/// Every routing policy this build has, in the order `check --schema` lists them. Each lives in
/// its own file (models/routing/routing_NAME.cpp) that defines its row; the table in
/// routing_policy.cpp lists the rows.
const Registry<RoutingPolicyInfo>& routing_policies();

/// A salted hash of the flow's header fields picks a candidate: ECMP's choice, and the minimal
/// choice of the non-minimal policies.
inline std::uint32_t hash_candidate(const RouteChoice& c, bool salted);

/// A candidate index in [0, n) from 32 random bits (multiply-shift, no modulo bias to speak of).
inline std::uint32_t pick_index(std::uint32_t bits, std::size_t n) {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(bits) * n) >> 32);
}

inline std::uint32_t hash_candidate(const RouteChoice& c, bool salted) {
    const std::uint64_t salt = salted ? c.state.salt : 0;
    const auto h = static_cast<std::uint32_t>(mix64(c.packet.entropy ^ salt));
    return c.candidates[pick_index(h, c.candidates.size())];
}

}  // namespace clustersim
