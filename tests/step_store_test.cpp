#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "serving_support.hpp"
#include "support.hpp"
#include "tools/scenario/step_store.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

std::size_t files_in(const std::filesystem::path& dir) {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        n += e.path().extension() == ".json";
    return n;
}

// A run's results without what only says how this process got them.
nlohmann::json model_results(nlohmann::json j) {
    j["sim"].erase("wall_s");
    j["sim"].erase("step_runs_from_store");
    return j;
}

}  // namespace

TEST_CASE(
    "step runs kept in a step store are read back, not rerun, by a run that differs in its "
    "requests, with the results of a run without the store",
    "[serving][system][long]") {
    const auto dir = temp_dir("step-store");
    write_text(dir / "s.yaml", kServing);
    const std::string store = (dir / "store").string();
    auto run = [&](const std::string& extra) {
        const auto r =
            run_cli(fmt::format("run {} --json --quiet {}", (dir / "s.yaml").string(), extra));
        INFO(extra << ": " << r.err);
        REQUIRE(r.exit_code == 0);
        return nlohmann::json::parse(r.out);
    };
    const nlohmann::json first = run("--step-store " + store);
    const auto runs = first["serving"]["step_simulations"].get<std::uint64_t>();
    REQUIRE(runs > 4);
    CHECK(first["sim"]["step_runs_from_store"] == 0);
    CHECK(files_in(store) == runs);  // one file a run

    // More requests, other lengths and another SLO: the same steps, all from the store.
    const std::string other =
        "--set serving.arrival.rate_per_s=40 --set serving.duration_s=0.6 "
        "--set serving.slo.ttft_ms=150 --set serving.output_tokens.max=20";
    const nlohmann::json stored = run("--step-store " + store + " " + other);
    const nlohmann::json cold = run(other);
    const auto again = stored["serving"]["step_simulations"].get<std::uint64_t>();
    CHECK(stored["sim"]["step_runs_from_store"].get<std::uint64_t>() > 0);
    CHECK(stored["sim"]["step_runs_from_store"].get<std::uint64_t>() <= again);
    CHECK(files_in(store) ==
          runs + again - stored["sim"]["step_runs_from_store"].get<std::uint64_t>());
    CHECK(cold["sim"]["step_runs_from_store"] == 0);
    CHECK(model_results(stored) == model_results(cold));
    // Run again: every step from the store.
    const nlohmann::json third = run("--step-store " + store + " " + other);
    CHECK(third["sim"]["step_runs_from_store"] == again);
    CHECK(model_results(third) == model_results(cold));

    // What changes a step's packets is not read from the store: the seed, a fabric key, a
    // workload key.
    for (const std::string changed :
         {"--seed 2", "--set network.link_delay_ns=800", "--set workload.simulated_layers=1"}) {
        const nlohmann::json j = run("--step-store " + store + " " + changed);
        INFO(changed);
        CHECK(j["sim"]["step_runs_from_store"] == 0);
    }
}

TEST_CASE("a step store's file that does not hold its run is simulated again and rewritten",
          "[serving][system][long]") {
    const auto dir = temp_dir("step-store-damaged");
    write_text(dir / "s.yaml", kServing);
    const auto store = dir / "store";
    const std::string cmd = fmt::format("run {} --json --quiet --step-store {}",
                                        (dir / "s.yaml").string(), store.string());
    const auto first = run_cli(cmd);
    REQUIRE(first.exit_code == 0);
    const auto runs =
        nlohmann::json::parse(first.out)["serving"]["step_simulations"].get<std::uint64_t>();
    // One cut short, one changed to another run's key under its own name, one not a record.
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(store)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 2);
    const std::string whole = read_text(files[0]);
    write_text(files[0], whole.substr(0, whole.size() / 2));
    nlohmann::json other = nlohmann::json::parse(read_text(files[1]));
    other["key"]["size"] = other["key"]["size"].get<std::uint64_t>() + 1;
    write_text(files[1], other.dump());
    REQUIRE(files.size() >= 3);
    write_text(files[2], R"({"format": 1, "key": [], "run": "x"})");
    const auto second = run_cli(cmd);
    INFO(second.err);
    REQUIRE(second.exit_code == 0);
    const nlohmann::json a = nlohmann::json::parse(first.out),
                         b = nlohmann::json::parse(second.out);
    CHECK(b["sim"]["step_runs_from_store"] == runs - 3);
    CHECK(model_results(a) == model_results(b));
    CHECK(read_text(files[0]) == whole);  // rewritten whole
}

TEST_CASE("a step store where none can be made, or for a run with no steps, is a located error",
          "[serving][input][system]") {
    const auto dir = temp_dir("step-store-bad");
    write_text(dir / "s.yaml", kServing);
    write_text(dir / "a-file", "x");
    for (const std::string cmd : {"run", "serve-search"}) {
        const auto r =
            run_cli(fmt::format("{} {} --quiet --step-store {}", cmd, (dir / "s.yaml").string(),
                                (dir / "a-file" / "store").string()));
        INFO(cmd << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.err.find("--step-store") != std::string::npos);
    }
    write_text(dir / "step.yaml",
               "model: {name: deepseek-v3}\ncluster: {node: h800}\n"
               "topology: {kind: mpft}\nworkload: {kind: moe}\n");
    const auto r = run_cli(fmt::format("run {} --quiet --step-store {}",
                                       (dir / "step.yaml").string(), (dir / "store").string()));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("no serving: section") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "store"));
}

TEST_CASE("a step store's digest leaves out the keys no step reads, and nothing else",
          "[serving]") {
    for (const char* k : {"serving.arrival.rate_per_s", "serving.arrival", "serving.slo.ttft_ms",
                          "serving.prompt_tokens.mean", "serving.output_tokens.kind",
                          "serving.duration_s", "serving.timeline_s", "serving.step_cache", "name",
                          "seed", "sim.replicates", "cost.switch_usd", "cost.cables.endpoint-aoc"})
        CHECK(outside_step_runs(k));
    for (const char* k : {"serving.deployment.kind", "serving.deployment.prefill.ep_size",
                          "serving.kv_transfer.via", "serving.slow", "serving.arrivals",
                          "workload.kind", "seeds", "named", "sim.partitions",
                          "workload.expert_load_file", "faults[0].kind", "costs", "cluster.node"})
        CHECK_FALSE(outside_step_runs(k));
}

TEST_CASE("a step store's binary digest blanks the commit's name and the build ID, nothing else",
          "[serving]") {
    const std::string_view note{"\x04\0\0\0\x14\0\0\0\x03\0\0\0GNU\0", 16};
    const std::string c1 = "0123456789abcdef0123456789abcdef01234567";
    const std::string c2 = "fedcba9876543210fedcba9876543210fedcba98";
    auto program = [&](const std::string& commit, char id) {
        return "\x7f"
               "ELF" +
               std::string(note) + std::string(20, id) + " code\x01\x02 " + commit + " more code " +
               commit + "\x7f";
    };
    const std::string a = program(c1, 'a'), b = program(c2, 'b');
    REQUIRE(a.size() == b.size());
    // The same program built at another commit: both copies of the name and the build ID
    // differ, and are blanked.
    CHECK(program_digest(a, c1) == program_digest(b, c2));
    // A changed byte elsewhere is another program; a name or build ID left is too.
    std::string changed = a;
    changed[a.size() - 12] = '\x03';
    CHECK(program_digest(changed, c1) != program_digest(a, c1));
    CHECK(program_digest(a, "") != program_digest(b, ""));
    CHECK(program_digest(a, c1 + "-dirty") != program_digest(b, c2 + "-dirty"));
    CHECK(program_digest(a, c1) != program_digest(program(c2, 'a'), c1));
    CHECK(program_digest(a, c1) == program_digest(program(c1, 'z'), c1));
}

TEST_CASE(
    "a sweep keeps its serving points' step runs under its output folder: a point that "
    "differs in its requests reads them, and the sweep run again reruns none",
    "[serving][system][long]") {
    const auto dir = temp_dir("step-store-sweep");
    write_text(dir / "s.yaml", kServing);
    write_text(dir / "sweep.yaml",
               "name: stored-sweep\nbase: s.yaml\nseeds: 1\n"
               "grid: {serving.arrival.rate_per_s: [30, 40]}\n"
               "objective: {key: serving.goodput_rps_per_musd, goal: max}\n");
    const std::string cmd = fmt::format("sweep {} --quiet -j 1 --out {}",
                                        (dir / "sweep.yaml").string(), (dir / "out").string());
    const auto swept = run_cli(cmd);
    INFO(swept.err);
    REQUIRE(swept.exit_code == 0);
    auto from_store = [&](int point) {
        const nlohmann::json p = nlohmann::json::parse(
            read_text(dir / "out" / "points" / fmt::format("{:05}.json", point)));
        return p["runs"][0]["results"]["sim"]["step_runs_from_store"].get<std::uint64_t>();
    };
    CHECK(from_store(0) == 0);
    CHECK(from_store(1) > 0);
    const std::size_t kept = files_in(dir / "out" / "step-store");
    CHECK(kept > 0);
    // Point 1 lost (as a sweep stopped inside it): run again, all its steps are kept ones.
    std::filesystem::remove(dir / "out" / "points" / "00001.json");
    const auto again = run_cli(cmd);
    REQUIRE(again.exit_code == 0);
    const nlohmann::json p = nlohmann::json::parse(read_text(dir / "out/points/00001.json"));
    const nlohmann::json& r = p["runs"][0]["results"];
    CHECK(r["sim"]["step_runs_from_store"] == r["serving"]["step_simulations"]);
    CHECK(files_in(dir / "out" / "step-store") == kept);
}

TEST_CASE("a step store reads an expert-load file's bytes, not its name",
          "[serving][system][long]") {
    const auto dir = temp_dir("step-store-loads");
    const std::string from = "workload: {kind: moe, simulated_layers: 2}";
    std::string yaml = kServing;
    const auto at = yaml.find(from);
    REQUIRE(at != std::string::npos);
    write_text(dir / "s.yaml",
               yaml.replace(at, from.size(),
                            "workload: {kind: moe, simulated_layers: 2, gating: trace, "
                            "expert_load_file: load.csv}"));
    auto loads = [&](int hot) {
        std::string csv = "expert,load\n";
        for (int e = 0; e < 256; ++e) csv += fmt::format("{},{}\n", e, e == hot ? 1000 : 1);
        write_text(dir / "load.csv", csv);
    };
    auto from_store = [&] {
        const auto r = run_cli(fmt::format("run {} --json --quiet --step-store {}",
                                           (dir / "s.yaml").string(), (dir / "store").string()));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        return nlohmann::json::parse(r.out)["sim"]["step_runs_from_store"].get<std::uint64_t>();
    };
    loads(5);
    CHECK(from_store() == 0);
    CHECK(from_store() > 0);
    loads(77);  // the same name, another hot expert: every step runs again
    CHECK(from_store() == 0);
}
