#include <catch2/catch.hpp>

#include "support.hpp"
#include "tools/scenario/bench.hpp"
#include "traffic/patterns.hpp"

using namespace clustersim;

TEST_CASE(
    "bench counts the packets and hops its permutation must take (speed itself is measured by "
    "`clustersim bench`, never asserted)",
    "[bench]") {
    BenchOptions o;
    o.seconds_per_queue_size = 0.01;
    o.radix = 8;
    o.message_bytes = 64 * 1024;
    const auto j = run_benchmarks(o);
    const auto& run = j["packet_run"];
    REQUIRE(run["completed"] == true);
    CHECK(j["events_per_s"].get<double>() == j["queue_ops_per_s"]["1e4"].get<double>());
    for (const char* k : {"1e4", "1e5", "1e6"}) CHECK(j["queue_ops_per_s"][k].get<double>() > 0);

    // The same permutation, recomputed: 32 endpoints, 16 packets per message; a same-leaf
    // message (4 endpoints per leaf at radix 8) crosses 2 links, a cross-leaf one 4.
    PatternParams pp;
    pp.endpoints = 32;
    pp.message_bytes = o.message_bytes;
    const Workload w = permutation(pp);
    std::uint64_t packets = 0, hops = 0;
    for (const auto& m : w.messages) {
        const std::uint64_t n = (m.bytes + 4095) / 4096;
        packets += n;
        hops += n * (m.src / 4 == m.dst / 4 ? 2 : 4);
    }
    CHECK(run["endpoints"] == 32);
    CHECK(run["packets"].get<std::uint64_t>() == packets);
    CHECK(run["packet_hops"].get<std::uint64_t>() == hops);
    const double wall = run["wall_s"].get<double>();
    CHECK(j["packet_hops_per_s"].get<double>() ==
          Approx(static_cast<double>(hops) / wall).epsilon(1e-12));
    CHECK(j["packet_events_per_s"].get<double>() ==
          Approx(run["events"].get<double>() / wall).epsilon(1e-12));
}
