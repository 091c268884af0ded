#include "models/network/port_graph.hpp"

#include <stdexcept>

namespace clustersim {

void PortGraph::finalize() {
    const std::size_t nodes = vertex_count();
    std::vector<std::uint32_t> degree(nodes + 1, 0);
    for (const Cable& c : cables_) {
        if (c.a.kind == NodeKind::Endpoint && c.a.index >= endpoint_count_)
            throw std::logic_error("cable names an endpoint beyond the endpoint count");
        if (c.b.kind == NodeKind::Endpoint && c.b.index >= endpoint_count_)
            throw std::logic_error("cable names an endpoint beyond the endpoint count");
        ++degree[vertex(c.a) + 1];
        ++degree[vertex(c.b) + 1];
    }
    offsets_.assign(nodes + 1, 0);
    for (std::size_t i = 1; i <= nodes; ++i) offsets_[i] = offsets_[i - 1] + degree[i];
    channels_.assign(offsets_[nodes], Channel{});
    std::vector<std::uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
    for (const Cable& c : cables_) {
        const std::uint32_t ab = fill[vertex(c.a)]++;
        const std::uint32_t ba = fill[vertex(c.b)]++;
        channels_[ab] = Channel{c.a, c.b, ba, c.rate, c.propagation};
        channels_[ba] = Channel{c.b, c.a, ab, c.rate, c.propagation};
    }
}

}  // namespace clustersim
