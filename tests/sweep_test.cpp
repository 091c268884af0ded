// clustersim sweep: points are the grid's product and the zipped lists; a failed point is a row
// with its error; -j 2 and a resumed run give the same results.csv as one uninterrupted thread;
// the Pareto front is what no cheaper-and-better point dominates.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support.hpp"
#include "tools/scenario/pareto.hpp"
#include "tools/scenario/sweep.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

const std::string kSweep =
    "base:\n"
    "  cluster: {node: h800}\n"
    "  topology: {kind: ft2, endpoints: 32}\n"
    "  workload: {kind: alltoall, message_bytes: 16KiB}\n"
    "grid:\n"
    "  topology.kind: [ft2, mpft, ft3]\n"
    "  network.link_rate_gbps: [200, 400]\n"
    "objective: bandwidth.busbw_GBps\n";

std::string read(const std::filesystem::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

SweepSummary sweep(const std::string& yaml, const std::string& name, unsigned threads,
                   const std::filesystem::path& out = {}) {
    const auto dir = temp_dir("sweep-" + name);
    write_text(dir / "s.yaml", yaml);
    SweepOptions o;
    o.threads = threads;
    o.out_dir = out.string();
    o.progress = false;
    return run_sweep(load_sweep((dir / "s.yaml").string(), {}), o);
}

}  // namespace

TEST_CASE("a sweep runs the grid's product, and zipped lists together", "[sweep]") {
    const auto dir = temp_dir("sweep-points");
    write_text(dir / "s.yaml",
               kSweep + "zip:\n  seed: [1, 2]\n  workload.message_bytes: [1KiB, 2KiB]\n");
    const SweepSpec spec = load_sweep((dir / "s.yaml").string(), {"network.routing=ecmp,spray"});
    const auto points = sweep_points(spec);
    REQUIRE(points.size() == 3 * 2 * 2 * 2);  // kind x rate x routing (--grid) x zip rows
    CHECK(points[0].sets[0].value == "ft2");
    CHECK(points[0].sets[2].value == "ecmp");
    CHECK(points[0].sets[3].value == "1");
    CHECK(points[0].sets[4].value == "1KiB");
    CHECK(points[1].sets[3].value == "2");
    CHECK(points[1].sets[4].value == "2KiB");
    CHECK(points.back().sets[0].value == "ft3");
}

TEST_CASE("sweep rows: costs, the objective, the Pareto front, failed points kept", "[sweep]") {
    const SweepSummary s = sweep(kSweep + "zip:\n  topology.endpoints: [32, 100000]\n", "rows", 1);
    REQUIRE(s.points == 12);
    const Json& rows = s.json["points"];
    std::size_t failed = 0, front = 0;
    for (const auto& r : rows) {
        if (r["status"] != "completed") {
            ++failed;
            // 100,000 NICs exceed each of these fabrics at this radix: the error is kept.
            CHECK(r["error"].get<std::string>().find("topology.endpoints") != std::string::npos);
            continue;
        }
        const Json& m = r["metrics"];
        CHECK(m["objective"]["mean"] == m["busbw_GBps"]["mean"]);
        // 4 H800 servers at the preset price on top of the fabric.
        CHECK(m["cluster_cost_usd"]["mean"].get<double>() ==
              Approx(m["cost_usd"]["mean"].get<double>() + 4 * 250000.0));
        front += r["pareto"].get<bool>();
    }
    CHECK(failed == 6);
    CHECK(s.failed == 6);
    // A front point is not dominated: no completed point is cheaper-or-equal and better.
    for (const auto& a : rows) {
        if (!a["pareto"].get<bool>()) continue;
        for (const auto& b : rows) {
            if (b["status"] != "completed" || &a == &b) continue;
            const double ca = a["metrics"]["cluster_cost_usd"]["mean"],
                         oa = a["metrics"]["objective"]["mean"];
            const double cb = b["metrics"]["cluster_cost_usd"]["mean"],
                         ob = b["metrics"]["objective"]["mean"];
            auto ci = [](const Json& r) { return r["metrics"]["objective"].value("ci95", 0.0); };
            const bool tied = std::abs(oa - ob) <= ci(a) + ci(b);
            const bool better = !tied && ob > oa;
            CHECK_FALSE((cb <= ca && (better || tied) && (cb < ca || better)));
        }
    }
    CHECK(front >= 1);
    CHECK(front < 6);  // 200G links at the same price are dominated
}

TEST_CASE("two threads and a resumed sweep give the results.csv of one uninterrupted thread",
          "[sweep]") {
    const auto base = temp_dir("sweep-resume");
    const SweepSummary one = sweep(kSweep, "one", 1, base / "one");
    const SweepSummary two = sweep(kSweep, "two", 2, base / "two");
    CHECK(two.csv == one.csv);
    CHECK(read(base / "two" / "results.csv") == one.csv);
    // Interrupted after some points: their records exist, the rest and the tables do not.
    std::filesystem::remove(base / "two" / "results.csv");
    std::filesystem::remove(base / "two" / "results.json");
    std::filesystem::remove(base / "two" / "points" / "00001.json");
    std::filesystem::remove(base / "two" / "points" / "00004.json");
    const SweepSummary resumed = sweep(kSweep, "two", 1, base / "two");
    CHECK(resumed.resumed == 4);
    CHECK(resumed.csv == one.csv);
    CHECK(read(base / "two" / "results.csv") == one.csv);
}

TEST_CASE("with seeds a sweep reports each metric's mean and 95 % interval", "[sweep]") {
    const SweepSummary s = sweep(
        "base:\n  cluster: {node: none}\n  topology: {kind: ft2, switch_radix: 8}\n"
        "  workload: {kind: permutation, message_bytes: 64KiB}\n  network: {routing: ecmp}\n"
        "grid:\n  network.link_rate_gbps: [400]\nseeds: 4\nobjective: messages.latency_us.p99\n",
        "seeds", 2);
    REQUIRE(s.points == 1);
    CHECK(s.json["goal"] == "min");  // a latency
    const Json& m = s.json["points"][0]["metrics"];
    CHECK(m["makespan_us"].contains("ci95"));
    CHECK(m["makespan_us"]["ci95"].get<double>() > 0);  // seeded permutations differ
    CHECK(s.csv.find("makespan_us_ci95") != std::string::npos);
}

TEST_CASE("a sweep's replicates are its seeds: sim.replicates in a point is refused, located",
          "[sweep][input]") {
    const SweepSummary s = sweep(
        "base:\n  cluster: {node: none}\n  topology: {kind: ft2, switch_radix: 8}\n"
        "  workload: {kind: permutation, message_bytes: 64KiB}\n  sim: {replicates: 2}\n"
        "grid:\n  network.link_rate_gbps: [400]\n",
        "replicates", 1);
    REQUIRE(s.points == 1);
    const Json& p = s.json["points"][0];
    CHECK(p["status"] == "error");
    CHECK(p["error"].get<std::string>().find("sim.replicates") != std::string::npos);
    CHECK(p["error"].get<std::string>().find("seeds: N") != std::string::npos);
}

TEST_CASE("a bad sweep file is one located line", "[sweep][input]") {
    const auto dir = temp_dir("sweep-bad");
    auto error_of = [&](const std::string& yaml) {
        write_text(dir / "s.yaml", yaml);
        try {
            (void)load_sweep((dir / "s.yaml").string(), {});
        } catch (const InputError& e) {
            return e.formatted();
        }
        return std::string("no error");
    };
    CHECK(error_of("base: {}\ngrid:\n  topology.kinds: [ft2]\n")
              .find("s.yaml:3:3: grid.topology.kinds: not a scenario key") != std::string::npos);
    CHECK(error_of("base: {}\ngrid: {topology.kind: [ft2]}\nseed: 3\n")
              .find("s.yaml:3:1: seed: unknown key") != std::string::npos);
    CHECK(error_of("base: {}\nzip:\n  seed: [1, 2]\n  topology.kind: [ft2]\n")
              .find("zip.topology.kind: 1 values where the first zip list has 2") !=
          std::string::npos);
    CHECK(error_of("grid: {topology.kind: [ft2]}\n").find("base: missing") != std::string::npos);
    CHECK(error_of("base: {}\n").find("grid: missing") != std::string::npos);
}

TEST_CASE("every shipped sweep file loads", "[sweep]") {
    for (const auto& entry : std::filesystem::directory_iterator(
             std::string(CLUSTERSIM_SOURCE_DIR) + "/scenarios/sweeps")) {
        INFO(entry.path());
        const SweepSpec spec = load_sweep(entry.path().string(), {});
        CHECK(!sweep_points(spec).empty());
        CHECK(!spec.objective.empty());
    }
}

TEST_CASE("a sweep without a workload prices each fabric without simulating", "[sweep]") {
    const SweepSummary s = sweep(
        "base: {topology: {kind: ft2}}\ngrid:\n  topology.kind: [ft2, mpft, dragonfly]\n"
        "objective: topology.cost_per_endpoint_usd\n",
        "cost-only", 1);
    REQUIRE(s.points == 3);
    CHECK(s.failed == 0);
    CHECK(s.json["goal"] == "min");
    const Json& ft2 = s.json["points"][0]["metrics"];
    // Quantum-2 FT2 at radix 64: 2,048 NICs at $4,390 each (ISCA '25 Table 3's price method).
    CHECK(ft2["cost_per_endpoint_usd"]["mean"].get<double>() == Approx(4390));
    CHECK(ft2["objective"]["mean"] == ft2["cost_per_endpoint_usd"]["mean"]);
    CHECK_FALSE(ft2.contains("makespan_us"));
}

TEST_CASE(
    "a sweep objective is {key, goal}: the goal it states wins over the key's name, a "
    "plain key has its goal inferred and said so, a bad goal is located",
    "[sweep]") {
    const auto dir = temp_dir("sweep-objective");
    auto load = [&](const std::string& objective) {
        write_text(
            dir / "s.yaml",
            "base: {topology: {kind: ft2}}\ngrid: {seed: [1, 2]}\nobjective: " + objective + "\n");
        return load_sweep((dir / "s.yaml").string(), {});
    };
    // A latency is better small by its name; the stated goal says otherwise and wins.
    const SweepSpec stated = load("{key: messages.makespan_us, goal: max}");
    CHECK(stated.objective == "messages.makespan_us");
    CHECK(stated.maximize);
    CHECK_FALSE(stated.goal_inferred);
    const SweepSpec plain = load("messages.makespan_us");
    CHECK_FALSE(plain.maximize);
    CHECK(plain.goal_inferred);
    try {
        (void)load("{key: messages.makespan_us, goal: up}");
        FAIL("accepted");
    } catch (const InputError& e) {
        CHECK(std::string(e.formatted()).find("objective.goal: expected max or min") !=
              std::string::npos);
    }
}

TEST_CASE("the Pareto front treats objectives within each other's 95 % interval as tied",
          "[sweep][pareto]") {
    // Equal costs: a point tied with a better one stays (the sweep cannot tell them apart). A
    // cheaper point tied with a dearer one removes it; a dearer one better beyond the noise stays.
    const std::vector<ParetoPoint> points = {{100.0, 10.0, 0.5},
                                             {100.0, 10.6, 0.2},
                                             {120.0, 12.0, 0.1},
                                             {90.0, 9.0, 0.1},
                                             {80.0, 8.95, 0.1}};
    const std::vector<bool> front = pareto_front(points, true);
    CHECK(front == std::vector<bool>{true, true, true, false, true});
    // Without intervals 10.0 is worse than 10.6 at the same cost: off the front.
    std::vector<ParetoPoint> exact = points;
    for (auto& p : exact) p.objective_ci95 = 0;
    CHECK(pareto_front(exact, true) == std::vector<bool>{false, true, true, true, true});
    const auto ties = front_ties(points, front);
    CHECK(ties[0] == std::vector<std::size_t>{1});
    CHECK(ties[1] == std::vector<std::size_t>{0});
    CHECK(ties[2].empty());
    CHECK(ties[3].empty());  // off the front: nothing to say
}

TEST_CASE("a sweep with seeds prints intervals and marks tied points", "[sweep][pareto]") {
    // Three seeds (the default) of a seeded permutation on ECMP: 1 ps more latency is within
    // the noise of the p99, 20 us is not.
    const SweepSummary s = sweep(
        "base:\n  cluster: {node: none}\n  topology: {kind: ft2, switch_radix: 8}\n"
        "  workload: {kind: permutation, message_bytes: 64KiB}\n  network: {routing: ecmp}\n"
        "grid:\n  network.extra_latency_us: [0, 0.000001, 20]\nobjective: "
        "messages.latency_us.p99\n",
        "ties", 2);
    REQUIRE(s.points == 3);
    CHECK(s.json["seeds"] == 3);
    const Json& rows = s.json["points"];
    CHECK(rows[0]["metrics"]["objective"]["ci95"].get<double>() > 0);
    CHECK(rows[0]["pareto"] == true);
    CHECK(rows[1]["pareto"] == true);
    CHECK(rows[2]["pareto"] == false);
    CHECK(rows[0]["tied_with"] == Json::array({1}));
    CHECK(rows[1]["tied_with"] == Json::array({0}));
    CHECK(s.csv.find(",pareto,tied_with,") != std::string::npos);
    CHECK(s.csv.find("objective_ci95") != std::string::npos);
}
