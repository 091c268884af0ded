#include "models/routing_policy.hpp"

#include <array>

namespace clustersim {

// Each policy lives in its own file (models/routing_NAME.cpp); adding one is a declaration and
// a row here.
std::uint32_t choose_ecmp(const RouteChoice&);

namespace {
constexpr std::array kPolicies = {
    RoutingPolicyInfo{"ecmp",
                      "hash of the flow's header fields, salted per switch: one flow, one path",
                      &choose_ecmp},
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
