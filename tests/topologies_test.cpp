#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>

#include "support.hpp"
#include "topologies/fat_tree_three_layer.hpp"
#include "topologies/galois_field.hpp"
#include "topologies/slim_fly.hpp"

using namespace clustersim;
using namespace clustersim::test;
using Json = nlohmann::json;

namespace {

TopologyRequest request(const std::string& kind, std::uint32_t radix, std::uint32_t endpoints = 0) {
    TopologyRequest r;
    r.kind = kind;
    r.fabric.switch_radix = radix;
    r.endpoints = endpoints;
    return r;
}

// Switch-graph diameter by BFS from every switch (small graphs only).
std::uint32_t switch_diameter(const PortGraph& g) {
    const auto ch = g.channels();
    std::uint32_t diameter = 0;
    for (std::uint32_t s = 0; s < g.switch_count(); ++s) {
        std::vector<std::uint32_t> dist(g.switch_count(), UINT32_MAX);
        std::vector<std::uint32_t> queue{s};
        dist[s] = 0;
        for (std::size_t i = 0; i < queue.size(); ++i) {
            const NodeRef n{NodeKind::Switch, queue[i]};
            for (std::uint32_t c = g.first_channel(n); c < g.first_channel(n) + g.channels_of(n);
                 ++c) {
                if (ch[c].to.kind != NodeKind::Switch || dist[ch[c].to.index] != UINT32_MAX)
                    continue;
                dist[ch[c].to.index] = dist[queue[i]] + 1;
                queue.push_back(ch[c].to.index);
            }
        }
        for (auto d : dist) diameter = std::max(diameter, d);
    }
    return diameter;
}

std::uint32_t degree(const PortGraph& g, std::uint32_t sw, NodeKind to) {
    std::uint32_t d = 0;
    const NodeRef n{NodeKind::Switch, sw};
    for (std::uint32_t c = g.first_channel(n); c < g.first_channel(n) + g.channels_of(n); ++c)
        d += g.channels()[c].to.kind == to;
    return d;
}

void check_all_pairs_reachable(const Topology& t, std::uint32_t max_switches) {
    const ForwardingTables routes = shortest_path_routes(t.graph);
    const std::uint32_t n = t.graph.endpoint_count();
    for (std::uint32_t a = 0; a < n; ++a)
        for (std::uint32_t b = 0; b < n; ++b) {
            if (a == b) continue;
            const PathStats ps = walk(t, routes, a, b);
            REQUIRE(ps.switches >= 1);
            REQUIRE(ps.switches <= max_switches);
        }
}

}  // namespace

TEST_CASE("ISCA'25 Table 3: counts exact and cost per endpoint within 5% for all five fabrics",
          "[topology][cost][cli][system][validation]") {
    struct Row {
        const char* file;
        std::uint64_t endpoints, switches, links;
        double cost_musd, per_endpoint_kusd;
        bool constructible;
    };
    const std::vector<Row> table = {
        {"ft2", 2048, 96, 2048, 9, 4.39, true},
        {"mpft", 16384, 768, 16384, 72, 4.39, true},
        {"ft3", 65536, 5120, 131072, 491, 7.5, true},
        {"slimfly", 32928, 1568, 32928, 146, 4.4, false},
        {"dragonfly", 261632, 16352, 384272, 1522, 5.8, true},
    };
    for (const Row& row : table) {
        const auto r =
            run_cli("topo " + source_path(std::string("scenarios/table3/") + row.file + ".yaml") +
                    " --json");
        INFO(row.file << ": " << r.err);
        REQUIRE(r.exit_code == 0);
        const Json j = Json::parse(r.out);
        CHECK(j["endpoints"] == row.endpoints);
        CHECK(j["switches"] == row.switches);
        CHECK(j["links"] == row.links);
        CHECK(j["constructible"] == row.constructible);
        CHECK(j["cost_per_endpoint_usd"].get<double>() ==
              Approx(row.per_endpoint_kusd * 1000).epsilon(0.05));
        CHECK(j["cost_usd"].get<double>() == Approx(row.cost_musd * 1e6).epsilon(0.05));
    }
}

TEST_CASE("FT3 counts follow the k-ary closed forms, and routes climb only as high as needed",
          "[topology]") {
    for (std::uint32_t k : {4u, 8u}) {
        const Topology t = build_topology(request("ft3", k));
        INFO("radix " << k);
        CHECK(t.inventory.endpoints == k * k * k / 4);
        CHECK(t.inventory.switches == 5 * k * k / 4);
        CHECK(t.inventory.switch_links == k * k * k / 2);
        CHECK(t.inventory.max_hops == 5);
    }
    const Topology t = build_topology(request("ft3", 4));
    const ForwardingTables routes = shortest_path_routes(t.graph);
    // Radix 4: 2 endpoints per leaf, 2 leaves per pod (4 endpoints per pod).
    CHECK(walk(t, routes, 0, 1).switches == 1);
    CHECK(walk(t, routes, 0, 2).switches == 3);
    CHECK(walk(t, routes, 0, 2).paths == 2);  // k/2 aggregation switches
    CHECK(walk(t, routes, 0, 15).switches == 5);
    CHECK(walk(t, routes, 0, 15).paths == 4);  // (k/2)^2 cores
    check_all_pairs_reachable(t, 5);
    // A partial FT3 keeps the radix: 40 endpoints at radix 8 = 10 leaves in 3 pods.
    const auto s = fat_tree_three_layer_shape(request("ft3", 8, 40));
    CHECK(s.leaves == 10);
    CHECK(s.pods == 3);
    CHECK(s.aggs == 12);
    CHECK(s.cores * s.core_parallel == 16);
    check_all_pairs_reachable(build_topology(request("ft3", 8, 40)), 5);
    CHECK_THROWS_AS(build_topology(request("ft3", 4, 17)), TopologyError);
}

TEST_CASE(
    "a port graph numbers every node once, switches first, and lays channels out in that "
    "order",
    "[topology]") {
    const Topology t = build_topology(request("ft2", 8));
    const PortGraph& g = t.graph;
    REQUIRE(g.vertex_count() == g.switch_count() + g.endpoint_count());
    std::uint32_t next_channel = 0;
    for (std::uint32_t v = 0; v < g.vertex_count(); ++v) {
        const NodeRef n = g.node_at(v);
        CHECK(n.kind == (v < g.switch_count() ? NodeKind::Switch : NodeKind::Endpoint));
        CHECK(g.vertex(n) == v);
        CHECK(g.first_channel(n) == next_channel);  // channels grouped by source, in vertex order
        for (std::uint32_t c = g.first_channel(n); c < g.first_channel(n) + g.channels_of(n); ++c)
            CHECK(g.vertex(g.channels()[c].from) == v);
        next_channel += g.channels_of(n);
    }
    CHECK(next_channel == g.channel_count());
}

TEST_CASE("MPFT is P independent FT2 planes with NIC i of every node on plane i", "[topology]") {
    for (std::uint32_t planes : {2u, 4u}) {
        TopologyRequest r = request("mpft", 8);
        r.planes = planes;
        const Topology t = build_topology(r);
        CHECK(t.inventory.endpoints == planes * 32);
        CHECK(t.inventory.switches == planes * 12);
        CHECK(t.inventory.switch_links == planes * 32);
        // Each plane is its own component: a NIC reaches exactly the NICs of its own plane.
        const ForwardingTables routes = shortest_path_routes(t.graph);
        for (std::uint32_t b = 1; b < t.graph.endpoint_count(); ++b)
            CHECK((walk(t, routes, 0, b).switches > 0) == (b % planes == 0));
    }
    TopologyRequest r = request("mpft", 8, 36);
    r.planes = 4;
    const Topology t = build_topology(r);  // 9 nodes: 9 NICs per plane, 3 leaves of 4
    CHECK(t.inventory.tiers[0].switches == 4 * 3);
    r.endpoints = 130;
    CHECK_THROWS_AS(build_topology(r), TopologyError);  // above 4 x 32
}

TEST_CASE("MRFT puts NIC i of every node on rail-i leaves under shared spines", "[topology]") {
    TopologyRequest r = request("mrft", 16, 64);
    r.planes = 4;  // 4 rails, 16 nodes; 8 down-ports per leaf -> 2 leaves per rail
    const Topology t = build_topology(r);
    CHECK(t.inventory.tiers[0].switches == 8);
    const auto ch = t.graph.channels();
    for (std::uint32_t e = 0; e < 64; ++e) {
        const std::uint32_t leaf = ch[t.graph.first_channel({NodeKind::Endpoint, e})].to.index;
        CHECK(leaf / 2 == e % 4);  // rail = leaf / leaves-per-rail
    }
    check_all_pairs_reachable(t, 3);
    const ForwardingTables routes = shortest_path_routes(t.graph);
    CHECK(walk(t, routes, 0, 4).switches == 1);  // same rail, nearby node: one leaf
    CHECK(walk(t, routes, 0, 1).switches == 3);  // another rail: through a spine
    // 8 uplinks to 4 spines (2 parallel links each), then 2 parallel links down: 8 x 2 paths.
    CHECK(walk(t, routes, 0, 1).paths == 16);
    // Full size at radix 64 with 8 rails: 2,048 NICs on 64 rail-aligned leaves, as FT2.
    TopologyRequest full = request("mrft", 64, 2048);
    full.planes = 8;
    const Topology f = build_topology(full);
    CHECK(f.inventory.switches == 96);
    CHECK(f.inventory.switch_links == 2048);
    full.endpoints = 2056;  // 257 nodes need 9 leaves per rail: 72 > 64
    CHECK_THROWS_AS(build_topology(full), TopologyError);
}

TEST_CASE("dual-plane and shuffle pods: one hop, every NIC on every plane, pod limits",
          "[topology]") {
    TopologyRequest d = request("dual-plane", 256);
    d.fabric.link_rate = DataRate::from_gbps(200);
    Topology t = build_topology(d);
    CHECK(t.inventory.endpoints == 256);
    CHECK(t.inventory.switches == 2);
    CHECK(t.inventory.switch_links == 0);
    CHECK(t.inventory.endpoint_links == 512);
    CHECK(t.inventory.max_hops == 1);
    for (std::uint32_t s = 0; s < 2; ++s) CHECK(degree(t.graph, s, NodeKind::Endpoint) == 256);
    d.endpoints = 16;
    check_all_pairs_reachable(build_topology(d), 1);
    d.endpoints = 257;
    CHECK_THROWS_AS(build_topology(d), TopologyError);

    TopologyRequest s = request("shuffle", 512);
    s.fabric.link_rate = DataRate::from_gbps(100);
    t = build_topology(s);
    CHECK(t.inventory.endpoints == 512);
    CHECK(t.inventory.switches == 4);
    CHECK(t.graph.channels_of({NodeKind::Endpoint, 7}) == 4);
    s.fabric.switch_radix = 1024;
    s.nic_rate_gbps = 800;
    t = build_topology(s);
    CHECK(t.inventory.switches == 8);
    CHECK(t.inventory.endpoints == 1024);
    s.endpoints = 1025;
    CHECK_THROWS_AS(build_topology(s), TopologyError);
    s.endpoints = 24;
    check_all_pairs_reachable(build_topology(s), 1);
}

TEST_CASE("GF(q) arithmetic is a field for prime and prime-power orders", "[topology]") {
    for (std::uint32_t q : {5u, 7u, 8u, 9u, 27u}) {
        const auto f = GaloisField::make(q);
        REQUIRE(f);
        std::set<std::uint32_t> powers;
        for (std::uint32_t k = 0; k < q - 1; ++k) powers.insert(f->power_of_primitive(k));
        CHECK(powers.size() == q - 1);  // the primitive element generates every non-zero element
        for (std::uint32_t a = 0; a < q; ++a) {
            CHECK(f->add(a, f->neg(a)) == 0);
            for (std::uint32_t b = 1; b < q; ++b) CHECK(f->mul(a, b) == f->mul(b, a));
        }
    }
    CHECK_FALSE(GaloisField::make(6));
    CHECK_FALSE(GaloisField::make(28));
}

TEST_CASE("Slim Fly MMS graphs: 2q^2 switches, degree (3q - delta)/2, diameter 2", "[topology]") {
    for (std::uint32_t q : {4u, 5u, 7u, 9u}) {
        TopologyRequest r = request("slimfly", 64);
        r.slimfly_q = q;
        const Topology t = build_topology(r);
        const SlimFlyShape s = slim_fly_shape(q);
        INFO("q = " << q);
        REQUIRE(t.inventory.constructible);
        CHECK(t.graph.switch_count() == 2 * q * q);
        for (std::uint32_t sw = 0; sw < t.graph.switch_count(); ++sw)
            CHECK(degree(t.graph, sw, NodeKind::Switch) == s.network_degree);
        CHECK(switch_diameter(t.graph) == 2);
    }
    TopologyRequest r = request("slimfly", 64);
    r.slimfly_q = 5;
    r.endpoints = 60;
    check_all_pairs_reachable(build_topology(r), 3);
    // The nearest buildable size to the paper's q = 28, with 64-port switches.
    r.slimfly_q = 27;
    r.endpoints = 0;
    const Topology t27 = build_topology(r);
    CHECK(t27.inventory.constructible);
    CHECK(t27.graph.switch_count() == 1458);
    CHECK(t27.inventory.switch_links == 29889);
    CHECK(t27.inventory.endpoints == 1458 * 21);
    r.slimfly_q = 28;
    const Topology t28 = build_topology(r);
    CHECK_FALSE(t28.inventory.constructible);
    CHECK(t28.graph.switch_count() == 0);
    CHECK(t28.inventory.note.find("27") != std::string::npos);
}

TEST_CASE(
    "Dragonfly: groups all-to-all inside, one global link per group pair, at most 3 switch hops",
    "[topology]") {
    TopologyRequest r = request("dragonfly", 8);
    r.dragonfly_a = 4;
    r.dragonfly_p = 2;
    r.dragonfly_h = 2;
    for (std::uint32_t g : {9u, 5u}) {  // 9 = a h + 1 (full), 5 leaves spare global ports
        r.dragonfly_g = g;
        const Topology t = build_topology(r);
        INFO("g = " << g);
        CHECK(t.inventory.switches == 4 * g);
        CHECK(t.inventory.endpoints == 8 * g);
        const std::uint64_t local = g * 6;
        CHECK(t.inventory.switch_links >= local + g * (g - 1) / 2);
        CHECK(t.inventory.switch_links <= local + 4 * 2 * g / 2);
        CHECK(switch_diameter(t.graph) <= 3);
        for (std::uint32_t sw = 0; sw < t.graph.switch_count(); ++sw)
            CHECK(degree(t.graph, sw, NodeKind::Switch) <= 3 + 2);
        check_all_pairs_reachable(t, 4);
        if (g == 9) {
            // Inside a group switches are all-to-all: one path of at most one local hop. Across
            // groups the route crosses at most 3 links (local-global-local); shortest paths may
            // also go global-global through a third group when that is no longer.
            const ForwardingTables routes = shortest_path_routes(t.graph);
            for (std::uint32_t b = 1; b < t.graph.endpoint_count(); ++b) {
                const PathStats ps = walk(t, routes, 0, b);
                INFO("0 -> " << b);
                if (b < 8) {  // 8 endpoints per group
                    CHECK(ps.paths == 1);
                    CHECK(ps.switches == (b < 2 ? 1u : 2u));
                } else {
                    CHECK(ps.paths >= 1);
                    CHECK(ps.switches >= 2);
                    CHECK(ps.switches <= 4);
                }
            }
        }
    }
    r.dragonfly_g = 10;
    CHECK_THROWS_AS(build_topology(r), TopologyError);
    r.dragonfly_g = 0;
    r.dragonfly_a = 6;  // 2 + 5 + 2 > 8 ports
    CHECK_THROWS_AS(build_topology(r), TopologyError);
}

TEST_CASE("the largest configurations build with forwarding state per edge switch, not per host",
          "[topology][scale]") {
    // Build time is measured in docs/performance.md, not asserted here.
    TopologyRequest r = request("mpft", 64);
    r.planes = 8;
    const Topology mpft = build_topology(r);
    const ForwardingTables routes = shortest_path_routes(mpft.graph);
    CHECK(mpft.inventory.endpoints == 16384);
    CHECK(routes.edge_count() == 8 * 64);
    CHECK(routes.memory_bytes() < 16u << 20);
    const Topology ft3 = build_topology(request("ft3", 64));
    CHECK(ft3.graph.endpoint_count() == 65536);
    CHECK(ft3.graph.switch_count() == 5120);
}

TEST_CASE("rack placement: cables inside a rack are DAC, the rest stay optical, and cost follows",
          "[topology][cost][cli][system]") {
    const auto dir = temp_dir("racks");
    const auto topo = [&](const std::string& name, const std::string& yaml) {
        write_text(dir / (name + ".yaml"), yaml);
        const auto r = run_cli("topo " + (dir / (name + ".yaml")).string() + " --json");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        return Json::parse(r.out);
    };
    const std::string prices =
        "cost: {switch_usd: 10000, cables: {endpoint-dac: 100, endpoint-aoc: 1000, "
        "switch-optics: 2000, switch-dac: 300}, rack_endpoints: ";

    // FT2 of 64-port leaves: each leaf serves 32 consecutive NICs, i.e. one rack of 32.
    const Json tor = topo("ft2-32", "topology: {kind: ft2}\n" + prices + "32}\n");
    CHECK(tor["top_of_rack_switches"] == 64);
    CHECK(tor["cables"]["endpoint-dac"] == 2048);
    CHECK_FALSE(tor["cables"].contains("endpoint-aoc"));
    CHECK(tor["cables"]["switch-optics"] == 2048);
    CHECK(tor["transceivers"] == 4096);
    CHECK(tor["cost_usd"].get<double>() == Approx(96 * 10000.0 + 2048 * 100.0 + 2048 * 2000.0));

    // Racks of 16: every leaf spans two racks, sits in a network rack, all cables optical.
    const Json split = topo("ft2-16", "topology: {kind: ft2}\n" + prices + "16}\n");
    CHECK(split["top_of_rack_switches"] == 0);
    CHECK(split["cables"]["endpoint-aoc"] == 2048);
    CHECK_FALSE(split["cables"].contains("endpoint-dac"));

    // MPFT: a plane's leaf serves NIC p of 32 nodes, 8 racks: no top-of-rack switch.
    const Json mpft = topo("mpft", "topology: {kind: mpft, endpoints: 2048}\n" + prices + "32}\n");
    CHECK(mpft["top_of_rack_switches"] == 0);
    CHECK(mpft["cables"]["endpoint-aoc"] == 2048);

    // One rack holding every endpoint of a Slim Fly: every switch link is copper, no optics.
    const Json sf =
        topo("sf", "topology: {kind: slimfly, q: 5, switch_radix: 12}\n" + prices + "100000}\n");
    CHECK(sf["top_of_rack_switches"] == sf["switches"]);
    CHECK(sf["cables"]["switch-dac"] == sf["links"]);
    CHECK(sf["transceivers"] == 0);

    // 0 places nothing: Table 3's all-optical inventory.
    const Json none = topo("none", "topology: {kind: ft2}\n" + prices + "0}\n");
    CHECK(none["cables"]["endpoint-aoc"] == 2048);
    CHECK(none["endpoints_per_rack"] == 0);
}

TEST_CASE("fabrics too large to build are refused with the key at fault, never overflowed",
          "[topology]") {
    const auto key_of = [](const TopologyRequest& r) -> std::string {
        try {
            build_topology(r);
        } catch (const TopologyError& e) {
            return e.key();
        }
        return "built";
    };
    // A full FT3 at radix 65,536 has 2^46 endpoints: once wrapped to 0 in 32 bits.
    CHECK(key_of(request("ft3", 65536)) == "topology.switch_radix");
    CHECK(key_of(request("ft2", 65536)) == "topology.switch_radix");
    CHECK(key_of(request("dragonfly", 65536)) == "topology.switch_radix");
    TopologyRequest m = request("mpft", 2048);
    m.planes = 64;
    CHECK(key_of(m) == "topology.planes");
    // Few endpoints but billions of global links: the switch graph is bounded too.
    TopologyRequest d = request("dragonfly", 65536);
    d.dragonfly_a = 1;
    d.dragonfly_p = 1;
    d.dragonfly_h = 65535;
    CHECK(key_of(d) == "topology.group_switches");
    // A formula-only Slim Fly builds nothing, so any size is priced.
    TopologyRequest sf = request("slimfly", 512);
    sf.slimfly_q = 200;
    const Topology formula = build_topology(sf);
    CHECK_FALSE(formula.inventory.constructible);
    CHECK(formula.inventory.switches == 2 * 200 * 200);
    // Asking for fewer endpoints than the maximum builds only what they need.
    CHECK(key_of(request("ft2", 65536, 64)) == "built");
    CHECK(key_of(request("ft2", 4096, static_cast<std::uint32_t>(kMaxBuiltEndpoints + 1))) ==
          "topology.endpoints");
}

TEST_CASE("bisection: a full FT2 cuts half its endpoints' links, an oversubscribed one its uplinks",
          "[topology][bisection]") {
    // Radix 8, 1:1: 8 leaves of 4 down and 4 up; half the leaves reach the spines over 16 links.
    const Topology full = build_topology(request("ft2", 8));
    CHECK(full.inventory.endpoints == 32);
    CHECK(full.inventory.bisection_gbps == 16 * 400.0);
    CHECK(full.inventory.bisection_exact);
    // Radix 8, 3:1: 6 down and 2 up per leaf, 8 leaves; the cut is 4 leaves x 2 uplinks.
    TopologyRequest over = request("ft2", 8);
    over.oversubscription = 3;
    const Topology o = build_topology(over);
    CHECK(o.inventory.endpoints == 48);
    CHECK(o.inventory.bisection_gbps == 8 * 400.0);
}

TEST_CASE("bisection bound of a balanced Dragonfly: the global links between two halves of groups",
          "[topology][bisection]") {
    // a = 4, p = 2, h = 2, g = 9: one global link per pair of groups; splitting the groups 4 | 5
    // cuts 4 x 5 = 20 global links, fewer than the 36 endpoint links of either half.
    TopologyRequest r = request("dragonfly", 8);
    r.dragonfly_a = 4;
    r.dragonfly_p = 2;
    r.dragonfly_h = 2;
    r.dragonfly_g = 9;
    const Topology t = build_topology(r);
    CHECK(t.inventory.bisection_gbps == 20 * 400.0);
    CHECK_FALSE(t.inventory.bisection_exact);
}
