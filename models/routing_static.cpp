// Static destination-based routing as an InfiniBand subnet manager programs a fat tree
// (OpenSM's ftree / D-mod-k engines): every switch sends destination LID d up through
// candidate (d / D) mod n, D being the product of the up-port counts at the levels below, so
// that the destinations under one leaf take distinct uplinks and each spine carries exactly one
// destination of every leaf: no two flows of a shift permutation share a link. Going down over
// parallel links, d mod n spreads a leaf's destinations over them. No hashing, no state; the
// same destination always takes the same path. (Zahavi, "D-Mod-K Routing Providing
// Non-Blocking Traffic for Shift Permutations on Real Life Fat Trees", 2010.)
#include "models/routing_policy.hpp"

namespace clustersim {

std::uint32_t choose_static(const RouteChoice& c) {
    const std::uint32_t n = static_cast<std::uint32_t>(c.candidates.size());
    const bool up = c.channel_goes_up[c.candidates[0]] != 0;
    return c.candidates[(up ? c.destination_lid / c.state.dmodk_divisor : c.destination_lid) % n];
}

}  // namespace clustersim
