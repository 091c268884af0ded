// Flowlet switching: a flow keeps its path while its packets follow each other closely; after
// an idle gap longer than network.flowlet_gap_ns the next packet starts a new flowlet on a new
// random path, which cannot reorder the flow when the gap exceeds the paths' delay difference
// (Vanini et al., "Let It Flow", NSDI 2017: LetFlow's random re-pick). The table is indexed by
// a hash of the flow, as switch ASICs do; a collision simply shares the entry.
#include "models/routing/routing_policy.hpp"
#include "sim/random.hpp"

namespace clustersim {

std::uint32_t choose_flowlet(const RouteChoice& c) {
    const std::size_t n = c.candidates.size();
    const std::uint64_t h = mix64(c.packet.entropy ^ c.state.salt);
    Flowlet& f =
        c.state.flowlets[pick_index(static_cast<std::uint32_t>(h), c.state.flowlets.size())];
    const bool idle = f.last_seen == Time::never() || f.entropy != c.packet.entropy ||
                      c.now - f.last_seen > c.params.flowlet_gap;
    if (idle) {
        f.entropy = c.packet.entropy;
        f.choice = pick_index(
            static_cast<std::uint32_t>(mix64(h ^ static_cast<std::uint64_t>(c.now.ps()))), n);
    }
    f.last_seen = c.now;
    return c.candidates[f.choice % n];
}

}  // namespace clustersim
