// Flowlet switching: a flow keeps its path while its packets follow each other closely; after
// an idle gap longer than network.flowlet_gap_ns the next packet starts a new flowlet on a new
// random path, which cannot reorder the flow when the gap exceeds the paths' delay difference
// (Vanini et al., "Let It Flow", NSDI 2017: LetFlow's random re-pick). The table is indexed by
// a hash of the flow, as switch ASICs do; a collision simply shares the entry.
#include "models/routing/routing_policy.hpp"

namespace clustersim {
namespace {

struct FlowletKnobs {
    Time gap;  // idle gap that opens a new flowlet
};

const KeySpec kGap = keys::integer_default(
    "network.flowlet_gap_ns", 1, 1e12, 2000, "assumption: above the paths' delay spread at 400G",
    "flowlet: idle gap after which a flow may take a new path");

std::uint32_t choose(const RouteChoice& c) {
    const std::size_t n = c.candidates.size();
    const std::uint64_t h = mix64(c.packet.entropy ^ c.state.salt);
    Flowlet& f =
        c.state.flowlets[pick_index(static_cast<std::uint32_t>(h), c.state.flowlets.size())];
    const bool idle = f.last_seen == Time::never() || f.entropy != c.packet.entropy ||
                      c.now - f.last_seen > c.params.knobs.get<FlowletKnobs>().gap;
    if (idle) {
        f.entropy = c.packet.entropy;
        f.choice = pick_index(
            static_cast<std::uint32_t>(mix64(h ^ static_cast<std::uint64_t>(c.now.ps()))), n);
    }
    f.last_seen = c.now;
    return c.candidates[f.choice % n];
}

}  // namespace

RoutingPolicyInfo flowlet_policy() {
    return {"flowlet",
            "a new random path after an idle gap of network.flowlet_gap_ns (LetFlow)",
            &choose,
            NonMinimal::Never,
            true,
            {kGap},
            [](const KeyValues& v, RoutingParams& p) {
                p.knobs.set(
                    FlowletKnobs{Time::from_ps(static_cast<std::int64_t>(v.integer(kGap)) * 1000)});
            }};
}

}  // namespace clustersim
