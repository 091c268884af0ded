#include <catch2/catch.hpp>
#include <set>
#include <thread>
#include <vector>

#include "models/dag/task_processes.hpp"
#include "models/network/partitions.hpp"
#include "support.hpp"

using namespace clustersim;
using namespace clustersim::test;

TEST_CASE(
    "a join runs where its inputs complete, and a dependency across processes with no "
    "delay ties them",
    "[partitions][dag]") {
    // GPUs 0..3, each its own process (10 + gpu); the observer is 99.
    const std::vector<std::uint32_t> gpu_process = {10, 11, 12, 13};
    Workload w;
    const std::uint32_t a = w.add_message({0, 1, 100});  // received at GPU 1
    const std::uint32_t b = w.add_message({2, 1, 100});  // received at GPU 1
    const std::uint32_t gather = w.add_join({JoinKind::All, 2, Time{}, 0});
    w.depend({TaskKind::Transfer, a}, Completion::Done, {TaskKind::Join, gather});
    w.depend({TaskKind::Transfer, b}, Completion::Done, {TaskKind::Join, gather});
    const std::uint32_t reply = w.add_message({1, 0, 100});  // sent by GPU 1: no tie
    w.depend({TaskKind::Join, gather}, Completion::Done, {TaskKind::Transfer, reply});
    const std::uint32_t after = w.add_join({JoinKind::All, 1, Time{}, 0});  // fed by a join only
    w.depend({TaskKind::Join, gather}, Completion::Done, {TaskKind::Join, after});

    SECTION("all local: the joins go to GPU 1, nothing is tied") {
        const TaskProcesses tp = task_processes(w, gpu_process, 99, Time::from_ns(50));
        CHECK(tp.of_join == std::vector<std::uint32_t>{11, 11});
        CHECK(tp.ties.empty());
        CHECK(tp.mixed_joins == 0);
    }
    SECTION("a message started by another GPU's join, at once, ties the two") {
        const std::uint32_t far = w.add_message({3, 2, 100});  // sent by GPU 3
        w.depend({TaskKind::Join, gather}, Completion::Done, {TaskKind::Transfer, far});
        const TaskProcesses tp = task_processes(w, gpu_process, 99, Time::from_ns(50));
        CHECK(tp.ties == std::vector<ProcessTie>{{11, 13}});
    }
    SECTION("the same after a delay at least the lookahead is no tie") {
        Workload d;
        const std::uint32_t m = d.add_message({0, 1, 100});
        const std::uint32_t j = d.add_join({JoinKind::All, 1, Time::from_ns(50), 0});
        const std::uint32_t next = d.add_message({3, 2, 100});
        d.depend({TaskKind::Transfer, m}, Completion::Done, {TaskKind::Join, j});
        d.depend({TaskKind::Join, j}, Completion::Done, {TaskKind::Transfer, next});
        CHECK(task_processes(d, gpu_process, 99, Time::from_ns(50)).ties.empty());
        CHECK(task_processes(d, gpu_process, 99, Time::from_ns(51)).ties ==
              std::vector<ProcessTie>{{11, 13}});
    }
    SECTION("a join fed from two GPUs is mixed: placed with its first input, tied to the other") {
        const std::uint32_t c = w.add_message({1, 2, 100});  // received at GPU 2
        const std::uint32_t both = w.add_join({JoinKind::All, 2, Time{}, 0});
        w.depend({TaskKind::Transfer, a}, Completion::Done, {TaskKind::Join, both});
        w.depend({TaskKind::Transfer, c}, Completion::Done, {TaskKind::Join, both});
        const TaskProcesses tp = task_processes(w, gpu_process, 99, Time::from_ns(50));
        CHECK(tp.of_join[both] == 11);
        CHECK(tp.ties == std::vector<ProcessTie>{{12, 11}});
        CHECK(tp.mixed_joins == 1);
    }
}

TEST_CASE(
    "partitions cover every process, cut only where their channels cross, and the "
    "lookahead is the shortest cut delay",
    "[partitions]") {
    // 64 endpoints on a radix-16 FT2: 8 leaves, 4 spines (12 switch processes), 64 endpoints.
    const TestFabric f(small_ft2(16, 64));
    const PortGraph& g = f.topology.graph;
    const LogicalProcesses lp = logical_processes(g, nullptr);
    const Partitions p = partition_processes(g, lp, {}, "");
    REQUIRE(p.single_reason.empty());
    // About one per kProcessesPerPartition processes, at least two.
    CHECK(p.count == std::max(2u, lp.count / kProcessesPerPartition));
    REQUIRE(p.of_process.size() == lp.count + 1);
    CHECK(p.of_process[lp.count] == p.count);  // the observer stands apart
    std::set<std::uint32_t> used(p.of_process.begin(), p.of_process.end() - 1);
    CHECK(used.size() == p.count);  // numbered densely
    CHECK(*used.rbegin() == p.count - 1);
    std::uint64_t cut = 0;
    Time shortest = Time::never();
    for (std::uint32_t c = 0; c < g.channel_count(); ++c) {
        const Channel& ch = g.channels()[c];
        const bool crosses = p.of_process[lp.of(ch.from)] != p.of_process[lp.of(ch.to)];
        CHECK(p.is_cut(c) == crosses);
        if (!crosses) continue;
        ++cut;
        shortest = std::min(shortest, ch.propagation);
    }
    CHECK(p.cut_channels == cut);
    CHECK(cut > 0);
    CHECK(p.lookahead == shortest);
    CHECK(p.lookahead == Time::from_ns(50));
    // An endpoint goes with its leaf: a cut between them would serve no balance.
    std::uint64_t total = 0;
    for (const std::uint64_t w : p.weight) total += w;
    CHECK(total == g.channel_count());

    SECTION("the same cut every time") {
        const Partitions again = partition_processes(g, lp, {}, "");
        CHECK(again.of_process == p.of_process);
    }
    SECTION("processes a dependency ties stay together") {
        const std::uint32_t a = lp.of({NodeKind::Endpoint, 0}), b = lp.of({NodeKind::Endpoint, 63});
        REQUIRE(p.of_process[a] != p.of_process[b]);
        const std::vector<ProcessTie> ties = {{a, b}};
        const Partitions tied = partition_processes(g, lp, ties, "");
        CHECK(tied.of_process[a] == tied.of_process[b]);
    }
    SECTION("as many as asked for (sim.partitions), at most one per process; one is none") {
        CHECK(partition_processes(g, lp, {}, "", {}, 16).count == 16);
        CHECK(partition_processes(g, lp, {}, "", {}, 1).count == 1);
        CHECK_FALSE(partition_processes(g, lp, {}, "", {}, 1).single_reason.empty());
        CHECK(partitions_for(lp.count, kMostPartitions) == lp.count);
        CHECK(partitions_for(lp.count, 0) == partitions_for(lp.count));
    }
    SECTION("the default is even, so that two threads or ranks split it evenly") {
        for (std::uint64_t processes = 64; processes <= kMaxPartitions * kProcessesPerPartition;
             processes += 29) {
            INFO(processes << " processes");
            const std::uint32_t n = partitions_for(processes);
            CHECK(n % 2 == 0);
            CHECK(n >= processes / kProcessesPerPartition);
            CHECK(n <= processes / kProcessesPerPartition + 2);
        }
        CHECK(partitions_for(11 * kProcessesPerPartition + 5) == 12);
        CHECK(partitions_for(1'000'000) == kMaxPartitions);
    }
    SECTION("state read across processes, or a tie to the observer: one partition, said why") {
        CHECK(partition_processes(g, lp, {}, "HPCC").count == 1);
        CHECK(partition_processes(g, lp, {}, "HPCC").single_reason == "HPCC");
        const std::vector<ProcessTie> observer = {{0, lp.count}};
        const Partitions one = partition_processes(g, lp, observer, "");
        CHECK(one.count == 1);
        CHECK_FALSE(one.single_reason.empty());
        CHECK_FALSE(one.is_cut(0));
    }
}

TEST_CASE("cuts made at once on several threads are the cut made alone", "[partitions][threads]") {
    // METIS keeps its random state process-wide: two runs cut at once (a sweep's points on
    // threads, ranks tested in one process) must not draw from each other's sequence.
    const TestFabric f(small_ft2(16, 64));
    const PortGraph& g = f.topology.graph;
    const LogicalProcesses lp = logical_processes(g, nullptr);
    const Partitions alone = partition_processes(g, lp, {}, "", {}, 16);
    std::vector<std::vector<std::uint32_t>> cuts(4 * 25);
    {
        std::vector<std::jthread> threads;
        for (std::uint32_t t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (std::uint32_t i = 0; i < 25; ++i)
                    cuts[t * 25 + i] = partition_processes(g, lp, {}, "", {}, 16).of_process;
            });
    }
    for (const auto& cut : cuts) CHECK(cut == alone.of_process);
}
