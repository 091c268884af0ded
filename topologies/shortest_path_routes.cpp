#include "topologies/shortest_path_routes.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include <algorithm>
#include <limits>
#include <vector>

namespace clustersim {

ForwardingTables shortest_path_routes(const PortGraph& graph) {
    using SwitchGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    const std::uint32_t n = graph.switch_count();
    SwitchGraph sg(n);
    const auto channels = graph.channels();

    // Edge switches in order of their first endpoint.
    std::vector<std::uint32_t> edge_of(n, kNone);
    std::vector<std::uint32_t> edges;
    for (std::uint32_t e = 0; e < graph.endpoint_count(); ++e) {
        const NodeRef ep{NodeKind::Endpoint, e};
        const std::uint32_t first = graph.first_channel(ep);
        for (std::uint32_t c = first; c < first + graph.channels_of(ep); ++c) {
            const NodeRef to = channels[c].to;
            if (to.kind == NodeKind::Switch && edge_of[to.index] == kNone) {
                edge_of[to.index] = static_cast<std::uint32_t>(edges.size());
                edges.push_back(to.index);
            }
        }
    }
    for (std::uint32_t s = 0; s < n; ++s) {
        const NodeRef sw{NodeKind::Switch, s};
        const std::uint32_t first = graph.first_channel(sw);
        for (std::uint32_t c = first; c < first + graph.channels_of(sw); ++c) {
            const NodeRef to = channels[c].to;
            if (to.kind == NodeKind::Switch && s < to.index) boost::add_edge(s, to.index, sg);
        }
    }

    ForwardingTables tables(n, static_cast<std::uint32_t>(edges.size()));
    for (std::uint32_t s = 0; s < n; ++s)
        if (edge_of[s] != kNone) tables.set_edge_index(s, edge_of[s]);

    constexpr auto kFar = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> dist(n);
    std::vector<std::uint32_t> candidates;
    // Most switches send most destinations the same way (a fat tree's up-set): reuse the set
    // this switch used last before hashing it.
    std::vector<std::uint32_t> last_group(n, kNone);
    for (std::uint32_t d = 0; d < edges.size(); ++d) {
        std::fill(dist.begin(), dist.end(), kFar);
        dist[edges[d]] = 0;
        boost::breadth_first_search(sg, boost::vertex(edges[d], sg),
                                    boost::visitor(boost::make_bfs_visitor(boost::record_distances(
                                        dist.data(), boost::on_tree_edge()))));
        for (std::uint32_t s = 0; s < n; ++s) {
            if (s == edges[d] || dist[s] == kFar) continue;
            candidates.clear();
            const NodeRef sw{NodeKind::Switch, s};
            const std::uint32_t first = graph.first_channel(sw);
            for (std::uint32_t c = first; c < first + graph.channels_of(sw); ++c) {
                const NodeRef to = channels[c].to;
                if (to.kind == NodeKind::Switch && dist[to.index] + 1 == dist[s])
                    candidates.push_back(c);
            }
            std::uint32_t& g = last_group[s];
            if (g == kNone || !std::ranges::equal(tables.group(g), candidates))
                g = tables.intern(candidates);
            tables.set(s, d, g);
        }
    }
    return tables;
}

}  // namespace clustersim
