#include "models/routing/routing_policy.hpp"

#include <array>

namespace clustersim {

// Each policy lives in its own file (models/routing_NAME.cpp); adding one is a declaration and
// a row here.
std::uint32_t choose_ecmp(const RouteChoice&);
std::uint32_t choose_static(const RouteChoice&);
std::uint32_t choose_adaptive(const RouteChoice&);
std::uint32_t choose_spray(const RouteChoice&);
std::uint32_t choose_flowlet(const RouteChoice&);

namespace {
constexpr std::array kPolicies = {
    RoutingPolicyInfo{"ecmp",
                      "hash of the flow's header fields, salted per switch: one flow, one path",
                      &choose_ecmp},
    RoutingPolicyInfo{"static",
                      "InfiniBand destination-based tables (D-mod-k, as a subnet manager "
                      "programs fat trees): one path per destination, no hash",
                      &choose_static},
    RoutingPolicyInfo{"adaptive",
                      "per packet, the candidate with the least queued bytes (InfiniBand "
                      "adaptive routing, Ethernet dynamic load balancing)",
                      &choose_adaptive},
    RoutingPolicyInfo{"spray", "per packet, a random candidate (or in turn): one flow, all paths",
                      &choose_spray},
    RoutingPolicyInfo{"flowlet",
                      "a new random path after an idle gap of network.flowlet_gap_ns (LetFlow)",
                      &choose_flowlet},
    RoutingPolicyInfo{"valiant",
                      "every packet through a random intermediate switch outside the source's and "
                      "destination's groups, then minimally (Valiant load balancing)",
                      &choose_ecmp, NonMinimal::Always},
    RoutingPolicyInfo{"ugal",
                      "per packet at the first switch, minimal or Valiant, whichever has the "
                      "smaller queue x hops (network.ugal: local or global queues)",
                      &choose_ecmp, NonMinimal::Adaptive},
};
}  // namespace

std::span<const RoutingPolicyInfo> routing_policies() {
    return kPolicies;
}

std::uint32_t find_routing_policy(std::string_view name) {
    for (std::uint32_t i = 0; i < kPolicies.size(); ++i)
        if (kPolicies[i].name == name) return i;
    return kNone;
}

}  // namespace clustersim
