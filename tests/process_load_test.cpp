#include <catch2/catch.hpp>
#include <numeric>

#include "models/network/partitions.hpp"
#include "models/network/process_load.hpp"
#include "support.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
    return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
}

}  // namespace

// Two events per packet at every node it passes: the sender's service, the receiver's
// arrival, a switch's both.
TEST_CASE("a process's expected load counts the packets at each node it passes", "[partitions]") {
    // 64 endpoints on a radix-16 FT2: 8 leaves of 8 endpoints (switches 0-7), 4 spines (8-11).
    const TestFabric f(small_ft2(16, 64));
    const PortGraph& g = f.topology.graph;
    const LogicalProcesses lp = logical_processes(g, nullptr);
    const auto endpoint = [&](std::uint32_t e) { return lp.of({NodeKind::Endpoint, e}); };
    const auto leaf_of = [&](std::uint32_t e) {
        return lp.of(g.channels()[g.first_channel({NodeKind::Endpoint, e})].to);
    };
    REQUIRE(leaf_of(0) == leaf_of(1));
    REQUIRE(leaf_of(0) != leaf_of(63));

    SECTION("under one leaf: the leaf twice per packet, no spine") {
        Workload w;
        w.add_message({0, 1, 3 * 4096});  // three packets
        const auto load = expected_process_load(g, lp, w, 4096);
        CHECK(load[endpoint(0)] == 3);
        CHECK(load[endpoint(1)] == 3);
        CHECK(load[leaf_of(0)] == 6);
        CHECK(sum(load) == 12);
    }
    SECTION("across leaves: both leaves, and a spine's visits spread over the spines") {
        Workload w;
        w.add_message({0, 63, 4 * 4096 - 1});  // four packets, the last short
        const auto load = expected_process_load(g, lp, w, 4096);
        CHECK(load[endpoint(0)] == 4);
        CHECK(load[endpoint(63)] == 4);
        CHECK(load[leaf_of(0)] == 8);
        CHECK(load[leaf_of(63)] == 8);
        std::uint32_t spines = 0;
        for (std::uint32_t s = 0; s < g.switch_count(); ++s) {
            if (g.switches()[s].tier != 1) continue;
            CHECK(load[lp.of({NodeKind::Switch, s})] == 2);
            ++spines;
        }
        CHECK(spines == 4);
        CHECK(sum(load) == 4 * (2 * 3 + 2));
    }
    SECTION("an all-to-all's loads add up to twice the packet hops the simulation counts") {
        Workload w;
        for (std::uint32_t s = 0; s < 64; s += 3)
            for (std::uint32_t d = 0; d < 64; d += 5)
                if (s != d) w.add_message({.src = s, .dst = d, .bytes = 10'000, .start = Time{}});
        const auto load = expected_process_load(g, lp, w, ib_params().mtu_bytes);
        const SimulationResult r = run(f, w);
        REQUIRE(r.status == SimulationResult::Status::Completed);
        CHECK(sum(load) == 2 * r.counters.packet_hops);
    }
}

TEST_CASE("partitions balance the expected load, not the channels", "[partitions]") {
    // Only the first 16 endpoints (leaves 0 and 1) send and receive: by channels the leaves'
    // halves weigh the same; by load the busy side must be split.
    const TestFabric f(small_ft2(16, 64));
    const PortGraph& g = f.topology.graph;
    const LogicalProcesses lp = logical_processes(g, nullptr);
    Workload w;
    for (std::uint32_t s = 0; s < 16; ++s)
        for (std::uint32_t d = 0; d < 16; ++d)
            if (s / 8 != d / 8) w.add_message({s, d, 1 << 20});
    const auto load = expected_process_load(g, lp, w, 4096);
    const Partitions by_load = partition_processes(g, lp, {}, "", load);
    const Partitions by_channels = partition_processes(g, lp, {}, "");
    REQUIRE(by_load.count >= 2);
    auto heaviest_share = [&](const Partitions& p) {
        std::vector<std::uint64_t> part(p.count, 0);
        for (std::uint32_t i = 0; i < lp.count; ++i) part[p.of_process[i]] += load[i];
        return static_cast<double>(*std::max_element(part.begin(), part.end())) /
               static_cast<double>(sum(load)) * p.count;
    };
    CHECK(by_load.weight.size() == by_load.count);
    CHECK(sum(by_load.weight) == sum(load));
    CHECK(heaviest_share(by_load) < 1.1);
    CHECK(heaviest_share(by_channels) > 1.3);
}
