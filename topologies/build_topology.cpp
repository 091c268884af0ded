#include <fmt/format.h>

#include "topologies/topology_kinds.hpp"

namespace clustersim {

void check_buildable(std::uint64_t endpoints, const std::string& key, const std::string& what) {
    if (endpoints > kMaxBuiltEndpoints)
        throw TopologyError(key,
                            fmt::format("{} would have {} endpoints, more than the {} "
                                        "clustersim builds (expected a smaller radix, or "
                                        "topology.endpoints at most {})",
                                        what, endpoints, kMaxBuiltEndpoints, kMaxBuiltEndpoints));
}

Topology build_topology(const TopologyRequest& r) {
    if (const TopologyKind* kind = find_topology_kind(r.kind)) return kind->build(r);
    throw TopologyError("topology.kind", fmt::format("unknown topology kind '{}'", r.kind));
}

}  // namespace clustersim
