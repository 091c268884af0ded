#include <catch2/catch.hpp>

#include "support.hpp"
#include "traffic/patterns.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

SimulationResult heavy_all_to_all(const TopologyRequest& r, std::uint32_t lanes) {
    TopologyRequest req = r;
    req.fabric.port_buffer_bytes = 16 * 1024;  // small buffers: credit loops close quickly
    const Topology t = build_topology(req);
    const ForwardingTables routes = shortest_path_routes(t.graph);
    PatternParams pp;
    pp.endpoints = t.graph.endpoint_count();
    pp.message_bytes = 64 * 1024;
    NetworkParams np = ib_params();
    np.virtual_lanes = lanes;
    return simulate(t.graph, routes, all_to_all(pp), np, SimulationOptions{});
}

}  // namespace

TEST_CASE("lossless minimal routing on Slim Fly deadlocks on one lane and completes on two",
          "[physics][lanes]") {
    TopologyRequest r;
    r.kind = "slimfly";
    r.fabric.switch_radix = 16;
    r.slimfly_q = 5;
    REQUIRE(build_topology(r).virtual_lanes == 2);
    const SimulationResult one = heavy_all_to_all(r, 1);
    CHECK(one.status == SimulationResult::Status::Stalled);  // a credit cycle: detected, not a hang
    const SimulationResult two = heavy_all_to_all(r, 2);
    CHECK(two.status == SimulationResult::Status::Completed);
    CHECK(two.counters.payload_dropped == 0);
}

TEST_CASE("lossless minimal routing on Dragonfly deadlocks on one lane and completes on three",
          "[physics][lanes]") {
    TopologyRequest r;
    r.kind = "dragonfly";
    r.fabric.switch_radix = 8;
    r.dragonfly_a = 4;
    r.dragonfly_p = 2;
    r.dragonfly_h = 2;
    r.dragonfly_g = 9;
    REQUIRE(build_topology(r).virtual_lanes == 3);
    CHECK(heavy_all_to_all(r, 1).status == SimulationResult::Status::Stalled);
    const SimulationResult three = heavy_all_to_all(r, 3);
    CHECK(three.status == SimulationResult::Status::Completed);
}

TEST_CASE(
    "on a fat tree lanes only split switch-to-switch buffers: same bytes, slower when the "
    "halves are too small to cover the credit loop",
    "[physics][lanes]") {
    TopologyRequest r;
    r.kind = "ft2";
    r.fabric.switch_radix = 8;
    const SimulationResult one = heavy_all_to_all(r, 1);
    const SimulationResult two = heavy_all_to_all(r, 2);
    REQUIRE(one.status == SimulationResult::Status::Completed);
    REQUIRE(two.status == SimulationResult::Status::Completed);  // up/down routes: no cycle
    CHECK(two.counters.payload_delivered == one.counters.payload_delivered);
    // 16 KiB per input split in two 8 KiB lanes: fewer packets in flight per hop, a longer run.
    CHECK(two.end_time.seconds() > 1.5 * one.end_time.seconds());
}

TEST_CASE("on a fat tree with ample buffers two lanes change no result", "[physics][lanes]") {
    TopologyRequest r;
    r.kind = "ft2";
    r.fabric.switch_radix = 8;
    r.fabric.port_buffer_bytes = 1 << 20;
    const Topology t = build_topology(r);
    const ForwardingTables routes = shortest_path_routes(t.graph);
    PatternParams pp;
    pp.endpoints = t.graph.endpoint_count();
    pp.message_bytes = 64 * 1024;
    NetworkParams np = ib_params();
    const SimulationResult one = simulate(t.graph, routes, all_to_all(pp), np, SimulationOptions{});
    np.virtual_lanes = 2;
    const SimulationResult two = simulate(t.graph, routes, all_to_all(pp), np, SimulationOptions{});
    CHECK(two.end_time == one.end_time);
}

TEST_CASE("lanes split only switch-to-switch buffers: node-internal hops keep the whole buffer",
          "[physics][lanes][cli][system]") {
    // 64 KiB packets on three lanes: a third of a node's 128 KiB staging buffer would hold none,
    // so a split there would stall every GPU; the lanes exist only between fabric switches.
    const auto dir = temp_dir("lanes-node");
    write_text(dir / "s.yaml",
               "topology: {kind: dragonfly, switch_radix: 8, group_switches: 4, "
               "endpoints_per_switch: 2, global_links: 2, groups: 9}\n"
               "cluster: {node: h800}\n"
               "network: {mtu_bytes: 65536, port_buffer_bytes: 256KiB}\n"
               "workload: {kind: alltoall, message_bytes: 64KiB}\n");
    const auto r =
        run_cli("run " + (dir / "s.yaml").string() + " --json --out " + (dir / "out").string());
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("\"status\": \"completed\"") != std::string::npos);
}
