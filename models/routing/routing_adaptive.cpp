// Adaptive routing: per packet, the candidate whose egress queue holds the fewest bytes (ties
// broken by a per-packet hash, so equal ports share the load), as InfiniBand adaptive routing
// and Ethernet's dynamic load balancing choose by local port load. With two choices
// (network.adaptive: two-choices) the less loaded of two random candidates, the cheaper
// hardware variant (Mitzenmacher's power of two choices).
#include "models/routing/routing_policy.hpp"

namespace clustersim {
namespace {

struct AdaptiveKnobs {
    bool two_choices = false;  // the less loaded of two random candidates
};

const KeySpec kAdaptive = keys::choice_default(
    "network.adaptive", {"least-loaded", "two-choices"}, "least-loaded",
    "adaptive: the candidate with the least queued bytes, or the less loaded of two random ones");

std::uint32_t choose(const RouteChoice& c) {
    const std::size_t n = c.candidates.size();
    const std::uint64_t h =
        mix64((std::uint64_t{c.packet.message} << 32 | c.packet.sequence) ^ c.state.salt);
    auto load = [&](std::uint32_t i) { return c.ports[c.candidates[i]].queued_bytes; };
    if (c.params.knobs.get<AdaptiveKnobs>().two_choices) {
        const std::uint32_t a = pick_index(static_cast<std::uint32_t>(h), n);
        const std::uint32_t b = pick_index(static_cast<std::uint32_t>(h >> 32), n);
        return c.candidates[load(b) < load(a) ? b : a];
    }
    // Scan from a per-packet starting point so that ties rotate instead of favouring port 0.
    const std::uint32_t start = pick_index(static_cast<std::uint32_t>(h), n);
    std::uint32_t best = start;
    for (std::size_t k = 1; k < n; ++k) {
        const auto i = static_cast<std::uint32_t>((start + k) % n);
        if (load(i) < load(best)) best = i;
    }
    return c.candidates[best];
}

}  // namespace

RoutingPolicyInfo adaptive_policy() {
    return {"adaptive",
            "per packet, the candidate with the least queued bytes (InfiniBand adaptive routing, "
            "Ethernet dynamic load balancing)",
            &choose,
            NonMinimal::Never,
            false,
            {kAdaptive},
            [](const KeyValues& v, RoutingParams& p) {
                p.knobs.set(AdaptiveKnobs{v.text(kAdaptive) == "two-choices"});
            }};
}

}  // namespace clustersim
