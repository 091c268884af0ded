// Static destination-based routing as an InfiniBand subnet manager programs a fat tree
// (OpenSM's ftree / D-mod-k engines): every switch sends destination LID d up through
// candidate (d / D) mod n, D being the product of the up-port counts at the levels below, so
// that the destinations under one leaf take distinct uplinks and each spine carries exactly one
// destination of every leaf: no two flows of a shift permutation share a link. Going down over
// parallel links (fabrics with fewer pods or leaves than ports), the digit the switch below
// chose its uplink by, (d / D_below) mod n, spreads the destinations over them: the plain
// d mod n would repeat the leaf's own digit, and rail-aligned traffic (NIC j to NIC j) would
// then take one of n parallel links. No hashing, no state; the same destination always takes
// the same path. (Zahavi, "D-Mod-K Routing Providing
// Non-Blocking Traffic for Shift Permutations on Real Life Fat Trees", 2010.)
#include "models/routing/routing_policy.hpp"

namespace clustersim {
namespace {

std::uint32_t choose(const RouteChoice& c) {
    const std::uint32_t n = static_cast<std::uint32_t>(c.candidates.size());
    const bool up = c.channel_goes_up[c.candidates[0]] != 0;
    const std::uint32_t divisor = up ? c.state.dmodk_divisor : c.state.dmodk_down_divisor;
    return c.candidates[(c.destination_lid / divisor) % n];
}

}  // namespace

RoutingPolicyInfo static_policy() {
    return {"static",
            "InfiniBand destination-based tables (D-mod-k, as a subnet manager programs fat "
            "trees): one path per destination, no hash",
            &choose,
            NonMinimal::Never,
            false,
            {},
            nullptr,
            true};
}

}  // namespace clustersim
