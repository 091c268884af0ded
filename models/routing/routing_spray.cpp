// Packet spraying: every packet picks its own candidate, at random (a hash of the packet's
// message, sequence and the switch's salt: deterministic per seed) or in turn per switch, so
// one flow spreads over every path and arrives out of order (Dixit et al., "On the Impact of
// Packet Spraying in Data Center Networks", INFOCOM 2013).
#include "models/routing/routing_policy.hpp"
#include "sim/random.hpp"

namespace clustersim {

std::uint32_t choose_spray(const RouteChoice& c) {
    const auto n = static_cast<std::uint32_t>(c.candidates.size());
    if (c.params.spray_round_robin) {
        const std::uint32_t i = c.state.next % n;
        c.state.next = i + 1 == n ? 0 : i + 1;
        return c.candidates[i];
    }
    const auto h = static_cast<std::uint32_t>(
        mix64((std::uint64_t{c.packet.message} << 32 | c.packet.sequence) ^ c.state.salt ^
              std::uint64_t{c.packet.entropy} << 17));
    return c.candidates[pick_index(h, n)];
}

}  // namespace clustersim
