#include <catch2/catch.hpp>

#include "support.hpp"

using namespace clustersim;
using namespace clustersim::test;

// The workload DAG: compute tasks queue per GPU, joins gate successors, transfers start when
// their inputs complete. Expected times are derived from the durations and the path latency.

namespace {

double us(Time t) {
    return t.us();
}

struct DagRun {
    SimulationResult result;
    std::vector<ComputeState> computes;
};

// Runs `w` on two bare NICs under one switch and returns the message and compute states.
DagRun run_dag(const Workload& w) {
    const TestFabric f(small_ft2(4, 2));
    Simulator sim;
    Network net(sim, f.topology.graph, f.routes, w, ib_params());
    net.start();
    sim.run(net);
    DagRun r;
    r.result.messages.assign(net.messages().begin(), net.messages().end());
    r.result.status = net.all_finished() ? SimulationResult::Status::Completed
                                         : SimulationResult::Status::Stalled;
    r.computes.assign(net.computes().begin(), net.computes().end());
    return r;
}

}  // namespace

TEST_CASE("compute tasks on one GPU run one at a time in activation order", "[dag]") {
    Workload w;
    // Two micro-batches' tasks released together on GPU 0, a third on GPU 1.
    w.add_compute(ComputeSpec{0, Time::from_us(10), Time::zero(), 1});
    w.add_compute(ComputeSpec{0, Time::from_us(5), Time::zero(), 2});
    w.add_compute(ComputeSpec{1, Time::from_us(7), Time::zero(), 3});
    const DagRun r = run_dag(w);
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    CHECK(us(r.computes[0].finished) == Approx(10));
    CHECK(us(r.computes[1].started) == Approx(10));  // waited for the GPU
    CHECK(us(r.computes[1].finished) == Approx(15));
    CHECK(us(r.computes[2].finished) == Approx(7));  // another GPU: in parallel
}

TEST_CASE(
    "a transfer gated by compute starts when it ends -- compute gated by a join of two "
    "transfers starts when the later one is received",
    "[dag]") {
    Workload w;
    const std::uint32_t attention =
        w.add_compute(ComputeSpec{0, Time::from_us(4), Time::zero(), 1});
    MessageSpec m{.src = 0, .dst = 1, .bytes = 4096};
    const std::uint32_t a = w.add_message(m);
    m.bytes = 64 * 4096;
    const std::uint32_t b = w.add_message(m);
    w.depend({TaskKind::Compute, attention}, Completion::Done, {TaskKind::Transfer, a});
    w.depend({TaskKind::Compute, attention}, Completion::Done, {TaskKind::Transfer, b});
    const std::uint32_t j = w.add_join(JoinSpec{JoinKind::All, 2, Time::zero(), 0});
    w.depend({TaskKind::Transfer, a}, Completion::Done, {TaskKind::Join, j});
    w.depend({TaskKind::Transfer, b}, Completion::Done, {TaskKind::Join, j});
    const std::uint32_t experts = w.add_compute(ComputeSpec{1, Time::from_us(6), Time::never(), 2});
    w.depend({TaskKind::Join, j}, Completion::Done, {TaskKind::Compute, experts});
    REQUIRE(w.validate(2).empty());
    const DagRun r = run_dag(w);
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    CHECK(us(r.result.messages[a].started) == Approx(4));
    CHECK(us(r.result.messages[b].started) == Approx(4));
    const Time later = std::max(r.result.messages[a].finished, r.result.messages[b].finished);
    CHECK(r.computes[experts].started == later);
    CHECK(r.computes[experts].finished == later + Time::from_us(6));
}

TEST_CASE("a sequence join activates one successor per input, in order -- a first join fires once",
          "[dag]") {
    Workload w;
    const std::uint32_t seq = w.add_join(JoinSpec{JoinKind::Sequence, 1, Time::from_us(1), 0});
    const std::uint32_t first = w.add_join(JoinSpec{JoinKind::First, 1, Time::zero(), 0});
    std::vector<std::uint32_t> c;
    for (std::uint32_t i = 0; i < 3; ++i)
        c.push_back(w.add_compute(ComputeSpec{i % 2, Time::from_us(2), Time::never(), i}));
    // Two releases feed the sequence join: the first activates c0, the second c1; c2 never runs.
    const std::uint32_t r1 = w.add_compute(ComputeSpec{0, Time::from_us(1), Time::zero(), 10});
    const std::uint32_t r2 = w.add_compute(ComputeSpec{1, Time::from_us(3), Time::zero(), 11});
    for (std::uint32_t r : {r1, r2}) {
        w.depend({TaskKind::Compute, r}, Completion::Done, {TaskKind::Join, seq});
        w.depend({TaskKind::Compute, r}, Completion::Done, {TaskKind::Join, first});
    }
    for (std::uint32_t x : c)
        w.depend({TaskKind::Join, seq}, Completion::Done, {TaskKind::Compute, x});
    const std::uint32_t once = w.add_compute(ComputeSpec{1, Time::from_us(1), Time::never(), 12});
    w.depend({TaskKind::Join, first}, Completion::Done, {TaskKind::Compute, once});
    const DagRun r = run_dag(w);
    CHECK(r.result.status == SimulationResult::Status::Stalled);  // c2 never activated
    CHECK(us(r.computes[c[0]].activated) == Approx(1 + 1));       // r1 ends at 1, join delay 1
    CHECK(us(r.computes[c[1]].activated) == Approx(3 + 1));       // r2 ends at 3
    CHECK(r.computes[c[2]].activated == Time::never());
    CHECK(us(r.computes[once].activated) == Approx(1));  // on r1 only
}

TEST_CASE("communication kernels holding SMs slow the compute beside them in proportion", "[dag]") {
    // A 100-SM GPU computes 60 us of work. A kernel takes 25 SMs at 20 us and gives them back
    // at 40 us: 20 us at full speed, 20 us at 3/4 speed (15 us of work), then the remaining
    // 25 us at full speed, ending at 65 us.
    Workload w;
    w.gpu_sms = 100;
    const std::uint32_t c = w.add_compute(ComputeSpec{0, Time::from_us(60), Time::zero(), 1});
    const std::uint32_t t1 = w.add_compute(ComputeSpec{1, Time::from_us(20), Time::zero(), 2});
    const std::uint32_t t2 = w.add_compute(ComputeSpec{1, Time::from_us(20), Time::never(), 3});
    const std::uint32_t take = w.add_join(JoinSpec{JoinKind::All, 1, Time::zero(), 0, 0, 25});
    const std::uint32_t give = w.add_join(JoinSpec{JoinKind::All, 1, Time::zero(), 0, 0, -25});
    w.depend({TaskKind::Compute, t1}, Completion::Done, {TaskKind::Join, take});
    w.depend({TaskKind::Compute, t1}, Completion::Done, {TaskKind::Compute, t2});
    w.depend({TaskKind::Compute, t2}, Completion::Done, {TaskKind::Join, give});
    REQUIRE(w.validate(4).empty());
    const DagRun r = run_dag(w);
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    CHECK(us(r.computes[c].finished) == Approx(65));
    CHECK(us(r.computes[t2].finished) == Approx(40));

    // Without SMs to move (gpu_sms = 0 means compute never slows) the same DAG ends at 60 us.
    Workload plain = w;
    plain.gpu_sms = 0;
    for (auto& j : plain.joins) j.comm_sms = 0;
    CHECK(us(run_dag(plain).computes[c].finished) == Approx(60));
}

TEST_CASE(
    "a sealed workload keeps its dependencies as the graph only, successors in list order, and "
    "runs and validates as the list did",
    "[dag]") {
    Workload w;
    const std::uint32_t seq = w.add_join(JoinSpec{JoinKind::Sequence, 1, Time::from_us(1), 0});
    std::vector<std::uint32_t> c;
    for (std::uint32_t i = 0; i < 4; ++i)
        c.push_back(w.add_compute(ComputeSpec{i % 2, Time::from_us(2 + i), Time::never(), i}));
    const std::uint32_t m = w.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 8192});
    const std::uint32_t r1 = w.add_compute(ComputeSpec{0, Time::from_us(1), Time::zero(), 10});
    w.depend({TaskKind::Compute, r1}, Completion::Done, {TaskKind::Transfer, m});
    w.depend({TaskKind::Transfer, m}, Completion::Sent, {TaskKind::Join, seq});
    w.depend({TaskKind::Transfer, m}, Completion::Done, {TaskKind::Join, seq});
    // The sequence join's successors were added out of index order: c2, c0, c3, c1.
    for (std::uint32_t x : {c[2], c[0], c[3], c[1]})
        w.depend({TaskKind::Join, seq}, Completion::Done, {TaskKind::Compute, x});
    REQUIRE(w.validate(4).empty());

    Workload sealed = w;
    sealed.seal();
    CHECK(sealed.sealed());
    CHECK(sealed.dependencies.empty());
    CHECK(sealed.dependencies.capacity() == 0);
    CHECK(sealed.dependency_count() == w.dependencies.size());
    CHECK(sealed.validate(4).empty());
    CHECK_THROWS_AS(sealed.depend({TaskKind::Compute, r1}, Completion::Done, {TaskKind::Join, seq}),
                    std::logic_error);
    CHECK_THROWS_AS(sealed.add_compute(ComputeSpec{0, Time::from_us(1), Time::zero(), 9}),
                    std::logic_error);
    {
        Workload changed = sealed;  // a task pushed past add_*: the runtime refuses it
        changed.computes.push_back(ComputeSpec{0, Time::from_us(1), Time::zero(), 9});
        CHECK_THROWS_AS(run_dag(changed), std::logic_error);
    }
    // Every dependency once, each slot's successors in the order they were added.
    std::vector<Dependency> listed, from_graph;
    w.for_each_dependency([&](const Dependency& d) { listed.push_back(d); });
    sealed.for_each_dependency([&](const Dependency& d) { from_graph.push_back(d); });
    const auto key = [](const Dependency& d) {
        return std::pair{static_cast<int>(d.from.kind) * 4 + static_cast<int>(d.on), d.from.index};
    };
    std::stable_sort(listed.begin(), listed.end(),
                     [&](const Dependency& a, const Dependency& b) { return key(a) < key(b); });
    REQUIRE(listed.size() == from_graph.size());
    for (std::size_t i = 0; i < listed.size(); ++i) {
        CHECK(listed[i].from == from_graph[i].from);
        CHECK(listed[i].on == from_graph[i].on);
        CHECK(listed[i].to == from_graph[i].to);
    }

    // The same run: the sequence join starts c2 on the send, c0 on the receipt.
    const DagRun a = run_dag(w), b = run_dag(sealed);
    REQUIRE(a.computes.size() == b.computes.size());
    for (std::size_t i = 0; i < a.computes.size(); ++i) {
        CHECK(a.computes[i].activated == b.computes[i].activated);
        CHECK(a.computes[i].finished == b.computes[i].finished);
    }
    CHECK(b.computes[c[2]].activated < b.computes[c[0]].activated);
    CHECK(b.computes[c[3]].activated == Time::never());
    CHECK(b.result.messages[m].finished == a.result.messages[m].finished);

    // Once run, the graph can go: the workload stays sealed and counts its dependencies, and a
    // second run of it is refused rather than run without them.
    sealed.release_graph();
    CHECK(sealed.graph.empty());
    CHECK(sealed.sealed());
    CHECK(sealed.dependency_count() == w.dependencies.size());
    CHECK_THROWS_AS(sealed.add_compute(ComputeSpec{0, Time::from_us(1), Time::zero(), 9}),
                    std::logic_error);
    CHECK_THROWS_AS(run_dag(sealed), std::logic_error);
    // A "sent" dependency of a task that is not a message is refused too.
    const std::vector<Dependency> not_sent = {
        {{TaskKind::Compute, 0}, Completion::Sent, {TaskKind::Join, 0}}};
    CHECK_THROWS_AS(DependencyGraph(not_sent, 0, 1, 1), std::invalid_argument);

    // A dependency on a task that does not exist is refused when the graph is built.
    const std::vector<Dependency> dangling = {
        {{TaskKind::Compute, 0}, Completion::Done, {TaskKind::Join, 5}}};
    CHECK_THROWS_AS(DependencyGraph(dangling, 0, 1, 1), std::invalid_argument);
    CHECK_NOTHROW(DependencyGraph(dangling, 0, 1, 6));

    // A sealed workload that lacks a trigger is refused in the same words as the list.
    Workload orphan;
    orphan.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 8192});
    orphan.add_compute(ComputeSpec{0, Time::from_us(1), Time::zero(), 1});
    orphan.set_start(0, Time::never());
    const std::string said = orphan.validate(4);
    CHECK_FALSE(said.empty());
    orphan.seal();
    CHECK(orphan.validate(4) == said);
}

TEST_CASE("a message's start time and label are kept beside it only once some message has one",
          "[dag]") {
    Workload w;
    const std::uint32_t a = w.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 100});
    const std::uint32_t b = w.add_message(MessageSpec{.src = 1, .dst = 0, .bytes = 200});
    // Triggered messages known by their index: no table at all (a MoE step's millions).
    CHECK(w.side_table_bytes() == 0);
    CHECK(w.start_of(a) == Time::never());
    CHECK(w.label_of(b) == b);
    // One with its own start and id: the others keep theirs (never; their index).
    const std::uint32_t c = w.add_message(
        MessageSpec{.src = 0, .dst = 1, .bytes = 300, .start = Time::from_us(3), .label = 77});
    const std::uint32_t d = w.add_message(MessageSpec{.src = 1, .dst = 0, .bytes = 400});
    CHECK(w.side_table_bytes() > 0);
    CHECK(w.start_of(a) == Time::never());
    CHECK(w.start_of(c) == Time::from_us(3));
    CHECK(w.start_of(d) == Time::never());
    CHECK(w.label_of(a) == a);
    CHECK(w.label_of(b) == b);
    CHECK(w.label_of(c) == 77);
    CHECK(w.label_of(d) == d);
    w.set_start(a, Time::from_us(1));
    w.set_label(b, 5);
    CHECK(w.start_of(a) == Time::from_us(1));
    CHECK(w.label_of(b) == 5);
    CHECK(w.messages[c].bytes == 300);
    // A label of 0 stands for "its index", as an absent one does.
    Workload z;
    z.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 1, .start = Time::zero(), .label = 0});
    CHECK(z.label_of(0) == 0);
    CHECK(z.start_of(0) == Time::zero());
}
