// Sticky adaptive routing: a flow keeps its hashed path, as ECMP would, until that output's
// queue holds more than network.sticky_threshold_bytes; a packet then takes the least loaded
// candidate instead. This is the behaviour of switch adaptive routing that changes a flow's
// port only under congestion (so that an uncongested flow is never reordered), as opposed to
// per-packet adaptive routing, which rebalances every packet.
#include "models/routing/routing_policy.hpp"

namespace clustersim {
namespace {

struct StickyKnobs {
    std::uint64_t threshold_bytes = 0;
};

const KeySpec kThreshold = keys::integer_default(
    "network.sticky_threshold_bytes", 0, 1e12, 65536, "assumption: 16 MTU-size packets",
    "sticky-adaptive: queued bytes on the flow's hashed output beyond which a packet takes the "
    "least loaded candidate");

std::uint32_t choose(const RouteChoice& c) {
    const std::uint32_t hashed = hash_candidate(c, true);
    const std::uint64_t threshold = c.params.knobs.get<StickyKnobs>().threshold_bytes;
    if (c.ports[hashed].queued_bytes <= threshold) return hashed;
    std::uint32_t best = hashed;
    for (const std::uint32_t out : c.candidates)
        if (c.ports[out].queued_bytes < c.ports[best].queued_bytes) best = out;
    return best;
}

}  // namespace

RoutingPolicyInfo sticky_adaptive_policy() {
    return {"sticky-adaptive",
            "a flow keeps its hashed path until that output queues more than "
            "network.sticky_threshold_bytes, then a packet takes the least loaded candidate",
            &choose,
            NonMinimal::Never,
            false,
            {kThreshold},
            [](const KeyValues& v, RoutingParams& p) {
                p.knobs.set(StickyKnobs{v.integer(kThreshold)});
            }};
}

}  // namespace clustersim
