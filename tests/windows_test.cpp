#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "models/fabric/fabric.hpp"
#include "sim/partitioned_pool.hpp"
#include "sim/simulator.hpp"
#include "support.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

// Processes 0 and 1 in partition 0, 2 and 3 in partition 1, the observer (4) apart; 100 ps of
// lookahead. Kind 1 bounces to process (p + 2) % 4 -- the other partition -- 100 ps later,
// `hops` times; kind 2 (the observer's) records the time; kind 3 asks for a stop.
struct Bouncer {
    Simulator* sim;
    std::vector<std::tuple<std::int64_t, std::uint32_t, std::uint32_t>>
        seen;  // time, process, target
    std::uint32_t windows = 0;
    std::uint32_t hops = 6;
    void handle(const Event& e) {
        seen.emplace_back(e.time.ps(), sim->current_process(), e.target);
        if (e.kind == 1 && e.target < hops)
            sim->schedule(e.time + Time::from_ps(100), e.target + 1, 1, (e.process + 2) % 4);
        if (e.kind == 3) sim->request_stop();
    }
    void end_window() { ++windows; }
};

std::vector<std::uint32_t> two_partitions() {
    return {0, 0, 1, 1, 2};
}

using Seen = std::vector<std::tuple<std::int64_t, std::uint32_t, std::uint32_t>>;

// The (time, process, target) records of one process, in the order they ran.
Seen of_process(const Seen& seen, std::uint32_t process) {
    Seen out;
    for (const auto& s : seen)
        if (std::get<1>(s) == process) out.push_back(s);
    return out;
}

}  // namespace

TEST_CASE(
    "windows run every partition's events in time order per process, with the plain "
    "loop's order and digest",
    "[sim][windows]") {
    auto run = [](bool windowed, std::uint64_t& fingerprint) {
        Simulator sim;
        sim.set_processes(4);
        if (windowed) sim.set_partitions(two_partitions(), 2, Time::from_ps(100));
        Bouncer b{&sim, {}};
        sim.schedule(Time::from_ps(0), 0, 1, 0);
        sim.schedule(Time::from_ps(30), 10, 1, 1);   // target >= hops: no bounce
        sim.schedule(Time::from_ps(130), 20, 1, 3);  // partition 1, inside the second window
        sim.schedule(Time::from_ps(250), 99, 2, 4);  // the observer
        CHECK(sim.run_fingerprinted(b, Time::never(), [](const Simulator&) {}) ==
              StopReason::QueueEmpty);
        fingerprint = sim.fingerprint();
        CHECK(sim.now() == Time::from_ps(600));  // the last event's time, not a partition's
        return b;
    };
    std::uint64_t plain = 0, windowed = 0;
    const Bouncer a = run(false, plain);
    const Bouncer w = run(true, windowed);
    CHECK(plain == windowed);
    // Per process the same events in the same order.
    for (std::uint32_t p = 0; p <= 4; ++p) CHECK(of_process(a.seen, p) == of_process(w.seen, p));
    // Within a window partition 0 runs before partition 1: time 30 (partition 0) is handled
    // after 0 and before 100 (partition 1), and 130 (partition 1) after 100 -- a window is
    // [first pending, +100 ps). The observer's 250 comes between 200 and 300.
    std::vector<std::int64_t> times;
    for (const auto& s : w.seen) times.push_back(std::get<0>(s));
    CHECK(times == std::vector<std::int64_t>{0, 30, 100, 130, 200, 250, 300, 400, 500, 600});
    CHECK(w.windows >= 6);
}

TEST_CASE(
    "the observer runs after every partition's events at its time, and a stop asked inside a "
    "window takes effect at its end",
    "[sim][windows]") {
    Simulator sim;
    sim.set_processes(4);
    sim.set_partitions(two_partitions(), 2, Time::from_ps(100));
    Bouncer b{&sim, {}};
    b.hops = 0;
    sim.schedule(Time::from_ps(50), 7, 2, 4);   // the observer at 50
    sim.schedule(Time::from_ps(50), 1, 0, 3);   // partition 1 at 50: before the observer
    sim.schedule(Time::from_ps(10), 2, 3, 0);   // partition 0 at 10: asks for a stop
    sim.schedule(Time::from_ps(40), 3, 0, 2);   // partition 1 at 40: in the same window, runs
    sim.schedule(Time::from_ps(150), 4, 0, 2);  // a later window: never runs
    CHECK(sim.run(b) == StopReason::Requested);
    std::vector<std::uint32_t> targets;
    for (const auto& s : b.seen) targets.push_back(std::get<2>(s));
    // The window ends at the observer's time (50, inclusive); the stop holds the observer too.
    CHECK(targets == std::vector<std::uint32_t>{2, 3, 1});
}

TEST_CASE(
    "partitions that no channel joins (lookahead never) run to the observer's next event, "
    "with the plain loop's order",
    "[sim][windows]") {
    // Each process's events bounce inside its own partition (p ^ 1), as two pods of a fabric
    // that no cable joins. A window's end once overflowed here and the loop never ended: the
    // ctest TIMEOUT makes that a failure.
    struct Local {
        Simulator* sim;
        Seen seen;
        std::uint64_t windows = 0;
        void handle(const Event& e) {
            seen.emplace_back(e.time.ps(), sim->current_process(), e.target);
            if (e.kind == 1 && e.target < 6)
                sim->schedule(e.time + Time::from_ps(100), e.target + 1, 1, e.process ^ 1u);
        }
    };
    auto run = [](bool windowed) {
        Simulator sim;
        sim.set_processes(4);
        if (windowed) sim.set_partitions(two_partitions(), 2, Time::never());
        Local l{&sim, {}};
        sim.schedule(Time::from_ps(0), 0, 1, 0);
        sim.schedule(Time::from_ps(30), 0, 1, 2);
        sim.schedule(Time::from_ps(250), 99, 2, 4);  // the observer
        sim.schedule(Time::from_ps(1000), 98, 2, 4);
        CHECK(sim.run(l) == StopReason::QueueEmpty);
        CHECK(sim.now() == Time::from_ps(1000));
        l.windows = sim.windows_run();
        return l;
    };
    const Local plain = run(false), windowed = run(true);
    REQUIRE(windowed.seen.size() == 16);
    for (std::uint32_t p = 0; p <= 4; ++p)
        CHECK(of_process(plain.seen, p) == of_process(windowed.seen, p));
    // One window of the partitions to each observer event (to 250 ps, then to 1,000 ps).
    CHECK(windowed.windows == 2);
}

TEST_CASE("a window stops at the time limit", "[sim][windows]") {
    Simulator sim;
    sim.set_processes(4);
    sim.set_partitions(two_partitions(), 2, Time::from_ps(100));
    Bouncer b{&sim, {}};
    sim.schedule(Time::from_ps(0), 0, 1, 0);
    CHECK(sim.run(b, Time::from_ps(250)) == StopReason::TimeLimit);
    CHECK(b.seen.size() == 3);  // 0, 100, 200
    CHECK(sim.now() == Time::from_ps(250));
    CHECK(sim.run(b) == StopReason::QueueEmpty);
    CHECK(b.seen.size() == 7);
}

TEST_CASE("partitions are set before anything is scheduled, the observer apart", "[sim][windows]") {
    Simulator sim;
    sim.set_processes(4);
    CHECK_THROWS_AS(sim.set_partitions(std::vector<std::uint32_t>{0, 0, 1, 1}, 2, Time::from_ps(1)),
                    std::invalid_argument);
    CHECK_THROWS_AS(
        sim.set_partitions(std::vector<std::uint32_t>{0, 0, 1, 1, 1}, 2, Time::from_ps(1)),
        std::invalid_argument);
    CHECK_THROWS_AS(sim.set_partitions(two_partitions(), 2, Time{}), std::invalid_argument);
    sim.schedule(Time::from_ps(1), 0, 0, 0);
    CHECK_THROWS_AS(sim.set_partitions(two_partitions(), 2, Time::from_ps(1)), std::logic_error);
}

#ifndef NDEBUG
TEST_CASE("debug builds refuse an event for another partition inside the window",
          "[sim][windows]") {
    struct TooSoon {
        Simulator* sim;
        void handle(const Event& e) {
            if (e.kind == 1) sim->schedule(e.time + Time::from_ps(99), 0, 0, 2);
        }
    };
    Simulator sim;
    sim.set_processes(4);
    sim.set_partitions(two_partitions(), 2, Time::from_ps(100));
    TooSoon t{&sim};
    sim.schedule(Time::from_ps(0), 0, 1, 0);
    CHECK_THROWS_AS(sim.run(t), std::logic_error);
}
#endif

namespace {

// Every endpoint sends to every other (16 KiB) on a fabric small enough to test and large
// enough to cut; returns each message's finish time.
std::vector<Time> finish_times(const TestFabric& f, const NetworkParams& p, std::uint32_t wanted,
                               std::uint32_t& partitions, std::uint32_t threads = 1,
                               std::uint64_t* fingerprint = nullptr) {
    Workload w;
    const std::uint32_t n = f.topology.graph.endpoint_count();
    for (std::uint32_t s = 0; s < n; ++s)
        for (std::uint32_t d = 0; d < n; ++d)
            if (s != d) w.add_message({s, d, 32 * 1024, Time{}});
    SimulationOptions o;
    o.partitions = wanted;
    o.threads = threads;
    o.fingerprint = fingerprint != nullptr;
    const SimulationResult r = simulate(f.topology.graph, f.routes, w, p, o);
    REQUIRE(r.status == SimulationResult::Status::Completed);
    partitions = r.partitions;
    if (fingerprint) *fingerprint = *r.fingerprint;
    CHECK(r.counters.packet_hops > 0);
    CHECK(r.counters.messages_finished == w.messages.size());
    std::vector<Time> out;
    for (const MessageState& m : r.messages) out.push_back(m.finished);
    return out;
}

}  // namespace

TEST_CASE(
    "a run cut into partitions gives the one-partition run's results: credits handed over "
    "at a window's end wake a port where they would have",
    "[windows][network]") {
    // Buffers of four packets (per lane): credits run out, ports wait for those handed over.
    auto compare = [](std::uint32_t lanes) {
        FatTreeTwoLayerParams ft = small_ft2(16, 32);
        ft.fabric.port_buffer_bytes = lanes * 2 * (4096 + 26);
        ft.fabric.cut_through = true;  // arrivals in step: ties at queues
        const TestFabric f(ft);
        NetworkParams p = ib_params();
        p.virtual_lanes = lanes;
        std::uint32_t one = 0, cut = 0, fine = 0;
        const auto a = finish_times(f, p, 1, one);
        const auto b = finish_times(f, p, 0, cut);
        CHECK(one == 1);
        CHECK(cut > 1);
        CHECK(a == b);
        // Cut finer than the default (sim.partitions), as many cores would want: the same.
        const auto c = finish_times(f, p, 8, fine);
        CHECK(fine == 8);
        CHECK(a == c);
    };
    SECTION("one lane") {
        compare(1);
    }
    SECTION("two lanes") {
        compare(2);
    }
    SECTION("Dragonfly, three lanes: a lane with credit goes while another waits for it") {
        // Packets of different hop counts share a port on different lanes; a port holding a
        // wake-up for one lane's credit must serve another that has credit (Fabric::may_serve),
        // else a credit handed over at a window's end frees it sooner than one returned within.
        TopologyRequest r;
        r.kind = "dragonfly";
        r.fabric.switch_radix = 8;
        r.fabric.port_buffer_bytes = 16 * 1024;
        r.dragonfly_a = 4;
        r.dragonfly_p = 2;
        r.dragonfly_h = 2;
        r.dragonfly_g = 9;
        TestFabric f(small_ft2(8, 8));
        f.topology = build_topology(r);
        f.routes = shortest_path_routes(f.topology.graph);
        REQUIRE(f.topology.virtual_lanes == 3);
        NetworkParams p = ib_params();
        p.virtual_lanes = 3;
        std::uint32_t one = 0, cut = 0;
        const auto a = finish_times(f, p, 1, one);
        const auto b = finish_times(f, p, 0, cut);
        CHECK(cut > 1);
        CHECK(a == b);
    }
}

TEST_CASE("a credit over a cut channel reaches the upstream port only when the window ends",
          "[windows][fabric]") {
    // Switch 0 feeds switch 1 over channel c (cut); a packet that came over c leaves switch 1:
    // its credit is returned over c, but only at the window's end (Fabric::end_window).
    SwitchInfo sw;
    sw.latency = Time::from_ns(100);
    sw.port_buffer_bytes = 64 * 1024;
    test::SwitchChain chain(sw);
    Fabric& fabric = chain.fabric;
    const PortGraph& g = chain.graph;
    const std::uint32_t up = chain.up, out = chain.out;
    REQUIRE(up != kNone);
    REQUIRE(out != kNone);
    const LogicalProcesses& lp = chain.lp;
    std::vector<bool> cut(g.channel_count(), false);
    cut[up] = true;
    fabric.set_cut(cut, 2, std::vector<std::uint32_t>(lp.count + 1, 0));
    Packet p;
    p.payload_bytes = 4096;
    p.credit_channel = up;
    const std::uint32_t wire = fabric.wire_bytes(p);
    fabric.launch(out, p, wire, 0, Time::from_ns(10));
    CHECK(fabric.credits_returning(up) == 0);
    fabric.end_window();
    REQUIRE(fabric.credits_returning(up) == 1);
    CHECK(fabric.next_credit(up).at == Time::from_ns(50));
    CHECK(fabric.next_credit(up).bytes == wire);
}

namespace {

// Like Bouncer, with a log per process (partitions' threads log apart) and more partitions:
// processes 0..7 in partitions p % 4, the observer (8) apart. Kind 1 bounces to the next
// process 100 ps later; kind 4 throws.
struct Spreader {
    Simulator* sim;
    std::array<std::vector<std::pair<std::int64_t, std::uint32_t>>, 9> seen;
    void handle(const Event& e) {
        seen[sim->current_process()].emplace_back(e.time.ps(), e.target);
        if (e.kind == 1 && e.target < 40)
            sim->schedule(e.time + Time::from_ps(100 + e.target % 3), e.target + 1, 1,
                          (e.process + 1) % 8);
        if (e.kind == 4) throw std::runtime_error("a handler failed");
    }
};

struct SpreadRun {
    Spreader s;
    std::uint64_t fingerprint = 0, events = 0, windows = 0;
    Time end;
    std::array<std::uint64_t, ThreadBalance::kThreads.size()> busiest{};
};

SpreadRun spread(std::uint32_t threads) {
    Simulator sim;
    sim.set_processes(8);
    sim.set_partitions(std::vector<std::uint32_t>{0, 1, 2, 3, 0, 1, 2, 3, 4}, 4,
                       Time::from_ps(100));
    sim.set_threads(threads);
    SpreadRun r;
    r.s.sim = &sim;
    for (std::uint32_t p = 0; p < 8; ++p) sim.schedule(Time::from_ps(7 * p), p, 1, p);
    sim.schedule(Time::from_ps(1000), 99, 2, 8);
    CHECK(sim.run_fingerprinted(r.s, Time::never(), [](const Simulator&) {}) ==
          StopReason::QueueEmpty);
    r.fingerprint = sim.fingerprint();
    r.events = sim.events_processed();
    r.windows = sim.windows_run();
    r.end = sim.now();
    r.busiest = sim.thread_balance().busiest();
    return r;
}

}  // namespace

TEST_CASE("a window's partitions on threads: the same events per process, digest and end",
          "[sim][windows][threads]") {
    const SpreadRun one = spread(1);
    CHECK(one.events == 8 * 41 - (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7) + 1);
    for (const std::uint32_t threads : {2u, 3u, 8u}) {
        const SpreadRun many = spread(threads);
        CHECK(many.s.seen == one.s.seen);
        CHECK(many.fingerprint == one.fingerprint);
        CHECK(many.events == one.events);
        CHECK(many.windows == one.windows);
        CHECK(many.end == one.end);
        CHECK(many.busiest == one.busiest);  // the balance is the model's, not the threads'
    }
    // On one thread the busiest is every partition's events (all but the observer's one).
    CHECK(one.busiest[0] == one.events - 1);
    // Four partitions: four threads or more do as well as one thread per partition.
    CHECK(one.busiest[2] == one.busiest[6]);
    CHECK(one.busiest[1] < one.busiest[0]);
    CHECK(one.busiest[2] < one.busiest[1]);
}

TEST_CASE("partitions are dealt longest first to the least loaded thread", "[sim][threads]") {
    // Loads 9, 5, 3, 1: 9 alone, then 5 + 3 + 1 on the other thread (each to the least so far).
    const std::vector<std::uint64_t> load = {5, 9, 1, 3};
    CHECK(deal_longest_first(load, 2) == std::vector<std::uint32_t>{1, 0, 1, 1});
    // Idle partitions count as one event each: spread round-robin, not piled on thread 0.
    CHECK(deal_longest_first(std::vector<std::uint64_t>(4, 0), 2) ==
          std::vector<std::uint32_t>{0, 1, 0, 1});
}

TEST_CASE("partitions are dealt to MPI ranks by load, partition 0 on rank 0", "[sim][ranks]") {
    // Partition 0 (load 2) stays on rank 0; then 9 to rank 1, 5 to rank 0 (2 < 9), 3 and 1 to
    // rank 0 (7 < 9, then 9 + 1 would tie: the lower rank), ...
    const std::vector<std::uint64_t> load = {2, 5, 9, 1, 3};
    CHECK(deal_to_ranks(load, 5, 2) == std::vector<std::uint32_t>{0, 0, 1, 1, 0});
    // 11 partitions alike over 2 ranks: 6 and 5, as the modulo dealt them; the heaviest alone.
    const auto alike = deal_to_ranks({}, 11, 2);
    CHECK(std::count(alike.begin(), alike.end(), 0u) == 6);
    const std::vector<std::uint64_t> heavy = {1, 1, 1, 100, 1};
    const auto h = deal_to_ranks(heavy, 5, 2);
    CHECK(h[3] == 1);
    CHECK(std::count(h.begin(), h.end(), 1u) == 1);
    // More ranks than partitions: one each, the rest idle.
    CHECK(deal_to_ranks({}, 2, 4) == std::vector<std::uint32_t>{0, 1});
}

TEST_CASE("the thread balance adds the busiest thread's events window by window",
          "[sim][threads]") {
    // Three partitions, dealt at the start with no loads: on two threads p0 and p2 share one.
    ThreadBalance b;
    b.start(3);
    b.begin_window();
    b.end_window(std::vector<std::uint64_t>{4, 1, 2});  // threads: 4 + 2 and 1
    b.begin_window();
    b.end_window(std::vector<std::uint64_t>{5, 7, 2});  // 1 + 0 and 6
    CHECK(b.busiest()[0] == 14);                        // one thread: 7 + 7
    CHECK(b.busiest()[1] == 6 + 6);                     // two
    CHECK(b.busiest()[6] == 4 + 6);  // a thread each: the largest partition per window
}

TEST_CASE("an exception in a partition's thread ends the run with it, threads joined",
          "[sim][windows][threads]") {
    Simulator sim;
    sim.set_processes(8);
    sim.set_partitions(std::vector<std::uint32_t>{0, 1, 2, 3, 0, 1, 2, 3, 4}, 4,
                       Time::from_ps(100));
    sim.set_threads(4);
    Spreader s{&sim, {}};
    for (std::uint32_t p = 0; p < 8; ++p) sim.schedule(Time::from_ps(7 * p), p, 1, p);
    sim.schedule(Time::from_ps(450), 0, 4, 5);  // partition 1 throws in a later window
    CHECK_THROWS_WITH(sim.run(s), "a handler failed");
}

TEST_CASE(
    "a pool slot given back by another partition is taken again only after the window, by "
    "its owner",
    "[sim][windows]") {
    // Process 1 (partition 1) takes a slot at 0 and 10; process 0 (partition 0, run first in
    // a window) gives the first back at 210; process 1 takes one at 300 (the same window
    // [210, 410): a new slot, though the release ran before it) and at 450 (the one given back).
    struct Pooler {
        Simulator* sim;
        PartitionedPool<int> pool;
        std::vector<std::uint32_t> taken;
        void handle(const Event& e) {
            if (e.kind == 1) taken.push_back(pool.acquire());
            if (e.kind == 2) pool.release(taken.front());
        }
        void end_window() { pool.settle(); }
    };
    Simulator sim;
    sim.set_processes(2);
    sim.set_partitions(std::vector<std::uint32_t>{0, 1, 2}, 2, Time::from_ps(200));
    Pooler p{&sim, {}, {}};
    p.pool.set_partitions(2);
    sim.schedule(Time::from_ps(0), 0, 1, 1);
    sim.schedule(Time::from_ps(10), 0, 1, 1);
    sim.schedule(Time::from_ps(210), 0, 2, 0);
    sim.schedule(Time::from_ps(300), 0, 1, 1);
    sim.schedule(Time::from_ps(450), 0, 1, 1);
    sim.run(p);
    const std::uint32_t owner = 1u << PartitionedPool<int>::kIndexBits;  // partition 1's slots
    REQUIRE(p.taken.size() == 4);
    CHECK(p.taken[0] == owner + 0);
    CHECK(p.taken[1] == owner + 1);
    CHECK(p.taken[2] == owner + 2);  // its window is not over: not slot 0
    CHECK(p.taken[3] == owner + 0);  // handed back at that window's end
    CHECK(p.pool.slots() == 3);
}

TEST_CASE("a packet-level run on threads gives the one-thread run's results and digest",
          "[windows][network][threads]") {
    FatTreeTwoLayerParams ft = small_ft2(16, 32);
    ft.fabric.port_buffer_bytes = 2 * (4096 + 26);
    ft.fabric.cut_through = true;
    const TestFabric f(ft);
    const NetworkParams p = ib_params();
    std::uint32_t partitions = 0;
    std::uint64_t d1 = 0, d2 = 0;
    const auto a = finish_times(f, p, 0, partitions, 1, &d1);
    const auto b = finish_times(f, p, 0, partitions, 2, &d2);
    CHECK(partitions > 1);
    CHECK(a == b);
    CHECK(d1 == d2);
}
