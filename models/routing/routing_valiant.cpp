// Valiant load balancing (Valiant and Brebner, 1981): every packet goes first to a random
// intermediate switch outside its source's and destination's groups, then minimally on; among
// equal minimal candidates it hashes the flow, salted per switch, as ECMP does. The detour is
// taken in the forwarding layer (models/forwarding/forwarding.cpp), which knows the groups.
#include "models/routing/routing_policy.hpp"

namespace clustersim {

RoutingPolicyInfo valiant_policy() {
    return {"valiant",
            "every packet through a random intermediate switch outside the source's and "
            "destination's groups, then minimally (Valiant load balancing)",
            [](const RouteChoice& c) { return hash_candidate(c, true); },
            NonMinimal::Always,
            false,
            {},
            nullptr};
}

}  // namespace clustersim
