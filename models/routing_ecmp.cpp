// ECMP: a hash of the flow's header fields (constant per flow) salted per switch, so one flow
// keeps one path and different switches hash independently.
#include "models/routing_policy.hpp"
#include "sim/random.hpp"

namespace clustersim {

std::uint32_t choose_ecmp(const RouteChoice& c) {
    const auto h = static_cast<std::uint32_t>(mix64(c.packet.entropy ^ c.switch_salt));
    return c.candidates[(static_cast<std::uint64_t>(h) * c.candidates.size()) >> 32];
}

}  // namespace clustersim
