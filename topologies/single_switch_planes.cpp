#include "topologies/single_switch_planes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace clustersim {

Topology build_single_switch_planes(const TopologyRequest& r, double nic_rate_gbps) {
    const bool dual = r.kind == "dual-plane";
    const double lane_gbps = r.fabric.link_rate.gbps();
    const std::uint32_t default_planes =
        dual ? 2u
             : static_cast<std::uint32_t>(std::max(1.0, std::round(nic_rate_gbps / lane_gbps)));
    const std::uint32_t planes = r.planes == 0 ? default_planes : r.planes;
    if (planes * lane_gbps > nic_rate_gbps * (1 + 1e-9))
        throw TopologyError(
            "topology.planes",
            fmt::format("{} planes x {} Gb/s exceed the NIC's {} Gb/s (expected at most {} planes)",
                        planes, lane_gbps, nic_rate_gbps,
                        static_cast<int>(std::floor(nic_rate_gbps / lane_gbps + 1e-9))));
    const std::uint32_t limit = r.fabric.switch_radix;  // every switch port faces a NIC
    const std::uint32_t endpoints = r.endpoints == 0 ? limit : r.endpoints;
    if (endpoints > limit)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} NICs exceed the {} pod limit of {} (one {}-port switch per plane; "
                        "pods are not connected to each other; expected at most {})",
                        endpoints, r.kind, limit, limit, limit));
    Topology t;
    t.kind = r.kind;
    t.planes = planes;
    Inventory& inv = t.inventory;
    inv.endpoints = endpoints;
    inv.switches = planes;
    inv.tiers = {{"plane", planes}};
    inv.endpoint_links = static_cast<std::uint64_t>(endpoints) * planes;
    inv.switch_links = 0;
    inv.max_hops = 1;
    inv.max_endpoints = limit;
    inv.bisection_gbps = std::floor(endpoints / 2.0) * planes * lane_gbps;
    inv.bisection_exact = true;
    // One NIC-side module per NIC; a breakout (dual-plane) or shuffle-box fibre set (shuffle)
    // carries its ports or lanes to the plane switches.
    inv.cables = {{dual ? "endpoint-breakout-2x200g" : "endpoint-shuffle-lanes", endpoints}};
    inv.transceivers = 0;
    if (r.counts_only) return t;

    PortGraph& g = t.graph;
    g.set_endpoint_count(endpoints);
    for (std::uint32_t p = 0; p < planes; ++p)
        g.add_switch(SwitchInfo{0, r.fabric.switch_radix, r.fabric.switch_latency,
                                r.fabric.port_buffer_bytes, r.fabric.cut_through});
    for (std::uint32_t e = 0; e < endpoints; ++e)
        for (std::uint32_t p = 0; p < planes; ++p)
            g.add_cable({NodeKind::Endpoint, e}, {NodeKind::Switch, p}, r.fabric.link_rate,
                        r.fabric.link_delay);
    g.finalize();
    return t;
}

}  // namespace clustersim
