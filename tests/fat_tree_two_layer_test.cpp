#include <catch2/catch.hpp>

#include <deque>

#include "support.hpp"

using namespace clustersim;
using namespace clustersim::test;

TEST_CASE("full-size FT2 with 64-port switches matches ISCA'25 Table 3", "[topology][validation]") {
    // Table 3: FT2 = 2,048 endpoints, 96 switches, 2,048 links.
    const auto s = fat_tree_two_layer_shape(small_ft2(64, 0));
    CHECK(s.endpoints == 2048);
    CHECK(s.leaves + s.spines == 96);
    CHECK(static_cast<std::uint64_t>(s.leaves) * s.spines * s.parallel == 2048);
}

TEST_CASE("FT2 counts follow the closed forms at several radices and sizes", "[topology]") {
    for (std::uint32_t k : {4u, 8u, 16u, 32u}) {
        const Topology t = build_fat_tree_two_layer(small_ft2(k, 0));
        INFO("radix " << k);
        CHECK(t.inventory.endpoints == k * k / 2);
        CHECK(t.inventory.switches == k + k / 2);
        CHECK(t.inventory.switch_links == k * k / 2);
        CHECK(t.inventory.endpoint_links == k * k / 2);
        CHECK(t.graph.channel_count() ==
              2 * (t.inventory.switch_links + t.inventory.endpoint_links));
    }
    // A partial FT2 keeps the radix and builds the leaves it needs, with equal uplink counts.
    const Topology t = build_fat_tree_two_layer(small_ft2(16, 20));  // 8 down per leaf -> 3 leaves
    CHECK(t.inventory.tiers[0].switches == 3);
    CHECK(t.inventory.endpoints == 20);
    CHECK(t.inventory.switch_links == 3 * 8);  // every leaf keeps 8 uplinks
    const auto s = fat_tree_two_layer_shape(small_ft2(16, 20));
    CHECK(s.spines * s.parallel == 8);
    CHECK(s.leaves * s.parallel <= 16);
}

TEST_CASE("FT2 oversubscription splits leaf ports down:up", "[topology]") {
    FatTreeTwoLayerParams p = small_ft2(64, 0);
    p.oversubscription = 3;
    const auto s = fat_tree_two_layer_shape(p);
    CHECK(s.down == 48);
    CHECK(s.up == 16);
    CHECK(s.endpoints == 64 * 48);
    CHECK(s.spines == 16);
    p.oversubscription = 2;  // 64 / 3 is not whole
    CHECK_THROWS_AS(fat_tree_two_layer_shape(p), TopologyError);
}

TEST_CASE("FT2 limits are enforced with the key at fault", "[topology]") {
    FatTreeTwoLayerParams p = small_ft2(8, 33);  // max is 8 x 4 = 32
    try {
        fat_tree_two_layer_shape(p);
        FAIL("expected a TopologyError");
    } catch (const TopologyError& e) {
        CHECK(e.key() == "topology.endpoints");
        CHECK(std::string(e.what()).find("32") != std::string::npos);
    }
}

TEST_CASE("in FT2 every endpoint reaches every other, over the expected hops and paths",
          "[topology][routing]") {
    for (std::uint32_t k : {4u, 8u}) {
        const TestFabric f(small_ft2(k, 0));
        const std::uint32_t n = f.topology.graph.endpoint_count();
        const std::uint32_t down = k / 2;
        for (std::uint32_t a = 0; a < n; ++a)
            for (std::uint32_t b = 0; b < n; ++b) {
                if (a == b) continue;
                const PathStats ps = walk(f, a, b);
                REQUIRE(ps.switches > 0);
                if (a / down == b / down) {
                    CHECK(ps.switches == 1);
                    CHECK(ps.paths == 1);
                } else {
                    CHECK(ps.switches == 3);
                    CHECK(ps.paths == k / 2);  // one per spine
                }
            }
    }
}

TEST_CASE("forwarding state is keyed by edge switch and stays small for a 2,048-endpoint FT2",
          "[topology][routing]") {
    const TestFabric f(small_ft2(64, 0));
    CHECK(f.routes.edge_count() == 64);
    CHECK(f.routes.group_count() ==
          64 + 32 * 64);  // one up-set per leaf, one down-link per (spine, leaf)
    CHECK(f.routes.memory_bytes() < 200 * 1024);
}
