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
    if (const TopologyKind* kind = find_topology_kind(r.kind)) {
        if (r.pods > 1 && !kind->pods)
            throw TopologyError("topology.pods",
                                fmt::format("a {} fabric is one connected fabric (expected no "
                                            "pods, or kind dual-plane or shuffle)",
                                            r.kind));
        return kind->build(r);
    }
    throw TopologyError("topology.kind", fmt::format("unknown topology kind '{}'", r.kind));
}

}  // namespace clustersim
