#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include "support.hpp"
#include "tools/scenario/result_keys.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/sweep_file.hpp"

using namespace clustersim;
using namespace clustersim::test;

TEST_CASE("check passes every shipped sweep file with an estimate of what it would spend",
          "[sweep][system]") {
    for (const auto& f : std::filesystem::directory_iterator(
             std::filesystem::path(source_path("scenarios/sweeps")))) {
        if (f.path().extension() != ".yaml") continue;
        INFO(f.path());
        const auto r = run_cli("check " + f.path().string());
        INFO(r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out.find(": ok (") != std::string::npos);
        // A serving sweep simulates the step shapes its requests need: no formula counts them.
        if (f.path().filename().string().rfind("serving-", 0) == 0) {
            CHECK(r.out.find("memory about") != std::string::npos);
            CHECK(r.out.find("events and wall time not estimated") != std::string::npos);
            continue;
        }
        CHECK(r.out.find("events; memory about") != std::string::npos);
        CHECK(r.out.find("wall time about") != std::string::npos);
    }
}

TEST_CASE("check of a sweep locates each problem at its grid entry or objective, once, exit 2",
          "[sweep][system]") {
    const auto dir = temp_dir("sweep-check-bad");
    write_text(dir / "s.yaml",
               "base:\n"
               "  model: {name: deepseek-v3}\n"
               "  topology: {kind: mpft, endpoints: 32}\n"
               "  workload: {kind: moe, phase: decode, ep_size: 32, simulated_layers: 2}\n"
               "grid:\n"
               "  network.routing: [ecmp, adaptiv]\n"
               "  workload.tokens_per_gpu: [16, -3]\n"
               "seeds: 1\n"
               "objective: {key: decode.tokens_per_s_per_gpuu, goal: max}\n");
    const std::string file = (dir / "s.yaml").string();
    for (const std::string& cmd :
         {"check " + file, "sweep " + file + " --dry-run --out " + (dir / "never").string()}) {
        INFO(cmd);
        const auto r = run_cli(cmd);
        CHECK(r.exit_code == 2);
        std::istringstream lines(r.err);
        std::vector<std::string> got;
        for (std::string l; std::getline(lines, l);) got.push_back(l);
        // Three problems, each once although each is in two of the four points, in file order,
        // then a warning: an MPFT of 32 GPUs has one switch per plane, so routing is moot.
        REQUIRE(got.size() == 4);
        CHECK(got[0].rfind(file + ":6:27: grid.network.routing[1]: unknown value 'adaptiv'", 0) ==
              0);
        CHECK(got[1].rfind(file + ":7:33: grid.workload.tokens_per_gpu[1]: -3", 0) == 0);
        CHECK(got[2].rfind(file + ":9:18: objective: 'decode.tokens_per_s_per_gpuu' is not", 0) ==
              0);
        CHECK(got[3].rfind(file + ":6:3: grid.network.routing: changes nothing", 0) == 0);
        CHECK(r.out.find("not ok (4 points, 1 valid") != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(dir / "never"));  // a dry run runs nothing
}

namespace {

void numeric_paths(const Json& j, const std::string& prefix, std::vector<std::string>& out) {
    if (j.is_object()) {
        for (const auto& [k, v] : j.items())
            numeric_paths(v, prefix.empty() ? k : prefix + "." + k, out);
    } else if (j.is_number()) {
        out.push_back(prefix);
    }
}

}  // namespace

TEST_CASE("every number a run reports is a key a sweep's objective may name", "[sweep]") {
    // A MoE decode (its phase section) and an all-to-all (the fixed sections), run for real:
    // the catalogue the objective is checked against must hold each of their numbers.
    for (const std::string& yaml :
         {std::string("model: {name: deepseek-v3}\ntopology: {kind: mpft, endpoints: 32}\n"
                      "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 16, "
                      "simulated_layers: 2}\n"),
          std::string("topology: {kind: ft2, switch_radix: 8, endpoints: 32}\ncluster: {node: "
                      "none}\nworkload: {kind: alltoall, message_bytes: 16KiB}\n")}) {
        const auto dir = temp_dir("result-keys");
        write_text(dir / "s.yaml", yaml);
        const Scenario s = load_scenario((dir / "s.yaml").string(), {});
        PreparedRun p = prepare_run(s);
        const RunOutcome o = execute_run(s, p, false);
        REQUIRE(o.result.status == SimulationResult::Status::Completed);
        std::vector<std::string> paths;
        numeric_paths(o.results, "", paths);
        std::size_t checked = 0;
        for (const std::string& path : paths) {
            const std::string section = path.substr(0, path.find('.'));
            // Inputs and provenance, not results.
            if (section == "seed" || section == "faults" || section == "resolved_scenario" ||
                section == "tool")
                continue;
            std::string hint;
            INFO(path);
            CHECK(known_result_key(s, path, hint));
            ++checked;
        }
        CHECK(checked > 60);
        std::string hint;
        CHECK_FALSE(known_result_key(s, "messages.makespan", hint));
        CHECK(hint.find("messages.makespan_us") != std::string::npos);
    }
}

TEST_CASE("check warns of a routing axis on fabrics where no switch has a choice",
          "[sweep][system]") {
    const auto dir = temp_dir("sweep-check-noop");
    auto sweep = [&](const std::string& topology) {
        write_text(dir / "s.yaml",
                   "base:\n"
                   "  cluster: {node: none}\n"
                   "  topology: " +
                       topology +
                       "\n"
                       "  workload: {kind: alltoall, message_bytes: 4KiB}\n"
                       "grid:\n"
                       "  network.routing: [ecmp, adaptive]\n"
                       "seeds: 1\n");
        return run_cli("check " + (dir / "s.yaml").string());
    };
    // One leaf switch: every destination one hop away, one way.
    const auto single = sweep("{kind: ft2, switch_radix: 16, endpoints: 8}");
    CHECK(single.exit_code == 0);  // a warning, not an error
    CHECK(single.err.find((dir / "s.yaml").string() +
                          ":6:3: grid.network.routing: changes nothing") != std::string::npos);
    // Two leaves and spines: a choice of spine.
    const auto fabric = sweep("{kind: ft2, switch_radix: 8, endpoints: 32}");
    CHECK(fabric.exit_code == 0);
    CHECK(fabric.err.find("changes nothing") == std::string::npos);
}

TEST_CASE("a sweep prints an aligned table named by its keys, and keeps every run's results",
          "[sweep][system]") {
    const auto dir = temp_dir("sweep-table");
    write_text(dir / "s.yaml",
               "base:\n"
               "  cluster: {node: none}\n"
               "  topology: {kind: ft2, switch_radix: 8, endpoints: 32}\n"
               "  workload: {kind: alltoall, message_bytes: 16KiB}\n"
               "grid:\n"
               "  network.routing: [ecmp, adaptive]\n"
               "  topology.switch_radix: [8, 16]\n"
               "seeds: 2\n"
               "objective: {key: messages.makespan_us, goal: min}\n");
    const auto r = run_cli("sweep " + (dir / "s.yaml").string() + " --out " + (dir / "o").string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::istringstream lines(r.out);
    std::vector<std::string> got;
    for (std::string l; std::getline(lines, l);) got.push_back(l);
    REQUIRE(got.size() == 5);  // the header, four points
    CHECK(got[0].rfind("point  network.routing  topology.switch_radix  status", 0) == 0);
    CHECK(got[0].find("messages.makespan_us (min)") != std::string::npos);
    CHECK(got[1].find("ecmp") != std::string::npos);
    CHECK(got[1].find(" +/- ") != std::string::npos);  // two seeds: an interval
    // Rows line up: each value column starts where its header does.
    const auto col = got[0].find("topology.switch_radix");
    for (std::size_t i = 1; i < got.size(); ++i)
        CHECK(got[i].substr(col, 2).find_first_of("81") == 0);
    // results.json: the varied values typed; each point's record: every run's whole results.
    const Json j = Json::parse(read_text(dir / "o" / "results.json"));
    CHECK(j["points"][1]["sets"]["topology.switch_radix"] == 16);
    CHECK(j["points"][1]["sets"]["network.routing"] == "ecmp");
    const Json rec = Json::parse(read_text(dir / "o" / "points" / "00001.json"));
    REQUIRE(rec["runs"].size() == 2);
    CHECK(rec["runs"][1]["results"]["resolved_scenario"]["topology"]["switch_radix"] == 16);
    CHECK(rec["runs"][1]["results"]["messages"]["makespan_us"] ==
          rec["runs"][1]["metrics"]["objective"]);
}

TEST_CASE("a sweep with a point that does not complete exits 4 and still writes the table",
          "[sweep][system]") {
    const auto dir = temp_dir("sweep-incomplete");
    // The second point's time limit stops it long before its all-to-all ends.
    write_text(dir / "s.yaml",
               "base:\n"
               "  cluster: {node: none}\n"
               "  topology: {kind: ft2, switch_radix: 8, endpoints: 32}\n"
               "  workload: {kind: alltoall, message_bytes: 16KiB}\n"
               "grid:\n"
               "  sim.max_time_us: [1000000, 1]\n"
               "objective: {key: messages.makespan_us, goal: min}\n");
    const auto r = run_cli("sweep " + (dir / "s.yaml").string() + " --out " + (dir / "o").string());
    INFO(r.err);
    CHECK(r.exit_code == 4);
    const std::string csv = read_text(dir / "o" / "results.csv");
    CHECK(csv.find("\n0,1000000,3,completed,") != std::string::npos);
    CHECK(csv.find("\n1,1,3,time_limit,") != std::string::npos);
    CHECK(r.out.find("time_limit") != std::string::npos);  // the table on stdout too
}

TEST_CASE("a sweep's serve_search section sets each option of the searches its points run",
          "[sweep]") {
    const std::string head =
        "name: s\nbase: {model: {name: deepseek-v3}}\ngrid: {serving.slo.tpot_ms: [60]}\n";
    const SweepSpec set = load_sweep_text(
        head + "serve_search: {attainment: 0.75, precision: 0.125, max_probes: 5}\n", "s.yaml", {});
    CHECK(set.serve_search);
    CHECK(set.search.attainment == 0.75);
    CHECK(set.search.precision == 0.125);
    CHECK(set.search.max_probes == 5);
    const SweepSpec defaults = load_sweep_text(head + "serve_search: {}\n", "s.yaml", {});
    CHECK(defaults.serve_search);
    CHECK(defaults.search.attainment == ServeSearchOptions{}.attainment);
    CHECK(defaults.search.precision == ServeSearchOptions{}.precision);
    CHECK(defaults.search.max_probes == ServeSearchOptions{}.max_probes);
    // An objective under serve_search asks for the searches too; without either, runs.
    CHECK(
        load_sweep_text(head + "objective: serve_search.rate_per_s\n", "s.yaml", {}).serve_search);
    CHECK_FALSE(load_sweep_text(head, "s.yaml", {}).serve_search);
    // A point searched with other options is another point (its record is not reused).
    const SweepPoint point = sweep_points(set).front();
    CHECK(point_fingerprint(set, point) != point_fingerprint(defaults, point));
}
