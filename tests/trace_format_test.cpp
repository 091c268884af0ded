// trace.json against the Chrome trace-event format Perfetto reads (the "JSON Object Format":
// phases X, b/e, s/f, C, M with the fields each needs), and what clustersim promises in it:
// args on every message, stage-named compute, flows, a sample spread over the whole run and
// said first. No trace processor is packaged for Debian, so the format is checked here.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "support.hpp"
#include "tools/scenario/results_json.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

void check_format(const Json& trace, std::uint64_t limit) {
    REQUIRE(trace.is_object());
    REQUIRE(trace["traceEvents"].is_array());
    const Json& ev = trace["traceEvents"];
    CHECK(ev.size() <= limit);
    std::map<std::string, double> open_async, open_flow;
    for (const Json& e : ev) {
        INFO(e.dump());
        REQUIRE(e.contains("ph"));
        const std::string ph = e["ph"];
        REQUIRE(e["pid"].is_number_integer());
        REQUIRE(e["name"].is_string());
        if (ph == "M") {
            REQUIRE(e["args"].is_object());
            continue;
        }
        REQUIRE(e["ts"].is_number());
        CHECK(e["ts"].get<double>() >= 0);
        if (ph == "X") {
            REQUIRE(e["dur"].is_number());
            CHECK(e["dur"].get<double>() >= 0);
            CHECK(e["tid"].is_number_integer());
        } else if (ph == "b" || ph == "e") {
            REQUIRE(e["id"].is_string());
            REQUIRE(e["cat"].is_string());
            const std::string key = e["cat"].get<std::string>() + "/" + e["id"].get<std::string>();
            if (ph == "b") {
                CHECK(open_async.emplace(key, e["ts"].get<double>()).second);
            } else {
                REQUIRE(open_async.count(key) == 1);
                CHECK(e["ts"].get<double>() >= open_async[key]);
                open_async.erase(key);
            }
        } else if (ph == "s" || ph == "f") {
            REQUIRE(e["id"].is_string());
            const std::string key = e["id"];
            if (ph == "s") {
                CHECK(open_flow.emplace(key, e["ts"].get<double>()).second);
            } else {
                CHECK(e["bp"] == "e");
                REQUIRE(open_flow.count(key) == 1);
                CHECK(e["ts"].get<double>() >= open_flow[key]);
                open_flow.erase(key);
            }
        } else if (ph == "C") {
            REQUIRE(e["args"].is_object());
            for (const auto& [k, v] : e["args"].items()) CHECK(v.is_number());
        } else {
            FAIL("unknown phase " << ph);
        }
    }
    CHECK(open_async.empty());  // every slice closed
    CHECK(open_flow.empty());   // every flow arrives
}

}  // namespace

TEST_CASE(
    "trace.json keeps the trace-event format, with args, stages and flows, and a sample "
    "spread over the whole run, said first",
    "[trace][system][long]") {
    const auto dir = temp_dir("trace-format");
    const std::string scen = source_path("scenarios/deepseek-v3-decode.yaml") +
                             " --set topology.endpoints=32 --set workload.ep_size=32 --set "
                             "workload.tokens_per_gpu=16 --set workload.simulated_layers=2 "
                             "--set sim.sample_us=5";
    for (const std::uint64_t limit : {std::uint64_t{20000}, std::uint64_t{10000000}}) {
        INFO("limit " << limit);
        const auto out = dir / std::to_string(limit);
        const auto r = run_cli("run " + scen + " --trace-limit " + std::to_string(limit) +
                               " --out " + out.string());
        REQUIRE(r.exit_code == 0);
        const Json trace = Json::parse(read_text(out / "trace.json"));
        const Json results = Json::parse(read_text(out / "results.json"));
        check_format(trace, limit);
        const Json& ev = trace["traceEvents"];
        // The first event says what the file holds.
        REQUIRE(ev[0]["name"] == "clustersim");
        const Json& about = ev[0]["args"];
        const bool sampled = about["sampled"];
        CHECK(sampled == (limit == 20000));
        CHECK(about["gpus"] == 32);
        if (sampled) {
            CHECK(about["gpus_kept"].get<int>() < 32);
            CHECK(r.err.find("trace.json holds every event of") != std::string::npos);
        } else {
            CHECK(about["gpus_kept"] == 32);
        }
        std::set<std::string> stages;
        std::set<std::uint64_t> gpu_tracks;
        std::size_t flows = 0, messages = 0;
        std::set<std::string> counters;
        double last = 0;
        for (const Json& e : ev) {
            if (e.contains("ts")) last = std::max(last, e["ts"].get<double>());
            if (e["ph"] == "X" && e.value("cat", "") == "compute")
                stages.insert(e["name"].get<std::string>());
            if (e["pid"] == 2 && e.contains("tid") && e["ph"] != "M")
                gpu_tracks.insert(e["tid"].get<std::uint64_t>());
            flows += e["ph"] == "s";
            if (e["ph"] == "C") counters.insert(e["name"].get<std::string>());
            if (e["ph"] == "b" && e["cat"] == "message") {
                ++messages;
                for (const char* k :
                     {"src", "dst", "bytes", "path", "phase", "layer", "micro_batch"})
                    CHECK(e["args"].contains(k));
            }
        }
        CHECK(gpu_tracks.size() == about["gpus_kept"].get<std::size_t>());
        CHECK(stages.count("routed experts") == 1);
        CHECK(stages.count("shared expert") == 1);
        CHECK(stages.count("core attention (ATTN-1)") == 1);
        CHECK(flows > 0);
        CHECK(messages > 0);
        // Counters per tier (utilisation and the deepest port) and for the hottest ports.
        for (const char* c :
             {"utilisation % nic-leaf", "deepest queue nic-leaf", "utilisation % gpu-hub-scale-up"})
            CHECK(counters.count(c) == 1);
        std::size_t ports = 0;
        for (const std::string& c : counters) ports += c.rfind("queue ", 0) == 0;
        CHECK(ports == 8);
        // Spread over the whole run, not its first part.
        CHECK(last >= 0.9 * results["sim"]["sim_time_us"].get<double>());
    }
}
