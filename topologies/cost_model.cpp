#include "topologies/cost_model.hpp"

#include <cmath>

#include <fmt/format.h>

namespace clustersim {

CostBreakdown fabric_cost(const Inventory& inv, const std::string& switch_preset,
                          const PriceTable& prices) {
    CostBreakdown c;
    const auto sw = prices.switch_usd.find(switch_preset);
    if (sw == prices.switch_usd.end())
        throw TopologyError("cost.switch_usd",
                            fmt::format("no price for switch preset '{}' (expected cost.switch_usd "
                                        "in the scenario)",
                                        switch_preset));
    c.switches_usd = sw->second * inv.switches;
    c.total_usd = c.switches_usd;
    for (const auto& cable : inv.cables) {
        const auto it = prices.cable_usd.find(cable.kind);
        if (it == prices.cable_usd.end())
            throw TopologyError(
                "cost.cables." + cable.kind,
                fmt::format(
                    "no price for cable kind '{}' (expected cost.cables.{} in the scenario)",
                    cable.kind, cable.kind));
        const double usd = it->second * static_cast<double>(cable.count);
        c.cables_usd[cable.kind] += usd;
        c.total_usd += usd;
    }
    c.per_endpoint_usd = inv.endpoints > 0 ? c.total_usd / inv.endpoints : 0.0;
    return c;
}

ClusterCost cluster_cost(double fabric_usd, double nics, std::uint32_t nics_per_node,
                         double server_usd, bool bare_nics) {
    ClusterCost c;
    c.nodes = bare_nics ? 0.0 : std::ceil(nics / nics_per_node);
    c.usd = fabric_usd + c.nodes * server_usd;
    return c;
}

double tokens_per_s_per_musd(double tokens_per_s_per_gpu, double gpus, double cluster_usd) {
    return cluster_usd > 0 ? tokens_per_s_per_gpu * gpus / (cluster_usd / 1e6) : 0.0;
}

}  // namespace clustersim
