#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "scenario_support.hpp"

using namespace clustersim;
using namespace clustersim::test;

// Routing policies on fat trees: which paths one flow takes, collisions of a shift permutation
// under static D-mod-k tables and under ECMP, and what adaptive routing recovers.

namespace {

// A full two-layer fat tree of radix 8: 8 leaves of 4 NICs, 4 spines; bare NICs.
const std::string kFt2 = "topology: {kind: ft2, switch_radix: 8}\ncluster: {node: none}\n";

std::string trace_of(const std::string& name, const std::string& csv) {
    const auto dir = temp_dir("routing-" + name);
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n" + csv);
    return "workload: {kind: trace, file: " + (dir / "m.csv").string() + "}\n";
}

// Switch-to-switch channels that carried bytes, and the most bytes any of them carried.
struct LinkUse {
    std::set<std::uint32_t> used;
    std::uint64_t most = 0;
};

LinkUse fabric_links(const Run& r) {
    LinkUse u;
    const auto channels = r.fabric.simulated().graph.channels();
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        if (channels[c].from.kind != NodeKind::Switch || channels[c].to.kind != NodeKind::Switch)
            continue;
        const std::uint64_t b = r.result.channels[c].bytes;
        if (b > 0) u.used.insert(c);
        u.most = std::max(u.most, b);
    }
    return u;
}

// A shift permutation by one leaf: NIC i sends to NIC (i + 4) mod 32, every flow crossing a spine.
std::string shift_permutation(std::uint64_t bytes) {
    std::string csv;
    for (std::uint32_t i = 0; i < 32; ++i)
        csv += std::to_string(i) + "," + std::to_string((i + 4) % 32) + "," +
               std::to_string(bytes) + ",0\n";
    return csv;
}

}  // namespace

TEST_CASE("ECMP and static routing keep a flow on one path -- per-packet policies spread it",
          "[routing]") {
    const std::string work = trace_of("one-flow", "0,31,1048576,0\n");
    for (const char* policy : {"ecmp", "static", "flowlet", "spray", "adaptive"}) {
        const Run r = run_yaml(std::string("one-flow-") + policy, kFt2 + work,
                               {Override{"network.routing", policy}});
        REQUIRE(r.result.status == SimulationResult::Status::Completed);
        INFO(policy);
        // Up from the source leaf, down to the destination leaf: 2 links on one path, 2 x 4
        // when the flow spreads over all 4 spines.
        const std::size_t links = fabric_links(r).used.size();
        const std::string p = policy;
        // The reported path spread says the same: 1 or 4 of the leaf's 4 uplinks.
        const PathSpread& s = r.result.path_spread;
        CHECK(s.flows == 1);
        CHECK(s.candidates_sum == 4);
        if (p == "ecmp" || p == "static" || p == "flowlet") {  // back to back: one flowlet
            CHECK(links == 2);
            CHECK(s.max_paths == 1);
        } else {
            CHECK(links == 8);
            CHECK(s.max_paths == 4);
        }
    }
}

TEST_CASE("static D-mod-k routing has no collision on a shift permutation of a full fat tree",
          "[routing]") {
    const std::uint64_t bytes = 262144;
    const Run r = run_yaml("shift-static", kFt2 + trace_of("shift", shift_permutation(bytes)),
                           {Override{"network.routing", "static"}});
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    const LinkUse u = fabric_links(r);
    // Every spine link carries exactly one flow: 32 flows x (up + down) = 64 links, each the
    // wire bytes of one message.
    CHECK(u.used.size() == 64);
    CHECK(std::ranges::count_if(
              u.used, [&](std::uint32_t c) { return r.result.channels[c].bytes != u.most; }) == 0);
    // ECMP hashes some flows onto a shared spine link (seed 1), which carries two flows' bytes.
    const Run e = run_yaml("shift-ecmp", kFt2 + trace_of("shift-e", shift_permutation(bytes)),
                           {Override{"network.routing", "ecmp"}});
    CHECK(fabric_links(e).most >= 2 * u.most);
    CHECK(e.result.end_time > r.result.end_time);

    // Three layers (radix 8: 128 NICs, 8 pods): shifting by half the tree sends every flow
    // through a core, and the aggregation tier divides by the leaves' 4 uplinks.
    std::string csv;
    for (std::uint32_t i = 0; i < 128; ++i)
        csv += std::to_string(i) + "," + std::to_string((i + 64) % 128) + ",65536,0\n";
    const Run t = run_yaml("shift-static-ft3",
                           "topology: {kind: ft3, switch_radix: 8}\ncluster: {node: none}\n" +
                               trace_of("shift-ft3", csv),
                           {Override{"network.routing", "static"}});
    REQUIRE(t.result.status == SimulationResult::Status::Completed);
    const LinkUse v = fabric_links(t);
    CHECK(v.used.size() == 128 * 4);  // leaf-agg, agg-core, core-agg, agg-leaf per flow
    CHECK(std::ranges::count_if(
              v.used, [&](std::uint32_t c) { return t.result.channels[c].bytes != v.most; }) == 0);
}

TEST_CASE("static routing spreads rail-aligned traffic over parallel core links going down",
          "[routing]") {
    // An FT3 of radix 8 with 2 pods (32 NICs): each aggregation switch reaches its one core over
    // 4 parallel links. Port 0 of every leaf of pod 0 sends to port 0 of a leaf of pod 1, as
    // rail-aligned GPU traffic does: the leaves send up the same uplink, the aggregation switch
    // spreads the 4 flows over its 4 parallel links by destination leaf, and the core must do
    // the same going down. Reproduced: d mod 4 put all four on one link (a MoE decode on FT3
    // with spread EP groups took 2.7x ECMP's dispatch time).
    std::string csv;
    for (std::uint32_t leaf = 0; leaf < 4; ++leaf)
        csv += std::to_string(4 * leaf) + "," + std::to_string(16 + 4 * leaf) + ",262144,0\n";
    const Run r = run_yaml("rail-static",
                           "topology: {kind: ft3, switch_radix: 8, endpoints: 32}\n"
                           "cluster: {node: none}\n" +
                               trace_of("rail", csv),
                           {Override{"network.routing", "static"}});
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    const LinkUse u = fabric_links(r);
    // Leaf up, aggregation up, core down, aggregation down: 4 links per flow, none shared.
    CHECK(u.used.size() == 16);
    CHECK(std::ranges::count_if(
              u.used, [&](std::uint32_t c) { return r.result.channels[c].bytes != u.most; }) == 0);
}

TEST_CASE("on a colliding permutation adaptive routing's makespan is at most 0.8x ECMP's",
          "[routing]") {
    const std::string work = trace_of("collide", shift_permutation(1048576));
    const Run e = run_yaml("collide-ecmp", kFt2 + work, {Override{"network.routing", "ecmp"}});
    const Run a =
        run_yaml("collide-adaptive", kFt2 + work, {Override{"network.routing", "adaptive"}});
    REQUIRE(e.result.status == SimulationResult::Status::Completed);
    REQUIRE(a.result.status == SimulationResult::Status::Completed);
    CHECK(a.result.end_time.us() <= 0.8 * e.result.end_time.us());
    // Bytes are conserved whatever the policy.
    CHECK(a.result.counters.payload_delivered == a.workload.total_bytes());
}

TEST_CASE("unsalted ECMP polarises: the second tier reuses the first tier's choice", "[routing]") {
    // A three-layer fat tree: with one hash everywhere, a flow's aggregation switch picks the
    // core uplink with the same index its leaf picked, so only a fraction of the cores carry
    // traffic; salted, every core does.
    const std::string ft3 = "topology: {kind: ft3, switch_radix: 8}\ncluster: {node: none}\n";
    std::string csv;
    for (std::uint32_t i = 0; i < 128; ++i)
        csv += std::to_string(i) + "," + std::to_string((i + 64) % 128) + ",65536,0\n";
    const std::string work = trace_of("polarise", csv);
    auto cores_used = [&](const char* hash) {
        const Run r =
            run_yaml(std::string("polarise-") + hash, ft3 + work,
                     {Override{"network.routing", "ecmp"}, Override{"network.ecmp_hash", hash}});
        REQUIRE(r.result.status == SimulationResult::Status::Completed);
        // Links into the top tier: switches nothing attaches to and that receive from below.
        std::set<std::uint32_t> cores;
        const auto channels = r.fabric.simulated().graph.channels();
        const auto& graph = r.fabric.simulated().graph;
        for (std::uint32_t c = 0; c < channels.size(); ++c) {
            if (channels[c].to.kind != NodeKind::Switch || r.result.channels[c].bytes == 0)
                continue;
            bool edge = false;
            const NodeRef sw = channels[c].to;
            for (std::uint32_t k = graph.first_channel(sw);
                 k < graph.first_channel(sw) + graph.channels_of(sw); ++k)
                edge |= channels[k].to.kind == NodeKind::Endpoint;
            if (!edge && channels[c].from.kind == NodeKind::Switch) cores.insert(sw.index);
        }
        return cores.size();
    };
    CHECK(cores_used("unsalted") < cores_used("salted"));
}

TEST_CASE(
    "UGAL on a Dragonfly halves minimal routing's time under a group shift and keeps "
    "up with it on uniform traffic",
    "[routing][dragonfly]") {
    // 9 groups of 4 switches, 2 NICs and 2 global links per switch: one global link between
    // each pair of groups (a h + 1 = 9), the balanced Dragonfly of Kim et al. 2008.
    const std::string df =
        "cluster: {node: none}\n"
        "topology: {kind: dragonfly, switch_radix: 8, group_switches: 4, "
        "endpoints_per_switch: 2, global_links: 2, groups: 9}\n";
    std::string shift, uniform;
    for (std::uint32_t i = 0; i < 72; ++i) {
        // Every NIC of group g to the same NIC of group g + 1; uniform: a fixed derangement
        // mixing groups (i -> 29 i + 5 mod 72, a bijection since gcd(29, 72) = 1).
        shift += std::to_string(i) + "," + std::to_string((i + 8) % 72) + ",262144,0\n";
        std::uint32_t j = (29 * i + 5) % 72;
        uniform += std::to_string(i) + "," + std::to_string(j) + ",262144,0\n";
    }
    auto makespan = [&](const std::string& name, const std::string& csv, const char* routing,
                        const char* ugal) {
        const Run r =
            run_yaml("df-" + name + "-" + routing + "-" + ugal, df + trace_of("df-" + name, csv),
                     {Override{"network.routing", routing}, Override{"network.ugal", ugal}});
        REQUIRE(r.result.status == SimulationResult::Status::Completed);
        CHECK(r.result.counters.payload_delivered == r.workload.total_bytes());
        return r.result.end_time.us();
    };
    const double minimal = makespan("shift", shift, "ecmp", "local");
    // Minimal routes share the one global link: 8 NICs x 256 KiB at 50 GB/s, at least 42 us.
    CHECK(minimal >= 8 * 262144 / 50e3);
    CHECK(makespan("shift", shift, "ugal", "local") <= 0.5 * minimal);
    CHECK(makespan("shift", shift, "ugal", "global") <= 0.5 * minimal);
    CHECK(makespan("shift", shift, "valiant", "local") <= 0.5 * minimal);
    const double uniform_minimal = makespan("uniform", uniform, "ecmp", "local");
    CHECK(makespan("uniform", uniform, "ugal", "local") <= 1.1 * uniform_minimal);
    CHECK(makespan("uniform", uniform, "ugal", "global") <= 1.1 * uniform_minimal);
}

TEST_CASE("Dragonfly minimal routes cross exactly one global link", "[routing][dragonfly]") {
    const std::string df =
        "cluster: {node: none}\n"
        "topology: {kind: dragonfly, switch_radix: 8, group_switches: 4, "
        "endpoints_per_switch: 2, global_links: 2, groups: 9}\n";
    const Run r = run_yaml("df-one-global", df + trace_of("df-one", "0,8,65536,0\n"),
                           {Override{"network.routing", "ecmp"}});
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    // Groups 0 and 1 are joined by one cable; the flow's switch-to-switch links are all in
    // group 0 or 1, and exactly one of them joins the two.
    const auto& graph = r.fabric.simulated().graph;
    const auto channels = graph.channels();
    std::uint32_t global = 0;
    for (std::uint32_t c : fabric_links(r).used) {
        const std::uint32_t ga = graph.switches()[channels[c].from.index].group;
        const std::uint32_t gb = graph.switches()[channels[c].to.index].group;
        CHECK(ga <= 1);
        CHECK(gb <= 1);
        global += ga != gb;
    }
    CHECK(global == 1);
}

TEST_CASE("spraying to a go-back-N NIC takes at least 10 % longer than to an out-of-order NIC",
          "[routing][transport]") {
    const std::string work = trace_of("spray-nic", shift_permutation(1048576));
    auto run_with = [&](const char* retransmission) {
        const Run r = run_yaml(std::string("spray-") + retransmission, kFt2 + work,
                               {Override{"network.routing", "spray"},
                                Override{"network.retransmission", retransmission}});
        REQUIRE(r.result.status == SimulationResult::Status::Completed);
        CHECK(r.result.counters.payload_delivered == r.workload.total_bytes());
        return r;
    };
    const Run ooo = run_with("selective-repeat");
    const Run gbn = run_with("go-back-n");
    CHECK(gbn.result.end_time.us() >= 1.1 * ooo.result.end_time.us());
    // The go-back-N receiver discarded reordered packets and NACKed; the sender resent them.
    CHECK(gbn.result.counters.discarded_out_of_order > 0);
    CHECK(gbn.result.counters.nacks > 0);
    CHECK(gbn.result.counters.retransmitted_packets > 0);
    CHECK(ooo.result.counters.retransmitted_packets == 0);
    // Per-flow ECMP keeps each flow in order: go-back-N costs nothing there.
    const Run ecmp = run_yaml(
        "ecmp-gbn", kFt2 + work,
        {Override{"network.routing", "ecmp"}, Override{"network.retransmission", "go-back-n"}});
    CHECK(ecmp.result.counters.retransmitted_packets == 0);
    CHECK(ecmp.result.counters.acks > 0);
}

TEST_CASE(
    "sticky adaptive routing keeps a lone flow on its hashed path and, on a colliding "
    "permutation, leaves congested paths: between ECMP and per-packet adaptive",
    "[routing]") {
    // Alone, a flow never queues past the threshold: one path, as ECMP.
    const Run lone = run_yaml("sticky-lone", kFt2 + trace_of("sticky-one", "0,31,1048576,0\n"),
                              {Override{"network.routing", "sticky-adaptive"}});
    REQUIRE(lone.result.status == SimulationResult::Status::Completed);
    CHECK(lone.result.path_spread.max_paths == 1);
    // Colliding flows queue on their hashed uplinks; past the threshold they spread.
    const std::string work = trace_of("sticky-collide", shift_permutation(1048576));
    const Run e = run_yaml("sticky-ecmp", kFt2 + work, {Override{"network.routing", "ecmp"}});
    const Run s =
        run_yaml("sticky-on", kFt2 + work, {Override{"network.routing", "sticky-adaptive"}});
    // A threshold beyond any queue is ECMP, packet for packet.
    const Run never = run_yaml("sticky-never", kFt2 + work,
                               {Override{"network.routing", "sticky-adaptive"},
                                Override{"network.sticky_threshold_bytes", "1000000000000"}});
    REQUIRE(s.result.status == SimulationResult::Status::Completed);
    CHECK(s.result.end_time.us() <= 0.9 * e.result.end_time.us());
    CHECK(never.result.end_time == e.result.end_time);
    CHECK(s.result.counters.payload_delivered == s.workload.total_bytes());
}
