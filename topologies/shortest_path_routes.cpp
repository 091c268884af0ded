#include "topologies/shortest_path_routes.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

namespace clustersim {

ForwardingTables shortest_path_routes(const PortGraph& graph, std::span<const std::uint8_t> dead) {
    auto alive = [&](std::uint32_t c) { return dead.empty() || !dead[c]; };
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
            if (to.kind == NodeKind::Switch && s < to.index && alive(c))
                boost::add_edge(s, to.index, sg);
        }
    }

    ForwardingTables tables(n, static_cast<std::uint32_t>(edges.size()));
    for (std::uint32_t s = 0; s < n; ++s)
        if (edge_of[s] != kNone) tables.set_edge_index(s, edge_of[s]);

    // Dragonfly groups: a global link (between groups) costs more than any two local ones, so
    // that minimal routes cross one global link -- local, global, local -- as Dragonfly
    // routers route minimally, never global-global through a third group even where that
    // has fewer hops. Without groups every link costs 1 (plain breadth-first search).
    const auto switches = graph.switches();
    auto cost = [&](std::uint32_t a, std::uint32_t b) -> std::uint32_t {
        const std::uint32_t ga = switches[a].group, gb = switches[b].group;
        return ga != kNone && gb != kNone && ga != gb ? 3 : 1;
    };
    bool weighted = false;
    for (std::uint32_t s = 0; s < n && !weighted; ++s) weighted = switches[s].group != kNone;
    constexpr auto kFar = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> dist(n);
    std::vector<std::uint32_t> candidates;
    // Dijkstra over the switch graph for the weighted case (costs 1 and 3, a few thousand
    // switches: a binary heap is plenty).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> heap;
    auto distances_to = [&](std::uint32_t target) {
        std::fill(dist.begin(), dist.end(), kFar);
        dist[target] = 0;
        if (!weighted) {
            boost::breadth_first_search(
                sg, boost::vertex(target, sg),
                boost::visitor(boost::make_bfs_visitor(
                    boost::record_distances(dist.data(), boost::on_tree_edge()))));
            return;
        }
        heap.assign(1, {0, target});
        const auto greater = std::greater<>();
        while (!heap.empty()) {
            std::ranges::pop_heap(heap, greater);
            const auto [d, s] = heap.back();
            heap.pop_back();
            if (d > dist[s]) continue;
            const NodeRef sw{NodeKind::Switch, s};
            const std::uint32_t first = graph.first_channel(sw);
            for (std::uint32_t c = first; c < first + graph.channels_of(sw); ++c) {
                const NodeRef to = channels[c].to;
                if (to.kind != NodeKind::Switch || !alive(c)) continue;
                const std::uint32_t nd = d + cost(s, to.index);
                if (nd < dist[to.index]) {
                    dist[to.index] = nd;
                    heap.emplace_back(nd, to.index);
                    std::ranges::push_heap(heap, greater);
                }
            }
        }
    };
    // Most switches send most destinations the same way (a fat tree's up-set): reuse the set
    // this switch used last before hashing it.
    std::vector<std::uint32_t> last_group(n, kNone);
    for (std::uint32_t d = 0; d < edges.size(); ++d) {
        distances_to(edges[d]);
        for (std::uint32_t s = 0; s < n; ++s) {
            if (s == edges[d] || dist[s] == kFar) continue;
            candidates.clear();
            const NodeRef sw{NodeKind::Switch, s};
            const std::uint32_t first = graph.first_channel(sw);
            for (std::uint32_t c = first; c < first + graph.channels_of(sw); ++c) {
                const NodeRef to = channels[c].to;
                if (to.kind == NodeKind::Switch && alive(c) && dist[to.index] != kFar &&
                    dist[to.index] + cost(s, to.index) == dist[s])
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
