#include "models/network/logical_processes.hpp"

namespace clustersim {

LogicalProcesses logical_processes(const PortGraph& graph, const NodeLayout* layout) {
    LogicalProcesses lp;
    const std::uint32_t switches = graph.switch_count();
    const std::uint32_t fabric = layout ? layout->fabric_switches : switches;
    lp.of_switch.resize(switches);
    for (std::uint32_t s = 0; s < fabric; ++s) lp.of_switch[s] = s;
    lp.of_endpoint.resize(graph.endpoint_count());
    if (!layout) {
        for (std::uint32_t e = 0; e < graph.endpoint_count(); ++e) lp.of_endpoint[e] = fabric + e;
        lp.count = fabric + graph.endpoint_count();
        return lp;
    }
    for (std::uint32_t s = fabric; s < switches; ++s) lp.of_switch[s] = fabric + layout->node_of[s];
    for (std::uint32_t g = 0; g < graph.endpoint_count(); ++g)
        lp.of_endpoint[g] = fabric + layout->node_of_gpu(g);
    const std::uint32_t nodes =
        layout->gpus_per_node == 0 ? 0 : graph.endpoint_count() / layout->gpus_per_node;
    lp.count = fabric + nodes;
    return lp;
}

}  // namespace clustersim
