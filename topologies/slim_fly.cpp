#include "topologies/slim_fly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "topologies/galois_field.hpp"

namespace clustersim {

SlimFlyShape slim_fly_shape(std::uint32_t q) {
    SlimFlyShape s;
    s.q = q;
    const std::uint32_t m = q % 4;
    s.delta = m == 0 ? 0 : (m == 1 ? 1 : -1);  // q = 4w + delta; q = 4w + 2 has no MMS graph
    s.network_degree = static_cast<std::uint32_t>((3 * static_cast<int>(q) - s.delta) / 2);
    s.endpoints_per_switch = (s.network_degree + 1) / 2;
    s.switches = 2 * q * q;
    s.constructible = m != 2 && prime_power(q).has_value();
    return s;
}

std::uint32_t slim_fly_q_for_radix(std::uint32_t radix) {
    std::uint32_t best = 0;
    for (std::uint32_t q = 2; q < 4 * radix; ++q) {
        if (q % 4 == 2) continue;
        const SlimFlyShape s = slim_fly_shape(q);
        if (s.network_degree + s.endpoints_per_switch <= radix) best = q;
    }
    return best;
}

namespace {

// Generator sets X (for the s = 0 half) and X' (s = 1) as exponents of the primitive element.
void generator_exponents(std::uint32_t q, int delta, std::vector<std::uint32_t>& x,
                         std::vector<std::uint32_t>& x_prime) {
    const std::uint32_t w = static_cast<std::uint32_t>((static_cast<int>(q) - delta) / 4);
    if (delta == 1) {
        for (std::uint32_t e = 0; e + 3 <= q; e += 2) x.push_back(e);
        for (std::uint32_t e = 1; e + 2 <= q; e += 2) x_prime.push_back(e);
    } else if (delta == 0) {
        for (std::uint32_t e = 0; e + 2 <= q; e += 2) x.push_back(e);
        for (std::uint32_t e = 1; e + 1 <= q; e += 2) x_prime.push_back(e);
    } else {
        for (std::uint32_t e = 0; e <= 2 * w - 2; e += 2) x.push_back(e);
        for (std::uint32_t e = 2 * w - 1; e <= 4 * w - 3; e += 2) x.push_back(e);
        for (std::uint32_t e = 1; e <= 2 * w - 1; e += 2) x_prime.push_back(e);
        for (std::uint32_t e = 2 * w; e <= 4 * w - 2; e += 2) x_prime.push_back(e);
    }
}

}  // namespace

Topology build_slim_fly(const TopologyRequest& r) {
    const std::uint32_t q =
        r.slimfly_q != 0 ? r.slimfly_q : slim_fly_q_for_radix(r.fabric.switch_radix);
    if (q < 3)
        throw TopologyError("topology.switch_radix",
                            "the radix is too small for any Slim Fly (expected at least 5)");
    const SlimFlyShape s = slim_fly_shape(q);
    if (s.network_degree + s.endpoints_per_switch > r.fabric.switch_radix)
        throw TopologyError(
            "topology.q",
            fmt::format("q = {} needs {} ports per switch ({} network + {} endpoints), more "
                        "than radix {} (expected q <= {})",
                        q, s.network_degree + s.endpoints_per_switch, s.network_degree,
                        s.endpoints_per_switch, r.fabric.switch_radix,
                        slim_fly_q_for_radix(r.fabric.switch_radix)));
    // The switch graph is built whole whatever the endpoints: bound its ports as well (a
    // formula-only size builds nothing and is always priced).
    const char* size_key = r.slimfly_q != 0 ? "topology.q" : "topology.switch_radix";
    const std::uint64_t ports =
        std::uint64_t{s.switches} * (s.network_degree + s.endpoints_per_switch);
    if (s.constructible && ports > 4 * kMaxBuiltEndpoints)
        throw TopologyError(size_key,
                            fmt::format("a Slim Fly of q = {} has {} switch ports, more than the "
                                        "{} clustersim builds (expected a smaller q or radix)",
                                        q, ports, 4 * kMaxBuiltEndpoints));
    if (s.constructible && r.endpoints == 0)
        check_buildable(std::uint64_t{s.switches} * s.endpoints_per_switch, size_key,
                        fmt::format("a Slim Fly of q = {}", q));
    const std::uint32_t max_endpoints = s.switches * s.endpoints_per_switch;
    const std::uint32_t endpoints = r.endpoints == 0 ? max_endpoints : r.endpoints;
    if (endpoints > max_endpoints)
        throw TopologyError("topology.endpoints",
                            fmt::format("{} endpoints exceed the Slim Fly limit of {} at q = {} "
                                        "(expected at most {})",
                                        endpoints, max_endpoints, q, max_endpoints));
    Topology t;
    t.kind = "slimfly";
    t.virtual_lanes = 2;  // diameter 2: at most two switch-to-switch hops
    Inventory& inv = t.inventory;
    inv.endpoints = endpoints;
    inv.switches = s.switches;
    inv.tiers = {{"router", s.switches}};
    inv.endpoint_links = endpoints;
    inv.switch_links = static_cast<std::uint64_t>(s.switches) * s.network_degree / 2;
    inv.max_hops = 3;  // diameter 2: at most three switches
    inv.max_endpoints = max_endpoints;
    // Upper bound: no cut carries more than half the endpoints' rate, nor more than all links.
    inv.bisection_gbps =
        std::min(std::floor(endpoints / 2.0), static_cast<double>(inv.switch_links)) *
        r.fabric.link_rate.gbps();
    inv.bisection_exact = false;
    inv.cables = {{"endpoint-aoc", inv.endpoint_links}, {"switch-optics", inv.switch_links}};
    inv.transceivers = 2 * inv.switch_links;
    if (!s.constructible) {
        std::uint32_t nearest = q;
        while (nearest > 2 && !slim_fly_shape(nearest).constructible) --nearest;
        inv.constructible = false;
        inv.note = fmt::format(
            "q = {} is not a prime power: no MMS construction exists, counts come from the "
            "formulas (2q^2 switches, k' = {}, p = {}); the nearest buildable is q = {}",
            q, s.network_degree, s.endpoints_per_switch, nearest);
        return t;  // no graph
    }
    if (r.counts_only) return t;

    const auto field = GaloisField::make(q);
    std::vector<std::uint32_t> xe, xpe;
    generator_exponents(q, s.delta, xe, xpe);
    std::vector<bool> in_x(q, false), in_xp(q, false);
    for (auto e : xe) in_x[field->power_of_primitive(e)] = true;
    for (auto e : xpe) in_xp[field->power_of_primitive(e)] = true;

    PortGraph& g = t.graph;
    g.set_endpoint_count(endpoints);
    const FabricParams& f = r.fabric;
    for (std::uint32_t i = 0; i < s.switches; ++i)
        g.add_switch(
            SwitchInfo{0, f.switch_radix, f.switch_latency, f.port_buffer_bytes, f.cut_through});
    auto id = [q](std::uint32_t half, std::uint32_t a, std::uint32_t b) {
        return half * q * q + a * q + b;
    };
    auto cable = [&](std::uint32_t u, std::uint32_t v) {
        g.add_cable({NodeKind::Switch, u}, {NodeKind::Switch, v}, f.link_rate, f.link_delay);
    };
    for (std::uint32_t x = 0; x < q; ++x)
        for (std::uint32_t y = 0; y < q; ++y)
            for (std::uint32_t y2 = y + 1; y2 < q; ++y2) {
                const std::uint32_t d = field->sub(y, y2);
                if (in_x[d])
                    cable(id(0, x, y), id(0, x, y2));  // (0,x,y) ~ (0,x,y') iff y - y' in X
                if (in_xp[d])
                    cable(id(1, x, y), id(1, x, y2));  // (1,m,c) ~ (1,m,c') iff c - c' in X'
            }
    for (std::uint32_t x = 0; x < q; ++x)
        for (std::uint32_t m = 0; m < q; ++m)
            for (std::uint32_t c = 0; c < q; ++c)
                cable(id(0, x, field->add(field->mul(m, x), c)), id(1, m, c));  // y = m x + c
    for (std::uint32_t e = 0; e < endpoints; ++e)
        g.add_cable({NodeKind::Endpoint, e}, {NodeKind::Switch, e / s.endpoints_per_switch},
                    f.link_rate, f.link_delay);
    g.finalize();
    if (g.cable_count() != inv.switch_links + inv.endpoint_links)
        throw std::logic_error("Slim Fly construction produced an unexpected number of links");
    return t;
}

namespace {
const KeySpec kQ = keys::integer("topology.q", 2, 1000, "largest the radix allows",
                                 "Slim Fly field order (a prime power builds; others give formula "
                                 "counts only)");
}  // namespace

std::vector<KeySpec> slim_fly_keys() {
    return {kQ};
}

void parse_slim_fly_keys(const KeyValues& v, TopologyRequest& r) {
    r.slimfly_q = static_cast<std::uint32_t>(v.integer_or(kQ.path, 0));
}

}  // namespace clustersim
