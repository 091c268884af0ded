// Packet spraying: every packet picks its own candidate, at random (a hash of the packet's
// message, sequence and the switch's salt: deterministic per seed) or in turn per switch, so
// one flow spreads over every path and arrives out of order (Dixit et al., "On the Impact of
// Packet Spraying in Data Center Networks", INFOCOM 2013).
#include "models/routing/routing_policy.hpp"

namespace clustersim {
namespace {

struct SprayKnobs {
    bool round_robin = false;  // in turn (else a random candidate per packet)
};

const KeySpec kSpray = keys::choice_default(
    "network.spray", {"random", "round-robin"}, "random",
    "spray: a random candidate per packet, or the candidates in turn per switch");

std::uint32_t choose(const RouteChoice& c) {
    const auto n = static_cast<std::uint32_t>(c.candidates.size());
    if (c.params.knobs.get<SprayKnobs>().round_robin) {
        const std::uint32_t i = c.state.next % n;
        c.state.next = i + 1 == n ? 0 : i + 1;
        return c.candidates[i];
    }
    const auto h = static_cast<std::uint32_t>(
        mix64((std::uint64_t{c.packet.message} << 32 | c.packet.sequence) ^ c.state.salt ^
              std::uint64_t{c.packet.entropy} << 17));
    return c.candidates[pick_index(h, n)];
}

}  // namespace

RoutingPolicyInfo spray_policy() {
    return {"spray",
            "per packet, a random candidate (or in turn): one flow, all paths",
            &choose,
            NonMinimal::Never,
            false,
            {kSpray},
            [](const KeyValues& v, RoutingParams& p) {
                p.knobs.set(SprayKnobs{v.text(kSpray) == "round-robin"});
            }};
}

}  // namespace clustersim
