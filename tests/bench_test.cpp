#include <catch2/catch.hpp>

#include "tools/clustersim/bench.hpp"

using namespace clustersim;

TEST_CASE(
    "bench reports the contract's keys (a tiny run; speed itself is measured by `clustersim "
    "bench`)",
    "[bench]") {
    BenchOptions o;
    o.seconds_per_queue_size = 0.01;
    o.radix = 8;
    o.message_bytes = 64 * 1024;
    const auto j = run_benchmarks(o);
    CHECK(j["events_per_s"].get<double>() > 0);
    for (const char* k : {"1e4", "1e5", "1e6"}) CHECK(j["queue_ops_per_s"][k].get<double>() > 0);
    CHECK(j["packet_hops_per_s"].get<double>() > 0);
    CHECK(j["packet_run"]["completed"] == true);
    // Every packet of a cross-leaf permutation crosses 4 links, a same-leaf one 2.
    const auto packets = j["packet_run"]["packets"].get<std::uint64_t>();
    const auto hops = j["packet_run"]["packet_hops"].get<std::uint64_t>();
    CHECK(hops >= 2 * packets);
    CHECK(hops <= 4 * packets);
}
