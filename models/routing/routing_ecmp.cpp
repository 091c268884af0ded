// ECMP: a hash of the flow's header fields (constant per flow: src, dst and the queue pair, as
// the RoCEv2 UDP source port carries it), salted per switch so that tiers hash independently.
// Unsalted (network.ecmp_hash: unsalted), every switch computes the same function and a tier
// only sees the flows the tier below already sent its way: hash polarisation.
#include "models/routing/routing_policy.hpp"
#include "sim/random.hpp"

namespace clustersim {

std::uint32_t choose_ecmp(const RouteChoice& c) {
    const std::uint64_t salt = c.params.ecmp_salted ? c.state.salt : 0;
    const auto h = static_cast<std::uint32_t>(mix64(c.packet.entropy ^ salt));
    return c.candidates[pick_index(h, c.candidates.size())];
}

}  // namespace clustersim
