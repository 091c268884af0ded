#include "topologies/single_switch_planes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

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
    const std::uint32_t pods = std::max<std::uint32_t>(1, r.pods);
    const std::uint64_t most = std::uint64_t{limit} * pods;
    const std::uint64_t endpoints = r.endpoints == 0 ? most : r.endpoints;
    // NICs are split evenly over the pods, the last one taking what is left.
    const std::uint64_t pod_nics = (endpoints + pods - 1) / pods;
    if (pod_nics > limit)
        throw TopologyError(
            "topology.endpoints",
            fmt::format("{} NICs over {} pod{} exceed the {} pod limit of {} (one {}-port switch "
                        "per plane; pods are not connected to each other; expected at most {}, "
                        "or topology.pods: {})",
                        endpoints, pods, pods == 1 ? "" : "s", r.kind, limit, limit, most,
                        (endpoints + limit - 1) / limit));
    if (pods > 1) {
        if (pod_nics % std::max<std::uint32_t>(1, r.nics_per_node) != 0)
            throw TopologyError(
                "topology.pods",
                fmt::format("{} pods of {} NICs would split a node's {} NICs between pods "
                            "(expected the NICs per pod a multiple of {})",
                            pods, pod_nics, r.nics_per_node, r.nics_per_node));
        if (pod_nics * (pods - 1) >= endpoints)
            throw TopologyError("topology.pods",
                                fmt::format("{} NICs fill {} pods of {}, not {} (expected at "
                                            "most {} pods)",
                                            endpoints, (endpoints + pod_nics - 1) / pod_nics,
                                            pod_nics, pods, (endpoints + pod_nics - 1) / pod_nics));
    }
    check_buildable(endpoints, "topology.endpoints", r.kind + " fabric");
    Topology t;
    t.kind = r.kind;
    t.planes = planes;
    t.pod_nics = pods > 1 ? static_cast<std::uint32_t>(pod_nics) : 0;
    Inventory& inv = t.inventory;
    inv.endpoints = static_cast<std::uint32_t>(endpoints);
    inv.switches = pods * planes;
    inv.tiers = {{"plane", pods * planes}};
    inv.endpoint_links = endpoints * planes;
    inv.switch_links = 0;
    inv.max_hops = 1;
    inv.max_endpoints = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(most, std::numeric_limits<std::uint32_t>::max()));
    // Between pods nothing: an even split along a pod boundary cuts no cable.
    inv.bisection_gbps =
        pods > 1 ? 0 : std::floor(static_cast<double>(endpoints) / 2.0) * planes * lane_gbps;
    inv.bisection_exact = true;
    if (pods > 1)
        inv.note = fmt::format(
            "{} pods of {} NICs, nothing between them (an instance stays in "
            "its pod)",
            pods, pod_nics);
    // One NIC-side module per NIC; a breakout (dual-plane) or shuffle-box fibre set (shuffle)
    // carries its ports or lanes to the plane switches.
    inv.cables = {{dual ? "endpoint-breakout-2x200g" : "endpoint-shuffle-lanes", endpoints}};
    inv.transceivers = 0;
    if (r.counts_only) return t;

    PortGraph& g = t.graph;
    g.set_endpoint_count(inv.endpoints);
    for (std::uint32_t s = 0; s < pods * planes; ++s)
        g.add_switch(SwitchInfo{0, r.fabric.switch_radix, r.fabric.switch_latency,
                                r.fabric.port_buffer_bytes, r.fabric.cut_through});
    // Port p of every NIC (in the order of its cables) on plane p of its own pod.
    for (std::uint32_t e = 0; e < inv.endpoints; ++e) {
        const auto pod = static_cast<std::uint32_t>(e / pod_nics);
        for (std::uint32_t p = 0; p < planes; ++p)
            g.add_cable({NodeKind::Endpoint, e}, {NodeKind::Switch, pod * planes + p},
                        r.fabric.link_rate, r.fabric.link_delay);
    }
    g.finalize();
    return t;
}

}  // namespace clustersim
