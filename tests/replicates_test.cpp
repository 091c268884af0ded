#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>

#include "support.hpp"
#include "tools/scenario/replicates.hpp"

using namespace clustersim;
using namespace clustersim::test;

TEST_CASE("the 95 % interval of a mean is Student's t x s / sqrt(n)", "[replicates]") {
    // n = 3: t(0.975, 2) = 4.302653 (published tables); s of {1, 2, 3} is 1.
    const std::array<double, 3> three = {1, 2, 3};
    CHECK(ci95_half_width(three) == Approx(4.302653 / std::sqrt(3.0)).epsilon(1e-6));
    // n = 10: t(0.975, 9) = 2.262157.
    const std::array<double, 10> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    CHECK(ci95_half_width(ten) ==
          Approx(2.262157 * std::sqrt(110.0 / 12.0) / std::sqrt(10.0)).epsilon(1e-6));
    // One value, or identical values: no spread.
    const std::array<double, 1> one = {5};
    CHECK(ci95_half_width(one) == 0);
    const std::array<double, 4> same = {2, 2, 2, 2};
    CHECK(ci95_half_width(same) == 0);
}

TEST_CASE("sim.replicates runs seed .. seed + N - 1: headline means with 95 % intervals",
          "[replicates][moe][system]") {
    const auto dir = temp_dir("replicates");
    write_text(dir / "s.yaml",
               "model: {name: deepseek-v3}\n"
               "topology: {kind: mpft, endpoints: 32}\n"
               "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 8, "
               "simulated_layers: 2, schedule: two-stage}\n");  // five stages hide the network here
    const std::string s = (dir / "s.yaml").string();
    auto run = [&](const std::string& sets) {
        const auto r = run_cli("run " + s + " " + sets + " --json");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        return Json::parse(r.out);
    };
    const Json rep = run("--seed 7 --set sim.replicates=3");
    const Json& d = rep["decode"];
    REQUIRE(d.contains("tpot_ms_ci95"));
    CHECK(d["replicates"] == 3);
    // The mean of the three seeds run one by one, and their interval.
    std::array<double, 3> tpot{};
    for (int i = 0; i < 3; ++i)
        tpot[i] = run("--seed " + std::to_string(7 + i))["decode"]["tpot_ms"].get<double>();
    CHECK(tpot[0] != tpot[1]);  // the seeds differ, or the interval measures nothing
    CHECK(d["tpot_ms"].get<double>() == Approx((tpot[0] + tpot[1] + tpot[2]) / 3).epsilon(1e-12));
    CHECK(d["tpot_ms_ci95"].get<double>() == Approx(ci95_half_width(tpot)).epsilon(1e-12));
    CHECK(d["tpot_ms_ci95"].get<double>() > 0);
    // Every other headline number too; integers stay as they are; the detail is the first seed's.
    CHECK(d.contains("dispatch_us_ci95"));
    CHECK(d.contains("tokens_per_s_per_gpu_ci95"));
    CHECK_FALSE(d.contains("simulated_layers_ci95"));
    CHECK(rep["seed"] == 7);
    CHECK(rep["messages"] == run("--seed 7")["messages"]);
}
