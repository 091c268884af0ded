#include <catch2/catch.hpp>

#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

using namespace clustersim;

TEST_CASE("event queue pops in (time, sequence) order, equal times first-in first-out", "[sim]") {
    EventQueue q;
    std::uint64_t seq = 0;
    for (int t : {5, 1, 5, 3, 1, 5})
        q.push(Event{Time::from_ps(t), seq++, static_cast<std::uint32_t>(seq), 0});
    std::vector<std::pair<std::int64_t, std::uint64_t>> order;
    while (!q.empty()) {
        const Event e = q.pop();
        order.emplace_back(e.time.ps(), e.sequence);
    }
    const std::vector<std::pair<std::int64_t, std::uint64_t>> expected = {{1, 1}, {1, 4}, {3, 3},
                                                                          {5, 0}, {5, 2}, {5, 5}};
    CHECK(order == expected);
}

TEST_CASE("event queue agrees with a reference priority queue under a random hold workload",
          "[sim]") {
    EventQueue q;
    std::priority_queue<Event, std::vector<Event>,
                        decltype([](const Event& a, const Event& b) { return b < a; })>
        ref;
    RandomStream rng(7, "test");
    std::uint64_t seq = 0;
    for (int i = 0; i < 1000; ++i) {
        const Event e{Time::from_ps(static_cast<std::int64_t>(rng.below(1000))), seq++, 0, 0};
        q.push(e);
        ref.push(e);
    }
    for (int i = 0; i < 20000; ++i) {
        REQUIRE(q.top().sequence == ref.top().sequence);
        const Event e{q.top().time + Time::from_ps(static_cast<std::int64_t>(rng.below(1000))),
                      seq++, 0, 0};
        const Event popped = (i % 2) ? q.replace_top(e) : q.pop();
        if (i % 2 == 0) q.push(e);
        REQUIRE(popped.sequence == ref.top().sequence);
        ref.pop();
        ref.push(e);
    }
}

namespace {
struct Recorder {
    Simulator* sim;
    std::vector<std::int64_t> seen;
    void handle(const Event& e) {
        seen.push_back(e.time.ps());
        if (e.kind == 1) sim->schedule(e.time + Time::from_ps(10), 0, 0);
    }
};
}  // namespace

TEST_CASE("simulator stops at the time limit without running later events", "[sim]") {
    Simulator sim;
    Recorder r{&sim, {}};
    sim.schedule(Time::from_ps(5), 0, 1);
    sim.schedule(Time::from_ps(100), 0, 0);
    CHECK(sim.run(r, Time::from_ps(50)) == StopReason::TimeLimit);
    CHECK(r.seen == std::vector<std::int64_t>{5, 15});
    CHECK(sim.now() == Time::from_ps(50));
    CHECK(sim.run(r) == StopReason::QueueEmpty);
    CHECK(r.seen.back() == 100);
}

namespace {
// Each event of kind 1 schedules two events at time 100: one for its own process, one for
// process 0; the handled (process, target) pairs are recorded in order.
struct ProcessRecorder {
    Simulator* sim;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> seen;
    void handle(const Event& e) {
        seen.emplace_back(sim->current_process(), e.target);
        if (e.kind == 1) {
            sim->schedule(Time::from_ps(100), 10 + e.target, 0);
            sim->schedule(Time::from_ps(100), 20 + e.target, 0, 0);
        }
    }
};
}  // namespace

TEST_CASE("events at one time run in (source process, sequence) order, not insertion order",
          "[sim]") {
    // Process 2's event runs first (time 1), process 1's second (time 2): by insertion, process
    // 2's children would run first at time 100; by source process, process 1's do.
    Simulator sim;
    sim.set_processes(3);
    CHECK(sim.current_process() == 3);  // setup: the observer's
    ProcessRecorder r{&sim, {}};
    sim.schedule(Time::from_ps(2), 1, 1, 1);
    sim.schedule(Time::from_ps(1), 2, 1, 2);
    sim.run(r);
    using P = std::pair<std::uint32_t, std::uint32_t>;
    CHECK(r.seen == std::vector<P>{{2, 2}, {1, 1}, {1, 11}, {0, 21}, {2, 12}, {0, 22}});
    CHECK(sim.current_process() == 3);
}

namespace {
// Records each prefetch hint and each handled event's target; kind 1 schedules a child at +1 ps.
struct PrefetchRecorder {
    Simulator* sim;
    std::vector<std::uint32_t> hinted, handled;
    void prefetch(const Event& e) { hinted.push_back(e.target); }
    void handle(const Event& e) {
        handled.push_back(e.target);
        if (e.kind == 1) sim->schedule(e.time + Time::from_ps(1), e.target + 100, 0);
    }
};
}  // namespace

TEST_CASE("the loop hints the next pending event before handling the current one", "[sim]") {
    // Events at 1 (kind 1: schedules one at 2), 5 and 9. Before handling each, the loop names
    // the event then next in the queue -- the child at 2 is not yet scheduled when the event at
    // 1 runs, so the hint is the event at 5; nothing is hinted once the queue is empty.
    Simulator sim;
    PrefetchRecorder r{&sim, {}, {}};
    sim.schedule(Time::from_ps(9), 3, 0);
    sim.schedule(Time::from_ps(1), 1, 1);
    sim.schedule(Time::from_ps(5), 2, 0);
    sim.run(r);
    CHECK(r.handled == std::vector<std::uint32_t>{1, 101, 2, 3});
    CHECK(r.hinted == std::vector<std::uint32_t>{2, 2, 3});
}

TEST_CASE("random streams are reproducible per seed and name, and independent across names",
          "[sim]") {
    RandomStream a(1, "ecmp"), b(1, "ecmp"), c(1, "other"), d(2, "ecmp");
    const auto va = a(), vb = b(), vc = c(), vd = d();
    CHECK(va == vb);
    CHECK(va != vc);
    CHECK(va != vd);
    RandomStream r(3, "range");
    for (int i = 0; i < 1000; ++i) CHECK(r.below(7) < 7);
}

TEST_CASE("event queue keeps exact order across calendar wrap-around, far jumps and ties",
          "[sim]") {
    // Small calendar (16 buckets of 1 ns) so that far events, jumps over idle time and
    // wrap-around all happen; times mix near, far and identical values.
    EventQueue q(10, 16);
    std::priority_queue<Event, std::vector<Event>,
                        decltype([](const Event& a, const Event& b) { return b < a; })>
        ref;
    RandomStream rng(11, "calendar");
    std::uint64_t seq = 0;
    const auto gap = [&]() -> std::int64_t {
        switch (rng.below(4)) {
            case 0:
                return 0;  // ties at the current time
            case 1:
                return static_cast<std::int64_t>(rng.below(2'000));
            case 2:
                return static_cast<std::int64_t>(rng.below(40'000));
            default:
                return static_cast<std::int64_t>(rng.below(5'000'000));  // far
        }
    };
    Time now;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 500; ++i) {
            const Event e{now + Time::from_ps(gap()), seq++, 0, 0};
            q.push(e);
            ref.push(e);
        }
        for (int i = 0; i < 30000; ++i) {
            REQUIRE(q.size() == ref.size());
            REQUIRE(q.top().sequence == ref.top().sequence);
            const Event popped = q.pop();
            REQUIRE(popped.sequence == ref.top().sequence);
            ref.pop();
            now = popped.time;
            if (i % 7 != 0 && i < 25000) {  // mostly hold, sometimes shrink
                const Event e{now + Time::from_ps(gap()), seq++, 0, 0};
                q.push(e);
                ref.push(e);
            }
            if (ref.empty()) break;
        }
        while (!ref.empty()) {  // drain completely, then refill from an empty queue
            REQUIRE(q.pop().sequence == ref.top().sequence);
            ref.pop();
        }
        REQUIRE(q.empty());
    }
}

TEST_CASE("event queue orders negative times first and survives times near the end of int64",
          "[sim]") {
    EventQueue q;
    std::uint64_t seq = 0;
    const std::int64_t late = std::numeric_limits<std::int64_t>::max() - 1000;
    for (std::int64_t t : {std::int64_t{0}, std::int64_t{-1}, late, std::int64_t{5000}, late - 1,
                           std::numeric_limits<std::int64_t>::max()})
        q.push(Event{Time::from_ps(t), seq++, 0, 0});
    std::vector<std::int64_t> order;
    while (!q.empty()) order.push_back(q.pop().time.ps());
    CHECK(order == std::vector<std::int64_t>{-1, 0, 5000, late - 1, late,
                                             std::numeric_limits<std::int64_t>::max()});

    // clear() forgets everything: the queue works as new afterwards.
    q.push(Event{Time::from_ps(0), seq++, 0, 0});
    q.push(Event{Time::from_ps(5000), seq++, 0, 0});
    q.clear();
    CHECK(q.empty());
    q.push(Event{Time::from_ps(0), seq++, 0, 0});
    q.push(Event{Time::from_ps(10'000'000), seq++, 0, 0});
    CHECK(q.pop().time.ps() == 0);
    REQUIRE(q.size() == 1);
    CHECK(q.top().time.ps() == 10'000'000);
    CHECK(q.pop().time.ps() == 10'000'000);
}

namespace {
struct NullHandler {
    void handle(const clustersim::Event&) {}
};
std::uint64_t fingerprint_of(const std::vector<std::pair<std::int64_t, std::uint32_t>>& events) {
    clustersim::Simulator sim;
    for (const auto& [ps, target] : events) sim.schedule(clustersim::Time::from_ps(ps), target, 0);
    NullHandler h;
    sim.run_fingerprinted(h, clustersim::Time::never(), [](const clustersim::Simulator&) {});
    return sim.fingerprint();
}
}  // namespace

TEST_CASE(
    "the event fingerprint is the same for the same event order and differs when two "
    "events at one time swap, though every count agrees",
    "[kernel][fingerprint]") {
    const auto a = fingerprint_of({{10, 1}, {10, 2}, {20, 3}});
    CHECK(a == fingerprint_of({{10, 1}, {10, 2}, {20, 3}}));
    CHECK(a != fingerprint_of({{10, 2}, {10, 1}, {20, 3}}));  // same times, other order
    CHECK(a != fingerprint_of({{10, 1}, {11, 2}, {20, 3}}));  // one time moved
}

TEST_CASE("a partition's calendar widens its buckets past 64 partitions, keeping span and order",
          "[sim]") {
    CHECK(EventQueue::widening(1) == 0);
    CHECK(EventQueue::widening(64) == 0);
    CHECK(EventQueue::widening(65) == 1);
    CHECK(EventQueue::widening(128) == 1);
    CHECK(EventQueue::widening(129) == 2);
    CHECK(EventQueue::widening(256) == 2);
    CHECK(EventQueue::widening(1u << 20) == EventQueue::kMaxWidening);
    // Same order as a heap with buckets 4 ns wide: events within one bucket and across many.
    EventQueue q = EventQueue::for_share(256);
    std::priority_queue<Event, std::vector<Event>,
                        decltype([](const Event& a, const Event& b) { return b < a; })>
        ref;
    RandomStream rng(5, "widened");
    std::uint64_t seq = 0;
    for (int i = 0; i < 20000; ++i) {
        const Event e{Time::from_ps(static_cast<std::int64_t>(rng.below(20'000'000))), seq++, 0, 0};
        q.push(e);
        ref.push(e);
    }
    while (!ref.empty()) {
        REQUIRE(q.pop().sequence == ref.top().sequence);
        ref.pop();
    }
    CHECK(q.empty());
}
