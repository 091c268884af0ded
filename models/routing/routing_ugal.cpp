// UGAL (Singh, PhD thesis 2005): at the first switch, per packet, minimal or Valiant, whichever
// has the smaller queue x hops: the first hop's queues (UGAL-L) or every hop's (UGAL-G, an
// idealised global view). The forwarding layer decides (it walks the paths); among equal
// minimal candidates the flow's salted hash picks, as ECMP does.
#include "models/routing/routing_policy.hpp"

namespace clustersim {
namespace {

const KeySpec kUgal = keys::choice_default(
    "network.ugal", {"local", "global"}, "local",
    "ugal: compare the first hop's queues (UGAL-L) or every hop's (UGAL-G, an idealised global "
    "view)");

}  // namespace

RoutingPolicyInfo ugal_policy() {
    return {"ugal",
            "per packet at the first switch, minimal or Valiant, whichever has the smaller queue "
            "x hops (network.ugal: local or global queues)",
            [](const RouteChoice& c) { return hash_candidate(c, true); },
            NonMinimal::Adaptive,
            false,
            {kUgal},
            [](const KeyValues& v, RoutingParams& p) {
                p.knobs.set(UgalKnobs{v.text(kUgal) == "global"});
            }};
}

}  // namespace clustersim
