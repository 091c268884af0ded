#include <catch2/catch.hpp>

#include <string>

#include "support.hpp"
#include "tools/scenario/results_json.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

const Json* row_of(const Json& c, const std::string& key) {
    for (const Json& r : c["rows"])
        if (r["key"] == key) return &r;
    return nullptr;
}

}  // namespace

TEST_CASE("compare prints what 100 us of extra latency costs, run against run",
          "[compare][system]") {
    const auto a = temp_dir("compare-a"), b = temp_dir("compare-b");
    const std::string scen = source_path("scenarios/ft2-alltoall.yaml") +
                             " --set topology.endpoints=32 --set workload.message_bytes=16KiB";
    REQUIRE(run_cli("run " + scen + " --quiet --out " + a.string()).exit_code == 0);
    REQUIRE(
        run_cli("run " + scen + " --set network.extra_latency_us=100 --quiet --out " + b.string())
            .exit_code == 0);
    const auto table = run_cli("compare " + a.string() + " " + b.string());
    INFO(table.err);
    REQUIRE(table.exit_code == 0);
    CHECK(table.out.find("messages.makespan_us") != std::string::npos);
    CHECK(table.out.find("[2]-[1]") != std::string::npos);
    const auto json = run_cli("compare " + a.string() + " " + b.string() + " --json");
    REQUIRE(json.exit_code == 0);
    const Json c = Json::parse(json.out);
    const Json* makespan = row_of(c, "messages.makespan_us");
    REQUIRE(makespan);
    // Every message finishes 100 us later: the makespan moves by that, the bytes not at all.
    CHECK((*makespan)["delta"][0].get<double>() == Approx(100).margin(0.5));
    CHECK((*makespan)["relative"][0].get<double>() > 0);
    CHECK((*makespan)["beyond_intervals"][0].is_null());  // no replicates, no intervals
    const Json* dropped = row_of(c, "network.bytes_dropped");
    REQUIRE(dropped);
    CHECK((*dropped)["delta"][0].get<double>() == 0);
}

TEST_CASE("compare judges a difference against the runs' intervals when they have replicates",
          "[compare][system][long]") {
    const auto a = temp_dir("compare-ra"), b = temp_dir("compare-rb"), c = temp_dir("compare-rc");
    const std::string scen = source_path("scenarios/deepseek-v3-decode.yaml") +
                             " --set topology.endpoints=32 --set workload.ep_size=32 --set "
                             "workload.tokens_per_gpu=16 --set workload.simulated_layers=2 "
                             "--set sim.replicates=3 --quiet --out ";
    REQUIRE(run_cli("run " + scen + a.string()).exit_code == 0);
    REQUIRE(run_cli("run " + scen + b.string() + " --set network.extra_latency_us=100").exit_code ==
            0);
    REQUIRE(run_cli("run " + scen + c.string() + " --seed 11").exit_code == 0);
    const auto r =
        run_cli("compare " + a.string() + " " + b.string() + " " + c.string() + " --json");
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.out);
    const Json* tpot = row_of(j, "decode.tpot_ms");
    REQUIRE(tpot);
    // 100 us more on each of a step's all-to-alls: well outside the seeds' spread.
    CHECK((*tpot)["delta"][0].get<double>() > 5);
    CHECK((*tpot)["beyond_intervals"][0] == true);
    CHECK((*tpot)["beyond_intervals"][1] == false);  // other seeds of the same: inside
}

TEST_CASE("compare refuses what is not a run's output in one located line", "[compare][system]") {
    const auto empty = temp_dir("compare-empty");
    const auto r = run_cli("compare " + empty.string() + " " + empty.string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find((empty / "results.json").string() + ": cannot open") == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
