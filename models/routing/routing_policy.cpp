#include "models/routing/routing_policy.hpp"

namespace clustersim {

// Each policy's row is defined in its own file (models/routing/routing_NAME.cpp): adding a
// policy is that file and one line here.
RoutingPolicyInfo ecmp_policy();
RoutingPolicyInfo static_policy();
RoutingPolicyInfo adaptive_policy();
RoutingPolicyInfo spray_policy();
RoutingPolicyInfo flowlet_policy();
RoutingPolicyInfo valiant_policy();
RoutingPolicyInfo ugal_policy();
RoutingPolicyInfo sticky_adaptive_policy();

const Registry<RoutingPolicyInfo>& routing_policies() {
    static const Registry<RoutingPolicyInfo> policies({
        ecmp_policy(),
        static_policy(),
        adaptive_policy(),
        spray_policy(),
        flowlet_policy(),
        valiant_policy(),
        ugal_policy(),
        sticky_adaptive_policy(),
    });
    return policies;
}

RoutingKnobs routing_default_knobs(std::uint32_t policy) {
    RoutingParams p{policy, RoutingKnobs{}};
    if (const auto& row = routing_policies()[policy]; row.parse) row.parse(KeyValues{}, p);
    return p.knobs;
}

}  // namespace clustersim
