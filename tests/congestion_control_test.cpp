#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "support.hpp"
#include "tools/scenario/scenario.hpp"

using namespace clustersim;
using namespace clustersim::test;

// Congestion control: DCQCN's reaction to ECN marks on a shared bottleneck.

namespace {

// Bytes each message has received by `t`, running the network up to there.
struct Stepper {
    const TestFabric f;
    Workload w;
    Simulator sim;
    Network net;
    Stepper(const FatTreeTwoLayerParams& fp, Workload work, const NetworkParams& p)
        : f(fp), w(std::move(work)), net(sim, f.topology.graph, f.routes, w, p) {
        net.start();
    }
    // The deepest egress queue now (the bottleneck's: the two flows may share a spine link or
    // meet only at the last hop, as ECMP placed them).
    std::uint64_t deepest_queue() const {
        std::uint64_t q = 0;
        for (const auto& port : net.ports()) q = std::max(q, port.queued_bytes);
        return q;
    }
    std::vector<std::uint64_t> received_by(Time t) {
        sim.run(net, t);
        std::vector<std::uint64_t> out;
        for (std::uint32_t m = 0; m < net.messages().size(); ++m)
            out.push_back(net.bytes_received(m));
        return out;
    }
};

// The sampled queue of the port into endpoint `e` after `from`, sorted; samples missing from
// the record (the port was empty) count as zero.
std::vector<std::uint64_t> sorted_queue_to(std::uint32_t e, const TestFabric& f,
                                           const SimulationResult& r, Time from, Time period) {
    const auto channels = f.topology.graph.channels();
    std::vector<std::uint64_t> q;
    for (const QueueSample& s : r.queue_samples)
        if (channels[s.channel].to == NodeRef{NodeKind::Endpoint, e} && s.at > from)
            q.push_back(s.queued_bytes);
    const auto taken = static_cast<std::size_t>((r.end_time - from).ps() / period.ps());
    q.resize(std::max(q.size(), taken), 0);
    std::sort(q.begin(), q.end());
    return q;
}

}  // namespace

TEST_CASE(
    "two DCQCN flows (the paper's parameters) through one bottleneck converge to within "
    "10 % of fair share and hold the queue near the marking band",
    "[cc][dcqcn]") {
    // NICs 0 and 1 (one leaf) send to NIC 2 (the other leaf): its downlink is the bottleneck.
    // Flow A runs alone at line rate for 0.5 ms, then flow B joins.
    Workload w;
    w.add_message(MessageSpec{.src = 0, .dst = 2, .bytes = 4'000'000'000, .start = Time::zero()});
    w.add_message(
        MessageSpec{.src = 1, .dst = 2, .bytes = 4'000'000'000, .start = Time::from_us(500)});
    NetworkParams p = ib_params();
    p.cc = DcqcnParams::paper();
    const Workload without_cc = w;
    Stepper s(small_ft2(4, 4), std::move(w), p);
    const auto before = s.received_by(Time::from_us(500));
    CHECK(before[0] > 0);
    CHECK(before[1] == 0);
    // After 20 ms of sharing, the rates over the next 2 ms, and the bottleneck's queue.
    const auto a = s.received_by(Time::from_us(20'500));
    std::uint64_t queue = 0;
    for (std::int64_t t = 20'550; t <= 22'500; t += 50) {
        (void)s.received_by(Time::from_us(static_cast<double>(t)));
        queue = std::max(queue, s.deepest_queue());
    }
    const auto b = s.received_by(Time::from_us(22'500));
    const double ra = static_cast<double>(b[0] - a[0]), rb = static_cast<double>(b[1] - a[1]);
    const double fair = (ra + rb) / 2;
    INFO("flow A " << ra / 2e-3 * 8e-9 << " Gb/s, flow B " << rb / 2e-3 * 8e-9 << " Gb/s");
    CHECK(std::abs(ra - fair) <= 0.1 * fair);
    CHECK(std::abs(rb - fair) <= 0.1 * fair);
    // The bottleneck stays busy: together they use at least 90 % of its payload rate.
    CHECK((ra + rb) / 2e-3 >= 0.9 * 400e9 / 8 * 4096 / (4096 + 26));
    CHECK(s.net.counters().cnps > 0);
    CHECK(s.net.counters().ecn_marks > 0);
    // DCQCN holds the queue near the marking band; without it the credits fill the buffers.
    Stepper plain(small_ft2(4, 4), without_cc, ib_params());
    (void)plain.received_by(Time::from_us(20'500));
    std::uint64_t full = 0;
    for (std::int64_t t = 20'550; t <= 22'500; t += 50) {
        (void)plain.received_by(Time::from_us(static_cast<double>(t)));
        full = std::max(full, plain.deepest_queue());
    }
    INFO("queue with DCQCN " << queue << " B, without " << full << " B");
    CHECK(queue <= p.ecn_kmax_bytes);
    CHECK(full > 2 * p.ecn_kmax_bytes);
}

TEST_CASE("DCQCN's reaction point follows the firmware's rules", "[cc][dcqcn]") {
    const DcqcnParams p;  // NVIDIA firmware defaults
    const Dcqcn d(p);
    const double line = 400e9;
    DcqcnState s;
    CHECK(d.rate(s, Time::zero(), line) == line);
    // First CNP: Rt keeps the line rate, Rc drops by alpha / 2 (alpha starts near 1, then gains g).
    d.on_cnp(s, Time::from_us(10), line);
    const double alpha = (1 - p.g) * std::pow(1 - p.g, 10) * p.initial_alpha + p.g;
    CHECK(s.rt_bps == line);
    CHECK(s.rc_bps == Approx(line * std::max(1 - alpha / 2, p.max_cut)));
    // A second CNP within rate_reduce_monitor_period cuts nothing (alpha still rises).
    const double rc = s.rc_bps;
    d.on_cnp(s, Time::from_us(12), line);
    CHECK(s.rc_bps == rc);
    // Bytes sent: one byte-counter step of fast recovery halves the gap to Rt; the next is
    // additive (Rt grows by R_AI) -- no timer step yet, so a CNP now leaves Rt where it is.
    d.sent(s, p.byte_counter, line);
    CHECK(s.rc_bps == Approx((line + rc) / 2));
    d.on_cnp(s, Time::from_us(20), line);
    CHECK(s.rt_bps == line);
    // After a timer step, the next CNP sets Rt to the current rate.
    const double before = d.rate(s, Time::from_us(20) + p.increase_period, line);
    d.on_cnp(s, Time::from_us(20) + p.increase_period, line);
    CHECK(s.rt_bps == Approx(before));
    // Cuts never go below half the current rate, nor below the floor.
    for (int i = 0; i < 200; ++i) d.on_cnp(s, Time::from_us(400 + 5 * i), line);
    CHECK(s.rc_bps >= p.min_bps);
}

TEST_CASE(
    "in a 64-sender incast HPCC's bottleneck queue, past the start-up burst, is at most "
    "half of DCQCN's",
    "[cc][hpcc]") {
    // 64 NICs send 8 MiB each to NIC 0 over a radix-16 fat tree of 400G Ethernet switches (PFC).
    // Both start at line rate, so the first round trip fills the shared buffer either way; what
    // differs is what follows. The bottleneck (the last hop's egress) is sampled every 5 us.
    FatTreeTwoLayerParams fp = small_ft2(16, 128);
    fp.fabric.port_buffer_bytes = 1 << 20;
    Workload w;
    for (std::uint32_t s = 1; s <= 64; ++s)
        w.add_message(
            MessageSpec{.src = s + 7, .dst = 0, .bytes = 8u << 20, .start = Time::zero()});
    auto run_with = [&](const CongestionControlParams& cc) {
        NetworkParams p = ib_params();
        p.flow_control = FlowControl::Pfc;
        p.cc = cc;
        p.sample_period = Time::from_us(5);
        const TestFabric f(fp);
        const SimulationResult r = run(f, w, p);
        REQUIRE(r.status == SimulationResult::Status::Completed);
        CHECK(r.counters.payload_delivered == w.total_bytes());
        // The bottleneck's samples after the first millisecond, p99.
        const auto q = sorted_queue_to(0, f, r, Time::from_us(1000), Time::from_us(5));
        return std::pair{q[q.size() * 99 / 100], r.end_time};
    };
    const auto [dcqcn_p99, dcqcn_end] = run_with(DcqcnParams{});
    const auto [hpcc_p99, hpcc_end] = run_with(HpccParams{});
    INFO("p99 queue: DCQCN " << dcqcn_p99 << " B, HPCC " << hpcc_p99 << " B; makespan "
                             << dcqcn_end.us() << " / " << hpcc_end.us() << " us");
    CHECK(hpcc_p99 * 2 <= dcqcn_p99);
    // And HPCC keeps the link busy: within 20 % of 64 x 8 MiB at the payload rate.
    CHECK(hpcc_end.us() <= 1.2 * (64.0 * (8 << 20) / (400e9 / 8 * 4096 / 4122)) * 1e6);
}

TEST_CASE("Swift holds an incast's bottleneck queue near its target delay", "[cc][swift]") {
    // 8 NICs send 8 MiB each to NIC 0 (radix-16 fat tree, PFC). Without congestion control the
    // last hop's queue fills the shared buffer; Swift keeps the round trip, and so the queue,
    // near 20 us x 50 GB/s = 1 MB.
    Workload w;
    for (std::uint32_t s = 8; s < 16; ++s)
        w.add_message(MessageSpec{.src = s, .dst = 0, .bytes = 8u << 20, .start = Time::zero()});
    auto median_queue = [&](const CongestionControlParams& cc, Time& end) {
        NetworkParams p = ib_params();
        p.flow_control = FlowControl::Pfc;
        p.cc = cc;
        p.sample_period = Time::from_us(5);
        const TestFabric f(small_ft2(16, 128));
        const SimulationResult r = run(f, w, p);
        REQUIRE(r.status == SimulationResult::Status::Completed);
        CHECK(r.counters.payload_delivered == w.total_bytes());
        end = r.end_time;
        const auto q = sorted_queue_to(0, f, r, Time::from_us(200), Time::from_us(5));
        return q[q.size() / 2];
    };
    Time plain_end, swift_end;
    const std::uint64_t plain = median_queue(std::monostate{}, plain_end);
    const std::uint64_t swift = median_queue(SwiftParams{}, swift_end);
    INFO("median queue " << plain << " B without, " << swift << " B with Swift; " << plain_end.us()
                         << " / " << swift_end.us() << " us");
    const double target_bytes = 20e-6 * 400e9 / 8;
    CHECK(static_cast<double>(swift) <= 1.5 * target_bytes);
    CHECK(plain > 4 * swift);
    CHECK(swift_end.us() <= 1.15 * plain_end.us());
}

TEST_CASE(
    "TIMELY's two thresholds act as the paper says: RTTs above T_high cut the rate, "
    "below T_low it only grows",
    "[cc][timely]") {
    // 8 NICs send 8 MiB each to NIC 0: the last hop's queue makes the RTT hundreds of us.
    Workload w;
    for (std::uint32_t s = 8; s < 16; ++s)
        w.add_message(MessageSpec{.src = s, .dst = 0, .bytes = 8u << 20, .start = Time::zero()});
    auto end_time = [&](const CongestionControlParams& cc, std::uint64_t& acks) {
        NetworkParams p = ib_params();
        p.cc = cc;
        const TestFabric f(small_ft2(16, 128));
        const SimulationResult r = run(f, w, p);
        REQUIRE(r.status == SimulationResult::Status::Completed);
        CHECK(r.counters.payload_delivered == w.total_bytes());
        acks = r.counters.acks;
        return r.end_time;
    };
    TimelyParams cut, never_cut;
    cut.t_low = Time::from_us(5);
    cut.t_high = Time::from_us(30);
    never_cut.t_low = Time::from_us(100000);  // every RTT below T_low: additive increase only
    never_cut.t_high = Time::from_us(200000);
    std::uint64_t acks_none = 0, acks_cut = 0, acks_never = 0;
    const Time plain = end_time(std::monostate{}, acks_none);
    const Time with_cuts = end_time(cut, acks_cut);
    const Time without_cuts = end_time(never_cut, acks_never);
    INFO("makespan " << plain.us() << " us without, " << with_cuts.us() << " us at T_high 30 us, "
                     << without_cuts.us() << " us with T_low above every RTT");
    CHECK(acks_cut > 0);  // its RTT probes come back on ACKs
    // At line rate from the start and never cut: as fast as no control, but for its ACKs.
    CHECK(without_cuts.us() < 1.05 * plain.us());
    CHECK(with_cuts.us() > 1.05 * plain.us());  // cut below the bottleneck's share

    // The scenario keys reach the algorithm: its row parses them, defaults from its KeySpecs.
    const Scenario sc = load_scenario_text(
        "topology: {kind: ft2, switch_radix: 8}\n"
        "network: {congestion_control: timely, timely_t_high_us: 30}\n",
        "timely.yaml", {});
    REQUIRE(std::holds_alternative<TimelyParams>(sc.network.cc));
    CHECK(std::get<TimelyParams>(sc.network.cc).t_high == Time::from_us(30));
    CHECK(std::get<TimelyParams>(sc.network.cc).t_low == Time::from_us(50));
}
