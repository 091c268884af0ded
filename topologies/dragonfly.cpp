#include "topologies/dragonfly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace clustersim {

Topology build_dragonfly(const TopologyRequest& r) {
    const std::uint32_t k = r.fabric.switch_radix;
    const std::uint32_t h = r.dragonfly_h != 0 ? r.dragonfly_h : (k + 1) / 4;
    const std::uint32_t a = r.dragonfly_a != 0 ? r.dragonfly_a : 2 * h;
    const std::uint32_t p = r.dragonfly_p != 0 ? r.dragonfly_p : h;
    if (h == 0 || a == 0 || p == 0)
        throw TopologyError(
            "topology.switch_radix",
            fmt::format("radix {} is too small for a dragonfly (expected at least 3)", k));
    if (p + (a - 1) + h > k)
        throw TopologyError(
            "topology.group_switches",
            fmt::format("a = {}, p = {}, h = {} need {} ports per switch, more than radix {} "
                        "(expected p + a - 1 + h <= {})",
                        a, p, h, p + a - 1 + h, k, k),
            {"topology.global_links", "topology.endpoints_per_switch", "topology.switch_radix"});
    const std::uint32_t max_groups = a * h + 1;  // a, h <= radix <= 65,536: fits 32 bits
    std::uint32_t g = r.dragonfly_g;
    if (g == 0) g = r.endpoints != 0 ? (r.endpoints + a * p - 1) / (a * p) : max_groups;
    if (g > max_groups)
        throw TopologyError(
            r.dragonfly_g != 0 ? "topology.groups" : "topology.endpoints",
            fmt::format("{} groups exceed the dragonfly limit of a h + 1 = {} (expected at most {} "
                        "groups, {} endpoints)",
                        g, max_groups, max_groups, std::uint64_t{max_groups} * a * p));
    // Bound the endpoints and, since local and global links grow faster, the switch ports.
    const char* size_key = r.dragonfly_g != 0   ? "topology.groups"
                           : r.dragonfly_a != 0 ? "topology.group_switches"
                                                : "topology.switch_radix";
    check_buildable(std::uint64_t{g} * a * p, size_key,
                    fmt::format("a dragonfly of {} groups x {} switches x {} endpoints", g, a, p));
    const std::uint64_t ports = std::uint64_t{g} * a * (p + a - 1 + h);
    if (ports > 4 * kMaxBuiltEndpoints)
        throw TopologyError(size_key,
                            fmt::format("a dragonfly of {} groups x {} switches has {} switch "
                                        "ports, more than the {} clustersim builds (expected "
                                        "fewer groups or smaller groups)",
                                        g, a, ports, 4 * kMaxBuiltEndpoints));
    const std::uint32_t max_endpoints = g * a * p;
    const std::uint32_t endpoints = r.endpoints == 0 ? max_endpoints : r.endpoints;
    if (endpoints > max_endpoints)
        throw TopologyError("topology.endpoints",
                            fmt::format("{} endpoints exceed {} groups x {} switches x {} "
                                        "(expected at most {})",
                                        endpoints, g, a, p, max_endpoints));
    Topology t;
    t.kind = "dragonfly";
    t.virtual_lanes = g > 1 ? 3 : 1;  // shortest routes cross at most 3 switch-to-switch links
    PortGraph& g_ = t.graph;
    const FabricParams& f = r.fabric;
    const std::uint32_t switches = a * g;
    const bool build = !r.counts_only;  // else only count the links
    if (build) {
        g_.set_endpoint_count(endpoints);
        for (std::uint32_t i = 0; i < switches; ++i)
            g_.add_switch(
                SwitchInfo{0, k, f.switch_latency, f.port_buffer_bytes, f.cut_through, i / a});
    }
    auto cable = [&](std::uint32_t u, std::uint32_t v) {
        if (build)
            g_.add_cable({NodeKind::Switch, u}, {NodeKind::Switch, v}, f.link_rate, f.link_delay);
    };
    std::uint64_t local = 0, global = 0, crossing = 0;
    for (std::uint32_t grp = 0; grp < g; ++grp)
        for (std::uint32_t i = 0; i < a; ++i)
            for (std::uint32_t j = i + 1; j < a; ++j, ++local) cable(grp * a + i, grp * a + j);
    // Global ports of a group are used in order; port t belongs to switch t / h.
    std::vector<std::uint32_t> next_port(g, 0);
    auto link_groups = [&](std::uint32_t x, std::uint32_t y) {
        const std::uint32_t px = next_port[x]++, py = next_port[y]++;
        cable(x * a + px / h, y * a + py / h);
        ++global;
        if ((x < g / 2) != (y < g / 2)) ++crossing;
    };
    for (std::uint32_t x = 0; x < g; ++x)
        for (std::uint32_t y = x + 1; y < g; ++y) link_groups(x, y);
    // Spare ports: rings of extra links, two ports per group each.
    for (std::uint32_t offset = 1; g > 2 && a * h - next_port[0] >= 2 && offset <= g / 2;
         ++offset) {
        if (2 * offset == g) break;
        for (std::uint32_t x = 0; x < g; ++x) link_groups(x, (x + offset) % g);
    }
    if (build) {
        for (std::uint32_t e = 0; e < endpoints; ++e)
            g_.add_cable({NodeKind::Endpoint, e}, {NodeKind::Switch, e / p}, f.link_rate,
                         f.link_delay);
        g_.finalize();
    }

    Inventory& inv = t.inventory;
    inv.endpoints = endpoints;
    inv.switches = switches;
    inv.tiers = {{"router", switches}};
    inv.endpoint_links = endpoints;
    inv.switch_links = local + global;
    inv.max_hops = g > 1 ? 4 : (a > 1 ? 2 : 1);  // local, global, local hops: four switches
    inv.max_endpoints = max_endpoints;
    // A bound: the global links between the two halves of the groups (one particular cut).
    inv.bisection_gbps = std::min(std::floor(endpoints / 2.0),
                                  g > 1 ? static_cast<double>(crossing) : endpoints / 2.0) *
                         f.link_rate.gbps();
    inv.bisection_exact = false;
    inv.cables = {{"endpoint-aoc", inv.endpoint_links}, {"switch-optics", inv.switch_links}};
    inv.transceivers = 2 * inv.switch_links;
    inv.note = fmt::format("a = {}, p = {}, h = {}, g = {}: {} local and {} global links", a, p, h,
                           g, local, global);
    return t;
}

namespace {
const KeySpec kA =
    keys::integer("topology.group_switches", 1, 1e5, "2h", "Dragonfly switches per group (a)");
const KeySpec kP = keys::integer("topology.endpoints_per_switch", 1, 1e5, "h",
                                 "Dragonfly endpoints per switch (p)");
const KeySpec kH = keys::integer("topology.global_links", 1, 1e5, "(radix + 1) / 4",
                                 "Dragonfly global links per switch (h)");
const KeySpec kG = keys::integer("topology.groups", 1, 1e7, "a h + 1, or what the endpoints need",
                                 "Dragonfly groups (g)");
}  // namespace

std::vector<KeySpec> dragonfly_keys() {
    return {kA, kP, kH, kG};
}

void parse_dragonfly_keys(const KeyValues& v, TopologyRequest& r) {
    r.dragonfly_a = static_cast<std::uint32_t>(v.integer_or(kA.path, 0));  // 0: the default
    r.dragonfly_p = static_cast<std::uint32_t>(v.integer_or(kP.path, 0));
    r.dragonfly_h = static_cast<std::uint32_t>(v.integer_or(kH.path, 0));
    r.dragonfly_g = static_cast<std::uint32_t>(v.integer_or(kG.path, 0));
}

}  // namespace clustersim
