#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include "support.hpp"
#include "tools/scenario/result_keys.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/scenario.hpp"

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
        // Three problems, each once although each is in two of the four points, in file order.
        REQUIRE(got.size() == 3);
        CHECK(got[0].rfind(file + ":6:27: grid.network.routing[1]: unknown value 'adaptiv'", 0) ==
              0);
        CHECK(got[1].rfind(file + ":7:33: grid.workload.tokens_per_gpu[1]: -3", 0) == 0);
        CHECK(got[2].rfind(file + ":9:18: objective: 'decode.tokens_per_s_per_gpuu' is not", 0) ==
              0);
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
        const PreparedRun p = prepare_run(s);
        const RunOutcome o = execute_run(s, p, false);
        REQUIRE(o.result.status == SimulationResult::Status::Completed);
        std::vector<std::string> paths;
        numeric_paths(o.results, "", paths);
        std::size_t checked = 0;
        for (const std::string& path : paths) {
            const std::string section = path.substr(0, path.find('.'));
            if (section == "seed" || section == "faults") continue;
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
