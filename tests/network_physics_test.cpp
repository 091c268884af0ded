#include <catch2/catch.hpp>

#include <numeric>

#include "support.hpp"
#include "traffic/patterns.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

Workload one_message(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
    Workload w;
    w.add_message(MessageSpec{.src = src, .dst = dst, .bytes = bytes, .start = Time::zero()});
    return w;
}

double seconds(Time t) {
    return t.seconds();
}

}  // namespace

TEST_CASE("one message over one switch takes serialisation + propagation + switch latency",
          "[physics]") {
    // Two endpoints on one leaf: endpoint -> link -> switch -> link -> endpoint.
    const TestFabric f(small_ft2(4, 2));
    const NetworkParams p = ib_params();
    for (std::uint64_t bytes : {64ull, 4096ull, 100'000ull, 1ull << 20}) {
        const SimulationResult r = run(f, one_message(0, 1, bytes), p);
        REQUIRE(r.status == SimulationResult::Status::Completed);
        const std::uint64_t packets = (bytes + p.mtu_bytes - 1) / p.mtu_bytes;
        const double rate = 400e9;
        const double wire_s = static_cast<double>(bytes + packets * p.header_bytes) * 8 / rate;
        const double expected_s = wire_s + 2 * 50e-9 + 400e-9;
        const double packet_s = (p.mtu_bytes + p.header_bytes) * 8 / rate;
        const double measured_s = seconds(r.messages[0].finished - r.messages[0].started);
        INFO("bytes " << bytes << " measured " << measured_s * 1e6 << " us, expected "
                      << expected_s * 1e6);
        CHECK(measured_s >= expected_s);
        CHECK(measured_s <= expected_s + packet_s);
    }
}

TEST_CASE("a cross-leaf message adds two links and two switches to the path", "[physics]") {
    const TestFabric f(small_ft2(4, 4));  // 2 leaves of 2 endpoints, spines above
    const NetworkParams p = ib_params();
    const SimulationResult same = run(f, one_message(0, 1, 64), p);
    const SimulationResult cross = run(f, one_message(0, 2, 64), p);
    const double pkt_s = (64.0 + p.header_bytes) * 8 / 400e9;
    const double extra = seconds(cross.messages[0].finished) - seconds(same.messages[0].finished);
    CHECK(extra == Approx(2 * (50e-9 + 400e-9 + pkt_s)).epsilon(1e-6));
}

TEST_CASE("a single long flow reaches at least 97% of line rate after headers", "[physics]") {
    const TestFabric f(small_ft2(8, 16));
    const NetworkParams p = ib_params();
    const std::uint64_t bytes = 64ull << 20;
    const SimulationResult r = run(f, one_message(0, 15, bytes), p);  // crosses the spine
    REQUIRE(r.status == SimulationResult::Status::Completed);
    const double goodput_bps =
        static_cast<double>(bytes) * 8 / seconds(r.messages[0].finished - r.messages[0].started);
    const double payload_line_rate = 400e9 * p.mtu_bytes / (p.mtu_bytes + p.header_bytes);
    CHECK(goodput_bps >= 0.97 * payload_line_rate);
    CHECK(goodput_bps <= payload_line_rate);
}

TEST_CASE("flows into one port share it within 5% of fair", "[physics]") {
    // One leaf of 16 endpoints: every sender enters the switch on its own input, and the
    // receiver's port serves its inputs in turn. (Flows that share an input share its turn,
    // as on InfiniBand; that is per-input, not per-flow, fairness.)
    const TestFabric f(small_ft2(32, 16));
    const NetworkParams p = ib_params();
    for (std::uint32_t senders : {2u, 5u, 12u}) {
        PatternParams pp;
        pp.endpoints = 16;
        pp.message_bytes = 32ull << 20;  // long enough that nobody finishes in the window
        const Workload w = incast(pp, 3, senders);
        // Stop half-way through and compare what each sender has delivered so far.
        const double ideal_s = static_cast<double>(senders) * pp.message_bytes * 8 / 400e9;
        const SimulationResult r = run(f, w, p, Time::from_us(ideal_s * 0.5e6));
        std::vector<double> got;
        for (std::uint32_t m = 0; m < r.messages.size(); ++m)
            got.push_back(static_cast<double>(r.bytes_received(m, w.messages[m].bytes)));
        const double mean = std::accumulate(got.begin(), got.end(), 0.0) / got.size();
        INFO(senders << " senders");
        for (double g : got) CHECK(std::abs(g - mean) <= 0.05 * mean);
        // And together they fill the bottleneck.
        const double total_bps = mean * senders * 8 / (ideal_s * 0.5);
        CHECK(total_bps >= 0.95 * 400e9 * p.mtu_bytes / (p.mtu_bytes + p.header_bytes));
    }
}

TEST_CASE("bytes sent equal bytes delivered plus bytes dropped", "[physics]") {
    const TestFabric f(small_ft2(8, 16));
    PatternParams pp;
    pp.endpoints = 16;
    pp.message_bytes = 1 << 20;
    SECTION("lossless all-to-all delivers everything and drops nothing") {
        const SimulationResult r = run(f, all_to_all(pp));
        REQUIRE(r.status == SimulationResult::Status::Completed);
        CHECK(r.counters.payload_dropped == 0);
        CHECK(r.counters.payload_sent == r.counters.payload_delivered);
        CHECK(r.counters.payload_delivered == 16ull * 15 * pp.message_bytes);
    }
    SECTION("lossy incast with small buffers drops, and every byte is accounted for") {
        NetworkParams p = ib_params();
        p.flow_control = FlowControl::Lossy;
        FatTreeTwoLayerParams fp = small_ft2(8, 16);
        fp.fabric.port_buffer_bytes = 64 * 1024;
        const TestFabric lossy(fp);
        const SimulationResult r = run(lossy, incast(pp, 0, 15), p);
        CHECK(r.counters.payload_dropped > 0);
        CHECK(r.counters.payload_sent == r.counters.payload_delivered + r.counters.payload_dropped +
                                             r.counters.payload_redundant + r.payload_in_flight);
        // Retransmission recovers every drop: each byte delivered once.
        REQUIRE(r.status == SimulationResult::Status::Completed);
        CHECK(r.counters.payload_delivered == 15ull * pp.message_bytes);
        CHECK(r.counters.retransmitted_packets > 0);
    }
    SECTION("a run cut short by the time limit counts what is still in flight") {
        const SimulationResult r = run(f, all_to_all(pp), ib_params(), Time::from_us(20));
        CHECK(r.status == SimulationResult::Status::TimeLimit);
        CHECK(r.payload_in_flight > 0);
        CHECK(r.counters.payload_sent ==
              r.counters.payload_delivered + r.counters.payload_dropped + r.payload_in_flight);
    }
}

TEST_CASE("lossless credits bound every queue by the buffers feeding it and never drop",
          "[physics]") {
    FatTreeTwoLayerParams fp = small_ft2(8, 16);
    fp.fabric.port_buffer_bytes = 32 * 1024;
    const TestFabric f(fp);
    PatternParams pp;
    pp.endpoints = 16;
    pp.message_bytes = 4 << 20;
    const SimulationResult r = run(f, incast(pp, 0, 15));
    REQUIRE(r.status == SimulationResult::Status::Completed);
    CHECK(r.counters.payload_dropped == 0);
    // The receiver's port is fed by the leaf's other inputs: 3 endpoints + 4 uplinks (radix 8).
    CHECK(r.max_queue_bytes <= 7ull * fp.fabric.port_buffer_bytes);
    // Credits slow senders but the bottleneck stays busy: incast completes near N x S / B.
    const double ideal_s = 15.0 * pp.message_bytes * 8 / (400e9 * 4096 / 4122);
    CHECK(r.end_time.seconds() <= ideal_s * 1.03);
    CHECK(r.end_time.seconds() >= ideal_s);
}

TEST_CASE("ECMP spreads many flows over all uplinks and keeps one flow on one path",
          "[physics][routing]") {
    // Radix 16: 8 endpoints and 8 uplinks per leaf; 4 leaves.
    const TestFabric f(small_ft2(16, 32));
    const auto channels = f.topology.graph.channels();
    auto uplinks_of_leaf = [&](std::uint32_t leaf) {
        std::vector<std::uint32_t> ups;
        const NodeRef n{NodeKind::Switch, leaf};
        for (std::uint32_t c = f.topology.graph.first_channel(n);
             c < f.topology.graph.first_channel(n) + f.topology.graph.channels_of(n); ++c)
            if (channels[c].to.kind == NodeKind::Switch) ups.push_back(c);
        return ups;
    };
    SECTION("one flow uses exactly one uplink") {
        Workload w;
        w.add_message(MessageSpec{.src = 0, .dst = 31, .bytes = 8 << 20, .start = Time::zero()});
        const SimulationResult r = run(f, w);
        int used = 0;
        for (std::uint32_t c : uplinks_of_leaf(0)) used += r.channels[c].bytes > 0;
        CHECK(used == 1);
    }
    SECTION("many flows from one leaf use every uplink") {
        Workload w;
        // 8 sources x 24 off-leaf destinations = 192 flows out of leaf 0.
        for (std::uint32_t s = 0; s < 8; ++s)
            for (std::uint32_t d = 8; d < 32; ++d)
                w.add_message(
                    MessageSpec{.src = s, .dst = d, .bytes = 64 * 1024, .start = Time::zero()});
        const SimulationResult r = run(f, w);
        const auto ups = uplinks_of_leaf(0);
        REQUIRE(ups.size() == 8);
        std::uint64_t total = 0, most = 0;
        for (std::uint32_t c : ups) {
            CHECK(r.channels[c].bytes > 0);
            total += r.channels[c].bytes;
            most = std::max(most, r.channels[c].bytes);
        }
        // Balls into bins: 192 flows over 8 links, the fullest carries well under twice the mean.
        CHECK(static_cast<double>(most) < 2.0 * static_cast<double>(total) / 8);
    }
    SECTION("the ECMP choice depends on the seed's per-switch salt") {
        Workload w;
        for (std::uint32_t s = 0; s < 8; ++s)
            w.add_message(
                MessageSpec{.src = s, .dst = 8 + s, .bytes = 64 * 1024, .start = Time::zero()});
        NetworkParams a = ib_params(), b = ib_params();
        b.seed = 99;
        const SimulationResult ra = run(f, w, a), rb = run(f, w, b);
        bool differs = false;
        for (std::uint32_t c : uplinks_of_leaf(0))
            differs |= ra.channels[c].bytes != rb.channels[c].bytes;
        CHECK(differs);
    }
}

TEST_CASE("a message that depends on others starts only after they are received",
          "[physics][dag]") {
    const TestFabric f(small_ft2(8, 16));
    Workload w;
    const auto a =
        w.add_message(MessageSpec{.src = 0, .dst = 5, .bytes = 1 << 20, .start = Time::zero()});
    const auto b =
        w.add_message(MessageSpec{.src = 1, .dst = 5, .bytes = 2 << 20, .start = Time::zero()});
    const auto c = w.add_message(MessageSpec{.src = 5, .dst = 9, .bytes = 1 << 20});
    w.start_after(c, {a, b}, Time::from_us(3));
    const SimulationResult r = run(f, w);
    REQUIRE(r.status == SimulationResult::Status::Completed);
    const Time last_dep = std::max(r.messages[a].finished, r.messages[b].finished);
    CHECK(r.messages[c].started == last_dep + Time::from_us(3));
}

TEST_CASE(
    "a one-packet input buffer paces a flow at one packet per serialisation, two "
    "propagation delays and the switch latency (credits return over the link)",
    "[physics][credits]") {
    FatTreeTwoLayerParams fp = small_ft2(4, 2);
    const NetworkParams p = ib_params();
    const std::uint32_t wire = p.mtu_bytes + p.header_bytes;
    fp.fabric.port_buffer_bytes = wire;  // room for exactly one packet per input
    fp.fabric.link_delay = Time::from_ns(1000);
    const TestFabric f(fp);
    const std::uint64_t packets = 32;
    const SimulationResult r = run(f, one_message(0, 1, packets * p.mtu_bytes), p);
    REQUIRE(r.status == SimulationResult::Status::Completed);
    // The sender may send packet k+1 only when packet k's credit is back: it arrives at the
    // switch after s + d + L, leaves at once (idle output) and its credit travels d back.
    const double s = wire * 8 / 400e9, d = 1000e-9, L = 400e-9;
    const double cycle = s + 2 * d + L;
    const double expected = static_cast<double>(packets - 1) * cycle + (s + d + L + s + d);
    const double measured = seconds(r.messages[0].finished - r.messages[0].started);
    CHECK(measured == Approx(expected).epsilon(1e-6));
}

TEST_CASE(
    "a NIC serves its messages round-robin from the first packet: equal messages to idle "
    "receivers finish one packet time apart",
    "[physics][nic]") {
    const TestFabric f(small_ft2(8, 8));
    const NetworkParams p = ib_params();
    Workload w;
    const std::uint64_t bytes = 64 * p.mtu_bytes;
    for (std::uint32_t dst = 1; dst <= 3; ++dst)
        w.add_message(MessageSpec{.src = 0, .dst = dst, .bytes = bytes, .start = Time::zero()});
    const SimulationResult r = run(f, w, p);
    REQUIRE(r.status == SimulationResult::Status::Completed);
    const double packet_s = (p.mtu_bytes + p.header_bytes) * 8 / 400e9;
    Time first = Time::never(), last = Time::zero();
    for (const auto& m : r.messages) {
        first = std::min(first, m.finished);
        last = std::max(last, m.finished);
    }
    // Fair from the first packet: the three last packets leave back to back, so the messages
    // finish one packet time apart (one at a time would take 64 packet times each).
    const double e0 = seconds(r.messages[0].finished), e1 = seconds(r.messages[1].finished),
                 e2 = seconds(r.messages[2].finished);
    CHECK(e1 - e0 == Approx(packet_s).epsilon(1e-6));
    CHECK(e2 - e1 == Approx(packet_s).epsilon(1e-6));
    // Together they take three messages' worth of the NIC's line.
    CHECK(seconds(last) >= 3 * 64 * packet_s);
}

TEST_CASE("tail drop counts header bytes: a buffer one byte short of two wire packets holds one",
          "[physics][lossy]") {
    // Three senders on one leaf each send one packet to a fourth at the same instant: the first
    // leaves at once, the other two wait in the output queue. Two queued wire packets exceed
    // the buffer by a byte (two payloads alone would fit), so one of them is dropped.
    FatTreeTwoLayerParams fp = small_ft2(8, 4);
    NetworkParams p = ib_params();
    p.flow_control = FlowControl::Lossy;
    fp.fabric.port_buffer_bytes = 2 * (p.mtu_bytes + p.header_bytes) - 1;
    const TestFabric f(fp);
    Workload w;
    for (std::uint32_t src = 1; src <= 3; ++src)
        w.add_message(
            MessageSpec{.src = src, .dst = 0, .bytes = p.mtu_bytes, .start = Time::zero()});
    const SimulationResult r = run(f, w, p);
    CHECK(r.counters.packets_dropped == 1);
    CHECK(r.counters.payload_dropped == p.mtu_bytes);
    fp.fabric.port_buffer_bytes += 1;
    const SimulationResult fits = run(TestFabric(fp), w, p);
    CHECK(fits.counters.packets_dropped == 0);
}

TEST_CASE("virtual lanes share a link round-robin: two flows on different lanes get equal shares",
          "[physics][lanes]") {
    // A line of three switches, one endpoint on each. A (on s0) -> C (on s2) reaches the s1->s2
    // link after one switch-to-switch hop (lane 1); B (on s1) -> C starts there (lane 0).
    Topology t;
    t.kind = "line";
    PortGraph& g = t.graph;
    for (int i = 0; i < 3; ++i) g.add_switch(SwitchInfo{0, 8, Time::from_ns(400), 1 << 20});
    g.set_endpoint_count(3);
    const DataRate rate = DataRate::from_gbps(400);
    const Time delay = Time::from_ns(50);
    for (std::uint32_t i = 0; i < 3; ++i)
        g.add_cable({NodeKind::Endpoint, i}, {NodeKind::Switch, i}, rate, delay);
    g.add_cable({NodeKind::Switch, 0}, {NodeKind::Switch, 1}, rate, delay);
    g.add_cable({NodeKind::Switch, 1}, {NodeKind::Switch, 2}, rate, delay);
    g.finalize();
    const ForwardingTables routes = shortest_path_routes(g);
    NetworkParams p = ib_params();
    p.virtual_lanes = 2;
    Workload w;
    const std::uint64_t bytes = 256 * p.mtu_bytes;
    w.add_message(MessageSpec{.src = 0, .dst = 2, .bytes = bytes, .start = Time::zero()});
    w.add_message(MessageSpec{.src = 1, .dst = 2, .bytes = bytes, .start = Time::zero()});
    const SimulationResult r = simulate(t.graph, routes, w, p, SimulationOptions{});
    REQUIRE(r.status == SimulationResult::Status::Completed);
    const double a = seconds(r.messages[0].finished), b = seconds(r.messages[1].finished);
    // Sharing the link, each gets half of it: both end near twice one message's time.
    const double alone = static_cast<double>(bytes + 256 * p.header_bytes) * 8 / 400e9;
    CHECK(std::abs(a - b) <= 0.03 * std::max(a, b));
    CHECK(std::min(a, b) >= 1.9 * alone);
}

TEST_CASE(
    "cut-through: a 4 KiB packet across a cross-leaf path pays one full serialisation plus, "
    "per switch, its header's serialisation and the switch latency",
    "[physics][cut-through]") {
    FatTreeTwoLayerParams fp = small_ft2(4, 4);  // endpoint 0 on leaf 0, endpoint 2 on leaf 1
    const NetworkParams p = ib_params();
    const double s = (p.mtu_bytes + p.header_bytes) * 8 / 400e9, h = p.header_bytes * 8 / 400e9;
    const double prop = 50e-9, L = 400e-9;
    fp.fabric.cut_through = true;
    const SimulationResult ct = run(TestFabric(fp), one_message(0, 2, p.mtu_bytes), p);
    CHECK(seconds(ct.messages[0].finished) == Approx(s + 4 * prop + 3 * (h + L)).epsilon(1e-6));
    fp.fabric.cut_through = false;
    const SimulationResult saf = run(TestFabric(fp), one_message(0, 2, p.mtu_bytes), p);
    CHECK(seconds(saf.messages[0].finished) == Approx(4 * s + 4 * prop + 3 * L).epsilon(1e-6));
}

TEST_CASE("cut-through falls back to store-and-forward into an output faster than the input",
          "[physics][cut-through]") {
    // Endpoints on 100G links, switches joined at 400G: the first switch's input is slower than
    // its uplink, so it stores and forwards; the second (400G in, 100G out) cuts through.
    Topology t;
    PortGraph& g = t.graph;
    for (int i = 0; i < 2; ++i) g.add_switch(SwitchInfo{0, 8, Time::from_ns(400), 1 << 20, true});
    g.set_endpoint_count(2);
    const DataRate slow = DataRate::from_gbps(100), fast = DataRate::from_gbps(400);
    const Time prop = Time::from_ns(50);
    g.add_cable({NodeKind::Endpoint, 0}, {NodeKind::Switch, 0}, slow, prop);
    g.add_cable({NodeKind::Endpoint, 1}, {NodeKind::Switch, 1}, slow, prop);
    g.add_cable({NodeKind::Switch, 0}, {NodeKind::Switch, 1}, fast, prop);
    g.finalize();
    const ForwardingTables routes = shortest_path_routes(g);
    const NetworkParams p = ib_params();
    const SimulationResult r =
        simulate(t.graph, routes, one_message(0, 1, p.mtu_bytes), p, SimulationOptions{});
    REQUIRE(r.status == SimulationResult::Status::Completed);
    const double wire = p.mtu_bytes + p.header_bytes;
    const double s100 = wire * 8 / 100e9, h400 = p.header_bytes * 8 / 400e9;
    // 100G in full (store and forward at switch 0), 400G header only (cut through at switch 1),
    // then the 100G last link in full.
    const double expected =
        s100 + prop.seconds() + 400e-9 + h400 + prop.seconds() + 400e-9 + s100 + prop.seconds();
    CHECK(seconds(r.messages[0].finished) == Approx(expected).epsilon(1e-6));
}

TEST_CASE("sender-ack completion adds the ACK's trip back to the receiver's completion",
          "[physics][transport]") {
    const TestFabric f(small_ft2(4, 4));  // NICs 0 and 3 on different leaves
    Workload w;
    w.add_message(MessageSpec{.src = 0, .dst = 3, .bytes = 1 << 20, .start = Time::zero()});
    NetworkParams p = ib_params();
    const SimulationResult at_receiver = run(f, w, p);
    p.complete_on_ack = true;
    const SimulationResult at_sender = run(f, w, p);
    REQUIRE(at_sender.status == SimulationResult::Status::Completed);
    // The last ACK (header bytes only) crosses four links and three switches back (leaf, spine,
    // leaf): 50 ns per link, 400 ns per switch, its 26 header bytes stored and forwarded at
    // 400 Gb/s on each link.
    const auto path = walk(f, 3, 0);
    const double ack_us = (4 * 50 + 3 * 400 + 4 * 26 * 8 / 400.0) / 1000.0;
    const double extra = (at_sender.messages[0].finished - at_receiver.messages[0].finished).us();
    CHECK(path.switches == 3);
    CHECK(extra == Approx(ack_us).epsilon(0.02));
}
