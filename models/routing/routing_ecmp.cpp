// ECMP: a hash of the flow's header fields (constant per flow: src, dst and the queue pair, as
// the RoCEv2 UDP source port carries it), salted per switch so that tiers hash independently.
// Unsalted (network.ecmp_hash: unsalted), every switch computes the same function and a tier
// only sees the flows the tier below already sent its way: hash polarisation.
#include "models/routing/routing_policy.hpp"

namespace clustersim {
namespace {

struct EcmpKnobs {
    bool salted = true;
};

const KeySpec kHash = keys::choice_default(
    "network.ecmp_hash", {"salted", "unsalted"}, "salted",
    "ecmp: a hash salt per switch, or one hash everywhere (which polarises across tiers)");

std::uint32_t choose(const RouteChoice& c) {
    return hash_candidate(c, c.params.knobs.get<EcmpKnobs>().salted);
}

}  // namespace

RoutingPolicyInfo ecmp_policy() {
    return {"ecmp",
            "hash of the flow's header fields, salted per switch: one flow, one path",
            &choose,
            NonMinimal::Never,
            false,
            {kHash},
            [](const KeyValues& v, RoutingParams& p) {
                p.knobs.set(EcmpKnobs{v.text(kHash) == "salted"});
            },
            true};
}

}  // namespace clustersim
