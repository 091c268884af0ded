#include <catch2/catch.hpp>

#include "scenario_support.hpp"

using namespace clustersim;
using namespace clustersim::test;

// Lossless and lossy operation on an Ethernet fabric: priority flow control from shared
// buffers, its pauses and the head-of-line blocking they cause, against tail drop with
// retransmission.

namespace {

// A radix-16 two-layer fat tree of 400G Ethernet switches (128 NICs, 8 per leaf), bare NICs.
const std::string kEthernet =
    "cluster: {node: none}\ntopology: {kind: ft2, switch: ethernet-400g, switch_radix: 16}\n";

std::string csv_workload(const std::string& name, const std::string& rows) {
    const auto dir = temp_dir("fc-" + name);
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n" + rows);
    return "workload: {kind: trace, file: " + (dir / "m.csv").string() + "}\n";
}

}  // namespace

TEST_CASE("an Ethernet preset runs PFC by default: a 64-sender incast loses nothing and pauses",
          "[flow-control][pfc]") {
    const std::string incast =
        "workload: {kind: incast, message_bytes: 256KiB, destination: 0, senders: 64}\n";
    const Run pfc = run_yaml("incast-pfc", kEthernet + incast);
    REQUIRE(pfc.scenario.network.flow_control == FlowControl::Pfc);
    REQUIRE(pfc.result.status == SimulationResult::Status::Completed);
    CHECK(pfc.result.counters.packets_dropped == 0);
    CHECK(pfc.result.counters.pfc_headroom_drops == 0);  // headroom covers the pause's trip
    CHECK(pfc.result.counters.pfc_pauses > 0);
    CHECK(pfc.result.pfc_paused > Time::zero());
    CHECK(pfc.result.counters.payload_delivered == 64ull * 262144);

    // Lossy, no congestion control: the same incast drops, retransmits, still delivers every
    // byte once, and takes longer.
    const Run lossy =
        run_yaml("incast-lossy", kEthernet + incast, {Override{"network.flow_control", "lossy"}});
    REQUIRE(lossy.result.status == SimulationResult::Status::Completed);
    CHECK(lossy.result.counters.packets_dropped > 0);
    CHECK(lossy.result.counters.retransmitted_packets > 0);
    CHECK(lossy.result.counters.payload_delivered == 64ull * 262144);
    CHECK(lossy.result.counters.pfc_pauses == 0);
    CHECK(lossy.result.end_time > pfc.result.end_time);
}

TEST_CASE("PFC pauses block a victim flow that shares a paused port with an incast",
          "[flow-control][pfc]") {
    // 63 NICs on leaves 1-9 send 1 MiB each to NIC 0; at 1 ms NIC 23 (leaf 2, not an incast
    // sender) sends 256 KiB to NIC 100 on an idle leaf. Sprayed, its packets share leaf 2's
    // uplinks with the incast; small buffers make the pauses reach those uplinks.
    std::string rows;
    for (std::uint32_t s = 8; s < 80; ++s)
        if (s % 8 != 7) rows += std::to_string(s) + ",0,1048576,0\n";
    rows += "23,100,262144,1000\n";
    auto victim_us = [&](const std::string& name, const std::string& work) {
        const Run r = run_yaml("hol-" + name, kEthernet + work,
                               {Override{"network.routing", "spray"},
                                Override{"network.port_buffer_bytes", "131072"}});
        REQUIRE(r.result.status == SimulationResult::Status::Completed);
        const MessageState& v = r.result.messages.back();
        return (v.finished - v.started).us();
    };
    const double blocked = victim_us("incast", csv_workload("hol", rows));
    const double alone = victim_us("alone", csv_workload("hol-alone", "23,100,262144,1000\n"));
    CHECK(blocked > 5 * alone);
}

TEST_CASE("queue sampling records the congested ports over time and never keeps a run alive",
          "[flow-control][observability]") {
    const std::string incast =
        "workload: {kind: incast, message_bytes: 256KiB, destination: 0, senders: 64}\n";
    const Run r = run_yaml("sampled-incast", kEthernet + incast, {Override{"sim.sample_us", "5"}});
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    REQUIRE(!r.result.queue_samples.empty());
    std::uint64_t deepest = 0;
    bool paused = false;
    Time last;
    for (const QueueSample& q : r.result.queue_samples) {
        CHECK(q.at >= last);  // in time order, every 5 us
        CHECK(q.at.ps() % Time::from_us(5).ps() == 0);
        last = q.at;
        deepest = std::max(deepest, q.queued_bytes);
        paused |= q.paused;
    }
    CHECK(deepest <= r.result.max_queue_bytes);
    CHECK(deepest > 1'000'000);  // the incast's last hop
    CHECK(paused);
    CHECK(last <= r.result.end_time);
    // Link use per tier over time (models/tier_series.hpp, always on): the incast's senders on
    // other leaves keep the leaf-spine links busy at times, and the series accounts for the
    // bytes -- summed over its points, exactly what each tier's links carried.
    const TierSeries& series = r.result.tiers;
    REQUIRE(series.points() > 0);
    const auto channels = r.fabric.simulated().graph.channels();
    std::vector<double> carried(series.tiers().size(), 0);
    for (std::uint32_t c = 0; c < channels.size(); ++c)
        carried[series.tier_of(c)] += static_cast<double>(r.result.channels[c].bytes);
    double busiest_spine = 0;
    for (std::size_t k = 0; k < series.tiers().size(); ++k) {
        const ChannelTier& tier = series.tiers()[k];
        double accounted = 0;
        for (std::size_t p = 0; p < series.points(); ++p) {
            const TierPoint& x = series.point(p, k);
            const double util =
                static_cast<double>(x.bytes) * 8 /
                (static_cast<double>(tier.capacity_bps) * series.span_of(p).seconds());
            // Counted as packets start on the wire: at most one packet per link beyond capacity.
            CHECK(util <=
                  1.0 + tier.channels * 4200.0 * 8 /
                            (static_cast<double>(tier.capacity_bps) * series.span_of(p).seconds()));
            if (tier.from == ChannelEnd::FabricSwitch && tier.to == ChannelEnd::FabricSwitch)
                busiest_spine = std::max(busiest_spine, util);
            accounted += static_cast<double>(x.bytes);
            CHECK(x.max_queue_bytes <= r.result.max_queue_bytes);
        }
        CHECK(accounted == carried[k]);  // the last point closes at the run's end
    }
    CHECK(busiest_spine > 0.01);
    // Drops and ECN marks so far ride along: a lossy run's bottleneck shows its drops, and
    // they only grow.
    const Run lossy =
        run_yaml("sampled-lossy", kEthernet + incast,
                 {Override{"sim.sample_us", "5"}, Override{"network.flow_control", "lossy"}});
    std::uint64_t drops = 0;
    bool monotonic = true;
    for (const QueueSample& q : lossy.result.queue_samples) {
        if (q.channel != lossy.result.queue_samples.front().channel) continue;
        monotonic &= q.drops >= drops;
        drops = q.drops;
    }
    CHECK(monotonic);
    std::uint64_t most = 0;
    for (const QueueSample& q : lossy.result.queue_samples) most = std::max(most, q.drops);
    CHECK(most > 0);
    // A run that deadlocks still ends (stalled) with sampling on.
    const Run stuck = run_yaml("sampled-deadlock",
                               "cluster: {node: none}\n"
                               "topology: {kind: dragonfly, switch_radix: 8, group_switches: 4, "
                               "endpoints_per_switch: 2, global_links: 2, groups: 9}\n"
                               "network: {port_buffer_bytes: 16KiB, virtual_lanes: 1}\n"
                               "workload: {kind: alltoall, message_bytes: 64KiB}\n",
                               {Override{"sim.sample_us", "5"}});
    CHECK(stuck.result.status == SimulationResult::Status::Stalled);
}

TEST_CASE("ECN marks a packet as it leaves the queue, on the bytes behind it",
          "[flow-control][cc]") {
    // As the HPCC authors' ns-3 switch marks (SwitchNotifyDequeue): the first packets out of a
    // long queue leave 400 KB or more behind them and are marked; the last leave less than Kmin
    // behind and are not -- even though they joined the queue when it was at its longest.
    const TestFabric f(small_ft2(4, 8));
    Simulator sim;
    NetworkParams p = ib_params();
    p.cc = DcqcnParams{};  // turns ECN marking on
    const LogicalProcesses processes = logical_processes(f.topology.graph, nullptr);
    Fabric fabric(sim, f.topology.graph, p, nullptr, processes);
    const std::uint32_t port = 0;  // any egress port
    const std::uint32_t wire = p.mtu_bytes + p.header_bytes;
    const std::uint32_t packets = 200;  // 824 KB, twice Kmax
    for (std::uint32_t i = 0; i < packets; ++i) {
        Packet pk;
        pk.message = 0;
        pk.sequence = i;
        pk.payload_bytes = p.mtu_bytes;
        pk.flags = Packet::kEcnCapable;
        REQUIRE(fabric.enqueue(port, pk));
    }
    std::vector<bool> marked;
    for (std::uint32_t i = 0; i < packets; ++i)
        marked.push_back(fabric.pop_queued(port, 0, wire).flags & Packet::kCongestionExperienced);
    const std::uint32_t above_kmax = static_cast<std::uint32_t>(p.ecn_kmax_bytes / wire);
    const std::uint32_t below_kmin = static_cast<std::uint32_t>(p.ecn_kmin_bytes / wire);
    for (std::uint32_t i = 0; i < packets; ++i) {
        const std::uint32_t behind = packets - 1 - i;  // packets still queued when i leaves
        INFO("packet " << i << ", " << behind << " behind it");
        if (behind > above_kmax) CHECK(marked[i]);
        if (behind < below_kmin) CHECK_FALSE(marked[i]);
    }
    CHECK(fabric.counters().ecn_marks > 0);
}

TEST_CASE(
    "PFC headroom covers a pause's round trip: on 2 km cables an incast still loses "
    "nothing, and the headroom each ingress keeps is what the cable holds both ways",
    "[flow-control][pfc]") {
    // 10 us of fibre each way (about 2 km): at 400 Gb/s, 500 KB in flight per direction. An
    // ingress that kept headroom for one direction only would overflow while its pause travels
    // up and the packets already sent travel down.
    const std::string incast =
        "network: {link_delay_ns: 10000}\n"
        "workload: {kind: incast, message_bytes: 1MiB, destination: 0, senders: 16}\n";
    const Run r = run_yaml("incast-pfc-long", kEthernet + incast);
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    CHECK(r.result.counters.pfc_pauses > 0);
    CHECK(r.result.counters.pfc_headroom_drops == 0);
    CHECK(r.result.counters.packets_dropped == 0);
    CHECK(r.result.counters.payload_delivered == 16ull * 1048576);
}

namespace {

// Launches a packet that came in over `up` (so its credit goes back over `up`) at kLaunch
// events, and counts credits in at `up` at kCollect events, logging what the port holds
// (the fabric's own events, the packets' arrivals, are let be).
struct CreditDriver {
    static constexpr std::uint32_t kLaunch = 100, kCollect = 101;
    Fabric& fabric;
    std::uint32_t up, out;
    std::vector<std::pair<std::int64_t, std::size_t>> log;  // credits_bytes, still returning
    void handle(const Event& e) {
        if (e.kind == kLaunch) {
            Packet p;
            p.payload_bytes = 4096;
            p.credit_channel = up;
            fabric.launch(out, p, fabric.wire_bytes(p), 0, e.time + Time::from_ns(10));
        } else if (e.kind == kCollect) {
            fabric.collect_credits(up);
            log.emplace_back(fabric.ports()[up].credits_bytes, fabric.credits_returning(up));
        }
    }
};

}  // namespace

TEST_CASE(
    "credits on their way back are counted in arrival order, however many are in flight "
    "(the port's line holds three, its ring the rest)",
    "[fabric]") {
    // Switch 0 feeds switch 1 over `up` (50 ns); packets that came over it leave switch 1.
    SwitchInfo sw;
    sw.port_buffer_bytes = 64 * 1024;
    test::SwitchChain chain(sw);
    REQUIRE(chain.up != kNone);
    REQUIRE(chain.out != kNone);
    const std::int64_t full = chain.fabric.ports()[chain.up].credits_bytes;
    const std::int64_t w = 4096 + ib_params().header_bytes;
    CreditDriver d{chain.fabric, chain.up, chain.out, {}};
    // Five packets leave 10 ns apart (credits back at 50..90 ns): more than the line holds.
    for (int i = 0; i < 5; ++i)
        chain.sim.schedule(Time::from_ns(10.0 * i), 0, CreditDriver::kLaunch, 0);
    for (double t : {45.0, 70.0, 100.0})
        chain.sim.schedule(Time::from_ns(t), 0, CreditDriver::kCollect, 0);
    // One at 75 ns (back at 125) when the line has room again but the ring is not empty: it
    // queues behind the ring's. One more at 110 ns (back at 160), and one at 200 ns finds
    // both back and counts them in.
    chain.sim.schedule(Time::from_ns(75), 0, CreditDriver::kLaunch, 0);
    chain.sim.schedule(Time::from_ns(110), 0, CreditDriver::kLaunch, 0);
    chain.sim.schedule(Time::from_ns(200), 0, CreditDriver::kLaunch, 0);
    chain.sim.schedule(Time::from_ns(200), 0, CreditDriver::kCollect, 0);
    chain.sim.run(d);
    REQUIRE(d.log.size() == 4);
    CHECK(d.log[0] == std::pair{full, std::size_t{5}});          // none back at 45 ns
    CHECK(d.log[1] == std::pair{full + 3 * w, std::size_t{2}});  // 50, 60, 70 back
    CHECK(d.log[2] == std::pair{full + 5 * w, std::size_t{1}});  // all but 125's back
    // At 200 ns: 125's and 160's counted in as the next one left; that one on its way.
    CHECK(d.log[3] == std::pair{full + 7 * w, std::size_t{1}});
    CHECK(chain.fabric.next_credit(chain.up).at == Time::from_ns(250));
}
