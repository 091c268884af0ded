#include "topologies/fault_routes.hpp"

#include <algorithm>
#include <vector>

#include "topologies/shortest_path_routes.hpp"

namespace clustersim {
namespace {

// A table of the same shape whose every (switch, edge) set is `pick(switch, edge)`.
template <class Pick>
ForwardingTables rebuild(const PortGraph& fabric, const ForwardingTables& shape, Pick pick) {
    const std::uint32_t switches = fabric.switch_count();
    ForwardingTables out(switches, shape.edge_count());
    for (std::uint32_t s = 0; s < switches; ++s)
        if (shape.edge_index(s) != kNone) out.set_edge_index(s, shape.edge_index(s));
    std::vector<std::uint32_t> set;
    for (std::uint32_t s = 0; s < switches; ++s)
        for (std::uint32_t e = 0; e < shape.edge_count(); ++e) {
            pick(s, e, set);
            if (!set.empty()) out.set(s, e, out.intern(set));
        }
    return out;
}

}  // namespace

ForwardingTables rerouted(const PortGraph& fabric, const ForwardingTables& healthy,
                          std::span<const std::uint8_t> dead) {
    const ForwardingTables fresh = shortest_path_routes(fabric, dead);
    return rebuild(fabric, healthy, [&](std::uint32_t s, std::uint32_t e, auto& set) {
        const auto now = fresh.candidates(s, e);
        const auto before = healthy.candidates(s, e);
        const auto from = now.empty() ? before : now;
        set.assign(from.begin(), from.end());
    });
}

ForwardingTables without_dead_ports(const PortGraph& fabric, const ForwardingTables& current,
                                    std::span<const std::uint8_t> dead) {
    return rebuild(fabric, current, [&](std::uint32_t s, std::uint32_t e, auto& set) {
        const auto c = current.candidates(s, e);
        set.clear();
        for (std::uint32_t ch : c)
            if (!dead[ch]) set.push_back(ch);
        if (set.empty()) set.assign(c.begin(), c.end());
    });
}

}  // namespace clustersim
