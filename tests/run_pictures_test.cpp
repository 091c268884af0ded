// The files the report's decode pictures are drawn from: tiers.csv (link use and queues per
// tier over time), gpu_timeline.csv (what sampled GPUs did) and experts.csv (tokens per routed
// expert), checked against what must hold: bytes and time conserved, tokens counted once per
// selected expert.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"
#include "tools/scenario/results_json.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

std::vector<std::vector<std::string>> rows_of(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::string cell;
        std::istringstream l(line);
        while (std::getline(l, cell, ',')) cells.push_back(cell);
        if (!line.empty() && line.back() == ',') cells.emplace_back();
        rows.push_back(cells);
    }
    return rows;
}

}  // namespace

TEST_CASE("the decode pictures' files conserve bytes, time and tokens", "[report][system][long]") {
    const auto dir = temp_dir("run-pictures");
    const auto out = dir / "out";
    const auto r = run_cli("run " + source_path("scenarios/deepseek-v3-decode.yaml") +
                           " --set topology.endpoints=32 --set workload.ep_size=32"
                           " --set workload.tokens_per_gpu=8 --set workload.simulated_layers=2"
                           " --quiet --out " +
                           out.string());
    REQUIRE(r.exit_code == 0);
    const Json results = Json::parse(read_text(out / "results.json"));
    const double end_us = results["sim"]["sim_time_us"].get<double>();

    SECTION("tiers.csv: each tier's bytes over time sum to what its links carried") {
        const auto tiers = rows_of(read_text(out / "tiers.csv"));
        REQUIRE(tiers.size() > 1);
        CHECK(tiers[0] == std::vector<std::string>{"time_us", "period_us", "tier", "utilisation",
                                                   "mean_queue_bytes", "max_queue_bytes",
                                                   "max_queue_port"});
        // links.csv's per-tier bytes and rates.
        const auto links = rows_of(read_text(out / "links.csv"));
        std::map<std::string, double> carried, rate_bps, channels;
        for (std::size_t i = 1; i < links.size(); ++i) {
            carried[links[i][3]] += std::stod(links[i][5]);
            rate_bps[links[i][3]] += std::stod(links[i][4]) * 1e9;
            ++channels[links[i][3]];
        }
        std::map<std::string, double> bits_series, last_us;
        for (std::size_t i = 1; i < tiers.size(); ++i) {
            const std::string& tier = tiers[i][2];
            const double util = std::stod(tiers[i][3]), period_s = std::stod(tiers[i][1]) * 1e-6;
            CHECK(util >= 0);
            // A packet's bytes count when it starts on the wire: a period may hold one packet
            // (at most 4,096 B of payload and its headers) per link beyond its capacity.
            CHECK(util <= 1.0 + channels[tier] * 4200 * 8 / (rate_bps[tier] * period_s));
            last_us[tier] = std::stod(tiers[i][0]);
            bits_series[tier] += util * rate_bps[tier] * period_s;
        }
        for (const auto& [tier, at] : last_us) CHECK(at <= end_us);
        CHECK(bits_series.size() == carried.size());
        for (const auto& [tier, bytes] : carried) {
            INFO(tier);
            CHECK(bits_series[tier] / 8 <= bytes * (1 + 1e-5) + 1);
            // Every byte (the last point closes at the run's end), to the CSV's rounding.
            CHECK(bits_series[tier] / 8 >= bytes * (1 - 1e-5) - 1);
        }
    }

    SECTION("gpu_timeline.csv: each sampled GPU's states tile [0, its end], compute as run") {
        const auto rows = rows_of(read_text(out / "gpu_timeline.csv"));
        REQUIRE(rows.size() > 1);
        std::map<int, double> at, compute;
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const int gpu = std::stoi(rows[i][0]);
            const double from = std::stod(rows[i][2]), to = std::stod(rows[i][3]);
            INFO("row " << i);
            CHECK(from == Approx(at[gpu]).margin(1e-6));  // contiguous, no overlap
            CHECK(to > from);
            CHECK((rows[i][1] == "compute" || rows[i][1] == "sending" || rows[i][1] == "waiting"));
            CHECK((rows[i][1] == "compute") == !rows[i][4].empty());
            if (rows[i][1] == "compute") compute[gpu] += to - from;
            at[gpu] = to;
        }
        CHECK(at.size() == 16);  // 16 of the 32 GPUs, spread
        CHECK(at.count(0) == 1);
        CHECK(at.count(30) == 1);
        // A decode GPU computes for most of its step (attention dominates at 8 tokens).
        for (const auto& [gpu, end] : at) {
            CHECK(end <= end_us + 1e-6);
            CHECK(compute[gpu] > 0.5 * end);
        }
    }

    SECTION("experts.csv: every token counted once per routed expert it selected") {
        const auto rows = rows_of(read_text(out / "experts.csv"));
        REQUIRE(rows.size() > 1);
        std::map<std::string, double> tokens;
        std::map<std::string, int> experts;
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const std::string key =
                rows[i][0] + " " + rows[i][1] + " " + rows[i][2] + " " + rows[i][3];
            tokens[key] += std::stod(rows[i][6]);
            ++experts[key];
        }
        for (const auto& [key, n] : experts) {
            INFO(key);
            CHECK(n == 256);  // DeepSeek-V3's routed experts
            // 32 GPUs x 8 requests, each 1 + 1 draft tokens through the main layers and one
            // through the MTP module, x top-8.
            const double per_gpu = key.rfind("mtp", 0) == 0 ? 8.0 : 16.0;
            CHECK(tokens[key] == Approx(32 * per_gpu * 8));
        }
    }
}
