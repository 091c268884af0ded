#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "serving_support.hpp"
#include "support.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/replicates.hpp"
#include "tools/scenario/serving_run.hpp"
#include "tools/scenario/serving_steps.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

nlohmann::json run_serving(const std::string& name, const std::string& yaml,
                           const std::string& extra = "") {
    const auto dir = temp_dir("serving-" + name);
    write_text(dir / "s.yaml", yaml);
    const auto r = run_cli("run " + (dir / "s.yaml").string() + " --json --quiet --out " +
                           (dir / "out").string() + " " + extra);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    j["files"] = read_text(dir / "out" / "requests.csv");
    return j;
}

void expect_serving_error(const std::string& name, const std::string& yaml,
                          const std::string& where, const std::string& what,
                          const std::string& extra_file = "") {
    const auto dir = temp_dir("serving-bad-" + name);
    write_text(dir / "s.yaml", yaml);
    if (!extra_file.empty()) write_text(dir / "trace.csv", extra_file);
    const auto r = run_cli("run " + (dir / "s.yaml").string() + " --out " + (dir / "out").string());
    INFO(name << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(where) != std::string::npos);
    CHECK(r.err.find(what) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "out" / "results.json"));
}

// The small deployment's file in a folder of its own.
std::string small_file(const std::string& name) {
    const auto dir = temp_dir("serving-" + name);
    write_text(dir / "s.yaml", kServing);
    return (dir / "s.yaml").string();
}

// The small deployment loaded as a scenario, for its step times alone.
Scenario small_scenario(const std::string& name) {
    return load_scenario(small_file(name), {});
}

std::string with_key(std::string y, const std::string& from, const std::string& to) {
    const auto at = y.find(from);
    REQUIRE(at != std::string::npos);
    return y.replace(at, from.size(), to);
}

std::string with(const std::string& from, const std::string& to) {
    return with_key(kServing, from, to);
}

// The small deployment's kinds on two dual-plane pods of 32 GPUs, `deployment` in place of its
// own.
std::string on_pods(const std::string& deployment) {
    std::string y =
        with("topology: {kind: mpft}", "topology: {kind: dual-plane, switch_radix: 32, pods: 2}");
    const std::string from =
        "deployment: {kind: disaggregated, prefill: {ep_size: 16}, decode: {ep_size: 16}}";
    const auto at = y.find(from);
    REQUIRE(at != std::string::npos);
    return y.replace(at, from.size(), deployment);
}

// The small deployment with its arrivals and lengths from a trace file.
std::string with_trace(const std::string& file) {
    return with(
        "arrival: {kind: poisson, rate_per_s: 30}\n  prompt_tokens: {kind: uniform, min: 200, "
        "max: 3000}\n  output_tokens: {kind: uniform, min: 2, max: 16}",
        "arrival: {kind: trace, file: " + file + "}");
}

}  // namespace

TEST_CASE(
    "a serving run reports its requests, latencies, goodput and the step runs it made, "
    "the same under its seed",
    "[serving][system][long]") {
    const nlohmann::json a = run_serving("a", kServing);
    const nlohmann::json& v = a["serving"];
    const auto arrived = v["requests"]["arrived"].get<std::uint64_t>();
    CHECK(arrived > 10);
    CHECK(v["requests"]["finished"].get<std::uint64_t>() == arrived);
    CHECK(v["requests"]["in_flight"].get<std::uint64_t>() == 0);
    for (const char* k : {"ttft_ms", "tpot_ms", "e2e_ms"})
        for (const char* q : {"p50", "p90", "p99", "mean"}) CHECK(v[k][q].get<double>() > 0);
    CHECK(v["ttft_ms"]["p50"].get<double>() <= v["ttft_ms"]["p99"].get<double>());
    CHECK(v["kv_transfer_ms"]["p50"].get<double>() > 0);
    CHECK(v["step_simulations"].get<std::uint64_t>() > 0);
    CHECK(v["step_cache_hits"].get<std::uint64_t>() > 0);
    CHECK(v["goodput_rps"].get<double>() <= static_cast<double>(arrived) / 1.0 + 1e-9);
    // Per million dollars of the deployment's fabric and servers (32 GPUs: 4 nodes).
    const double usd = v["cost_usd"]["cluster"].get<double>();
    CHECK(usd > v["cost_usd"]["fabric"].get<double>());
    CHECK(v["goodput_rps_per_musd"].get<double>() ==
          Approx(v["goodput_rps"].get<double>() / usd * 1e6));
    CHECK(v["tokens_per_s_per_musd"].get<double>() ==
          Approx(v["tokens_per_s_per_gpu"].get<double>() * 32 / usd * 1e6));
    CHECK(a["resolved_scenario"]["serving"]["deployment"]["decode"]["ep_size"] == 16);
    // One line per request, and the same results again.
    const std::string csv = a["files"].get<std::string>();
    CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<std::ptrdiff_t>(arrived + 1));
    const nlohmann::json b = run_serving("b", kServing);
    CHECK(b["serving"] == a["serving"]);
    CHECK(b["files"] == a["files"]);
    // The SLO decides what counts as goodput: an end-to-end target no request meets leaves none.
    const nlohmann::json strict = run_serving("strict", kServing, "--set serving.slo.e2e_ms=1");
    CHECK(strict["serving"]["slo_attainment"].get<double>() == 0);
    CHECK(strict["serving"]["goodput_rps"].get<double>() == 0);
    CHECK(strict["serving"]["ttft_ms"] == a["serving"]["ttft_ms"]);
    // Each step's run on two threads gives one thread's results, so the serving run does too.
    const nlohmann::json t = run_serving("threads", kServing, "--threads 2");
    CHECK(t["serving"] == a["serving"]);
    CHECK(t["files"] == a["files"]);
}

TEST_CASE("check of a serving scenario counts its requests and bounds its largest steps",
          "[serving][system]") {
    const auto dir = temp_dir("serving-check");
    write_text(dir / "s.yaml", kServing);
    const auto r = run_cli("check " + (dir / "s.yaml").string() + " --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["requests"].get<std::uint64_t>() > 10);
    CHECK(j["decode_step"]["events_estimate"].get<std::uint64_t>() > 0);
    CHECK(j["prefill_step"]["events_estimate"].get<std::uint64_t>() >
          j["decode_step"]["events_estimate"].get<std::uint64_t>());
    CHECK(j["memory_estimate_bytes"].get<std::uint64_t>() > 0);
}

TEST_CASE(
    "a run on the step cache's grid gives the latencies of one that simulates every "
    "shape, within 3 %",
    "[serving][system][long]") {
    // Three seconds of arrivals: percentiles of a few dozen requests move with any change of
    // which requests share a step, so the means are compared (step by step: the next test).
    std::string three = with("duration_s: 1", "duration_s: 3");
    const nlohmann::json cached = run_serving("cached", three);
    const nlohmann::json exact = run_serving("exact", three, "--set serving.step_cache=false");
    CHECK(exact["serving"]["step_cache"] == false);
    CHECK(exact["serving"]["step_simulations"].get<std::uint64_t>() >
          cached["serving"]["step_simulations"].get<std::uint64_t>());
    for (const char* k : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
        INFO(k);
        CHECK(cached["serving"][k]["mean"].get<double>() ==
              Approx(exact["serving"][k]["mean"].get<double>()).epsilon(0.03));
    }
}

TEST_CASE(
    "every step shape a run simulated exactly takes, from the cache's grid, within 3 % of "
    "its own run",
    "[serving][system][long]") {
    const nlohmann::json exact =
        run_serving("steps-exact", kServing, "--set serving.step_cache=false");
    const Scenario s = small_scenario("steps");
    PacketStepTimes grid(s, false);
    std::size_t compared = 0;
    for (const auto& shape : exact["serving"]["step_shapes"]) {
        const auto size = shape["size"].get<std::uint32_t>();
        const auto context = shape["context"].get<std::uint32_t>();
        const double ms = shape["time_ms"].get<double>();
        const std::string what = shape["what"].get<std::string>();
        if (shape.value("kv_bytes", std::uint64_t{0}) > 0) continue;  // a step beside a KV stream
        const Time t = what == "prefill"  ? grid.prefill({size, context, 0, {}, 0}).total
                       : what == "decode" ? grid.decode({size, context, 0, {}, 0}).total
                                          : grid.kv_transfer(size);
        INFO(what << " " << size << " " << context);
        CHECK(t.ms() == Approx(ms).epsilon(0.03));
        ++compared;
    }
    CHECK(compared > 20);
    CHECK(grid.simulations().size() < compared);
}

TEST_CASE(
    "a KV cache streaming through a GPU's NIC slows that step's dispatch and combine by more "
    "than 5 % beyond the seeds' interval, and over the storage network nothing runs beside them",
    "[serving][system]") {
    Scenario s = small_scenario("kv-beside");
    // KV bytes in flight as the step starts: they set the share of the step slowed; the stream
    // simulated beside the step is twice what the NIC moves in the step's simulated window.
    const std::uint64_t cache = 64ull << 20;  // about 950 prompt tokens of DeepSeek-V3
    for (const bool prefill : {false, true}) {
        std::vector<double> slower;
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            s.seed = seed;
            PacketStepTimes steps(s, false);
            const StepTime t = prefill ? steps.prefill({96, 1024, cache, {}, 0})
                                       : steps.decode({2, 1024, cache, {}, 0});
            double alone = 0, beside = 0;
            for (const StepSimulation& r : steps.simulations()) {
                // The step alone and beside the stream, both at the first reference context.
                if (r.what == "kv_transfer" || r.context != 1024) continue;
                (r.kv_bytes > 0 ? beside : alone) = r.dispatch_us + r.combine_us;
                // The stream shares the NIC: never above its 400 Gb/s line rate.
                if (r.kv_bytes > 0) CHECK(r.kv_stream_gbps > 0);
                if (r.kv_bytes > 0) CHECK(r.kv_stream_gbps < 400);
            }
            REQUIRE(alone > 0);
            REQUIRE(beside > 0);
            slower.push_back(beside / alone - 1);
            CHECK(t.kv_slowdown >= Time::zero());
            CHECK(t.kv_slowdown < t.total);
        }
        double mean = 0;
        for (const double x : slower) mean += x / static_cast<double>(slower.size());
        INFO((prefill ? "prefill" : "decode")
             << ": " << 100 * mean << " % +- " << 100 * ci95_half_width(slower));
        CHECK(mean - ci95_half_width(slower) > 0.05);
    }
    s.seed = 1;
    s.serving.deployment.kv_via = KvVia::Storage;
    PacketStepTimes stored(s, false);
    CHECK(stored.decode({2, 1024, cache, {}, 0}).kv_slowdown == Time::zero());
    CHECK(stored.prefill({96, 1024, cache, {}, 0}).kv_slowdown == Time::zero());
    for (const StepSimulation& r : stored.simulations()) CHECK(r.kv_bytes == 0);
}

TEST_CASE(
    "each instance takes its own EP group's time from the run its kind's instances step in "
    "together, not the slowest group's",
    "[serving][system]") {
    Scenario s = load_scenario(small_file("per-instance"),
                               {Override{"serving.deployment.decode.instances", "2"},
                                Override{"serving.deployment.prefill.instances", "2"}});
    s.serving.step_cache = false;  // one run per shape
    PacketStepTimes steps(s, false);
    for (const bool prefill : {false, true}) {
        INFO((prefill ? "prefill" : "decode"));
        auto at = [&](std::uint32_t instance) {
            return prefill ? steps.prefill({96, 1024, 0, {}, instance}).total
                           : steps.decode({2, 1024, 0, {}, instance}).total;
        };
        const Time first = at(0), second = at(1);
        const StepSimulation& r = steps.simulations().back();
        REQUIRE(r.what == (prefill ? "prefill" : "decode"));
        REQUIRE(r.instance_ms.size() == 2);
        CHECK(first.ms() == Approx(r.instance_ms[0]).epsilon(1e-9));
        CHECK(second.ms() == Approx(r.instance_ms[1]).epsilon(1e-9));
        // The groups' gating draws differ: so do their steps, and the faster is not the run's.
        CHECK(first != second);
        CHECK(std::min(first, second).ms() < r.time_ms);
    }
    CHECK(steps.simulations().size() == 2);
}

TEST_CASE(
    "on pods an instance of another pod takes its first-pod counterpart's time, by its place "
    "among its pod's instances",
    "[serving][system]") {
    // Two dual-plane pods of 32 GPUs, each with two EP8 prefill instances (0, 1 in the first
    // pod; 2, 3 in the second) and one EP16 decode instance.
    const auto dir = temp_dir("serving-pod-counterparts");
    write_text(dir / "s.yaml", on_pods("deployment: {kind: disaggregated, prefill: {instances: "
                                       "4, ep_size: 8}, decode: {instances: 2, ep_size: 16}}"));
    Scenario s = load_scenario((dir / "s.yaml").string(), {});
    s.serving.step_cache = false;  // one run per shape
    REQUIRE(first_pod_steps(s));
    PacketStepTimes steps(s, false);
    std::vector<double> ms;
    for (std::uint32_t i = 0; i < 4; ++i)
        ms.push_back(steps.prefill({96, 1024, 0, {}, i}).total.ms());
    REQUIRE(steps.simulations().size() == 1);
    const StepSimulation& r = steps.simulations().back();
    REQUIRE(r.instance_ms.size() == 2);  // the first pod's two
    CHECK(ms[0] == Approx(r.instance_ms[0]).epsilon(1e-9));
    CHECK(ms[1] == Approx(r.instance_ms[1]).epsilon(1e-9));
    CHECK(ms[2] == Approx(r.instance_ms[0]).epsilon(1e-9));
    CHECK(ms[3] == Approx(r.instance_ms[1]).epsilon(1e-9));
    CHECK(ms[0] != ms[1]);
    // The decode instance of the second pod: the first pod's one.
    CHECK(steps.decode({2, 1024, 0, {}, 1}).total == steps.decode({2, 1024, 0, {}, 0}).total);
    CHECK(steps.simulations().back().instance_ms.size() == 1);
}

TEST_CASE("bad serving input is one located line and exit 2", "[serving][input][system]") {
    expect_serving_error("rate", with("rate_per_s: 30", "rate_per_s: -3"),
                         "serving.arrival.rate_per_s", "expected");
    expect_serving_error("slo", with("ttft_ms: 200", "ttft_ms: 0"), "serving.slo.ttft_ms",
                         "expected");
    expect_serving_error("too-big",
                         with("topology: {kind: mpft}", "topology: {kind: mpft, endpoints: 24}"),
                         "serving.deployment", "do not fit");
    expect_serving_error("no-slo", with("  slo: {ttft_ms: 200, tpot_ms: 60}\n", ""),
                         "serving.slo.ttft_ms", "missing");
    expect_serving_error("step-key",
                         with("simulated_layers: 2",
                              "simulated_layers: 2, "
                              "tokens_per_gpu: 8"),
                         "workload.tokens_per_gpu", "set by serving");
    expect_serving_error("spread",
                         with("simulated_layers: 2", "simulated_layers: 2, ep_placement: spread"),
                         "workload.ep_placement", "consecutive GPUs");
    expect_serving_error("ep", with("decode: {ep_size: 16}", "decode: {ep_size: 7}"),
                         "serving.deployment.decode.ep_size", "");
    expect_serving_error(
        "unordered",
        with("arrival: {kind: poisson, rate_per_s: 30}\n  prompt_tokens: {kind: uniform, min: "
             "200, max: 3000}\n  output_tokens: {kind: uniform, min: 2, max: 16}",
             "arrival: {kind: trace, file: trace.csv}"),
        "trace.csv:4:1", "expected arrivals in order",
        "arrival_us,prompt_tokens,output_tokens\n0,100,4\n500,100,4\n400,100,4\n");
    expect_serving_error("max-time",
                         with("name: small-pd", "name: small-pd\nsim: {max_time_us: 30}"),
                         "sim.max_time_us", "not a serving run");
    expect_serving_error("colocated-prefill", with("kind: disaggregated", "kind: colocated"),
                         "serving.deployment.prefill.ep_size", "colocated");
    // Two pods hold the same share of the instances each.
    expect_serving_error("pod-share",
                         on_pods("deployment: {kind: disaggregated, prefill: {instances: 2, "
                                 "ep_size: 16}, decode: {instances: 3, ep_size: 8}}"),
                         "serving.deployment.decode.instances", "a multiple of 2");
    // A deployment that fills half of each pod: its pods are not the fabric's.
    std::string half = on_pods(
        "deployment: {kind: disaggregated, prefill: {instances: 2, ep_size: 8}, decode: "
        "{instances: 2, ep_size: 8}}");
    half.replace(half.find("pods: 2}"), 8, "pods: 2, endpoints: 64}");
    expect_serving_error("pod-size", half, "topology.endpoints",
                         "the fabric's pods hold 32 GPUs, the deployment's 16");
    // step_pods chooses only between pods, and not with faults.
    expect_serving_error("step-pods-one-pod", with("  slo:", "  step_pods: all\n  slo:"),
                         "serving.step_pods", "one pod");
    expect_serving_error(
        "step-pods-faults",
        with_key(on_pods("deployment: {kind: disaggregated, prefill: {instances: 2, ep_size: "
                         "16}, decode: {instances: 2, ep_size: 16}}"),
                 "  slo:", "  step_pods: first\n  slo:") +
            "faults:\n  - {kind: gpu_slow, target: {gpu: 20}, factor: 2, at_us: 1000}\n",
        "serving.step_pods", "with faults");
}

TEST_CASE("a fabric larger than the deployment is built and priced whole, its spare GPUs idle",
          "[serving][system][long]") {
    // The small deployment's 32 GPUs on a multi-plane fat tree of 64: eight nodes bought, four
    // serving. Its planes' leaves hold all 64 NICs, so the steps cross the same switches.
    const nlohmann::json a = run_serving("fabric-own", kServing);
    const nlohmann::json b = run_serving("fabric-larger", with("topology: {kind: mpft}",
                                                               "topology: {kind: mpft, "
                                                               "endpoints: 64}"));
    const auto& x = a["serving"];
    const auto& y = b["serving"];
    CHECK(x["gpus"] == 32);
    CHECK(y["gpus"] == 32);
    // Four more servers, and the fabric's NICs' cables: the whole pod's price.
    const double servers = a["resolved_scenario"]["cost"]["server_usd"].get<double>();
    CHECK(y["cost_usd"]["cluster"].get<double>() - y["cost_usd"]["fabric"].get<double>() ==
          Approx(x["cost_usd"]["cluster"].get<double>() - x["cost_usd"]["fabric"].get<double>() +
                 4 * servers));
    CHECK(y["cost_usd"]["fabric"].get<double>() > x["cost_usd"]["fabric"].get<double>());
    CHECK(y["goodput_rps_per_musd"].get<double>() < x["goodput_rps_per_musd"].get<double>());
    // Idle NICs carry nothing: the same requests take the same times.
    CHECK(y["ttft_ms"] == x["ttft_ms"]);
    CHECK(y["tpot_ms"] == x["tpot_ms"]);
}

TEST_CASE(
    "a serving run on dual-plane pods keeps each instance and every KV cache in its pod, "
    "both pods serving",
    "[serving][system][long]") {
    const nlohmann::json j =
        run_serving("pods", on_pods("deployment: {kind: disaggregated, prefill: {instances: 2, "
                                    "ep_size: 16}, decode: {instances: 2, ep_size: 16}}"));
    const auto& v = j["serving"];
    CHECK(v["pods"] == 2);
    CHECK(v["gpus"] == 64);
    CHECK(v["requests"]["finished"] == v["requests"]["arrived"]);
    // Both decode instances have room for the few requests: no cache leaves its pod.
    CHECK(v["kv_cross_pod"] == 0);
    CHECK(v["kv_transfer_ms"]["via"] == "fabric");
    const std::string csv = j["files"].get<std::string>();
    CHECK(csv.find(",true\n") == std::string::npos);  // the kv_cross_pod column
    // Both pods' decode instances took requests (decode_instance is the 11th column).
    std::set<std::string> used;
    std::istringstream lines(csv);
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line)) {
        std::istringstream f(line);
        std::string field;
        for (int k = 0; k < 11; ++k) std::getline(f, field, ',');
        used.insert(field);
    }
    CHECK(used == std::set<std::string>{"0", "1"});
}

TEST_CASE(
    "on pods a step simulates the first pod alone: its instances' times as beside the others, "
    "at half the packets, and the run within 3 % of every pod stepping",
    "[serving][system][long]") {
    const std::string two = on_pods(
        "deployment: {kind: disaggregated, prefill: {instances: 2, ep_size: 16}, decode: "
        "{instances: 2, ep_size: 16}}");
    const nlohmann::json first = run_serving("pods-first", two);
    const nlohmann::json all =
        run_serving("pods-all", with_key(two, "  slo:", "  step_pods: all\n  slo:"));
    const auto& f = first["serving"];
    const auto& a = all["serving"];
    CHECK(f["step_pods"] == "first");
    CHECK(a["step_pods"] == "all");
    // The same shapes (a KV stream's bytes follow the step's window: alone or beside one):
    // the first pod's one instance of each kind, or both pods'.
    auto shape_key = [](const nlohmann::json& s) {
        return fmt::format("{} {} {}{}", s["what"].get<std::string>(), s["size"].get<int>(),
                           s["context"].get<int>(),
                           s["kv_bytes"].get<std::uint64_t>() > 0 ? " beside KV" : "");
    };
    std::map<std::string, nlohmann::json> by_shape;
    for (const auto& s : a["step_shapes"])
        if (s["what"] != "kv_transfer") by_shape[shape_key(s)] = s;
    std::size_t compared = 0;
    for (const auto& s : f["step_shapes"]) {
        if (s["what"] == "kv_transfer") continue;
        const auto key = shape_key(s);
        const auto it = by_shape.find(key);
        if (it == by_shape.end()) continue;
        const nlohmann::json& b = it->second;
        INFO(key);
        REQUIRE(s["instance_ms"].size() == 1);
        REQUIRE(b["instance_ms"].size() == 2);
        // Pods share no cable: the first pod's instance steps as it did beside the other. A
        // KV stream lasts twice the run's window, which the other pod's ends lengthen in all:
        // a longer stream, a slightly different step.
        const bool kv = s["kv_bytes"].get<std::uint64_t>() > 0;
        CHECK(s["instance_ms"][0].get<double>() ==
              Approx(b["instance_ms"][0].get<double>()).epsilon(kv ? 0.01 : 0.005));
        // Half the packets (the first pod's of two), the stream's aside.
        if (!kv) {
            const double ratio = s["events"].get<double>() / b["events"].get<double>();
            CHECK(ratio > 0.45);
            CHECK(ratio < 0.55);
            ++compared;
        }
    }
    CHECK(compared >= 4);
    for (const char* k : {"ttft_ms", "tpot_ms"})
        for (const char* q : {"p50", "p99"}) {
            INFO(k << " " << q);
            CHECK(f[k][q].get<double>() == Approx(a[k][q].get<double>()).epsilon(0.03));
        }
    CHECK(f["requests"]["finished"] == a["requests"]["finished"]);
}

TEST_CASE("step sizes are simulated on a grid of half octaves", "[serving]") {
    using P = std::pair<std::uint64_t, std::uint64_t>;
    CHECK(half_octave_bracket(1) == P{1, 1});
    CHECK(half_octave_bracket(2) == P{2, 2});
    CHECK(half_octave_bracket(5) == P{4, 6});
    CHECK(half_octave_bracket(6) == P{6, 6});
    CHECK(half_octave_bracket(7) == P{6, 8});
    CHECK(half_octave_bracket(13) == P{12, 16});
    CHECK(half_octave_bracket(100) == P{96, 128});
    CHECK(half_octave_bracket(4989) == P{4096, 6144});
}

TEST_CASE("the serving keys change what the run does", "[serving][system][long]") {
    const nlohmann::json base = run_serving("keys-base", kServing);
    const auto& b = base["serving"];
    // Over the storage NICs, not the fabric.
    const nlohmann::json storage =
        run_serving("keys-storage", kServing, "--set serving.kv_transfer.via=storage");
    CHECK(storage["serving"]["kv_transfer_ms"]["via"] == "storage");
    CHECK(storage["serving"]["kv_transfer_ms"]["p50"] != b["kv_transfer_ms"]["p50"]);
    const nlohmann::json slow = run_serving(
        "keys-slow-storage", kServing,
        "--set serving.kv_transfer.via=storage --set serving.kv_transfer.storage_gbps=1 "
        "--set serving.kv_transfer.storage_latency_us=500");
    CHECK(slow["serving"]["kv_transfer_ms"]["p50"].get<double>() >
          storage["serving"]["kv_transfer_ms"]["p50"].get<double>());
    // A smaller prefill budget chunks prompts over more steps; less decode room caps the batch.
    const nlohmann::json budget =
        run_serving("keys-budget", kServing, "--set serving.deployment.prefill_tokens_per_gpu=32");
    CHECK(budget["serving"]["steps"]["prefill"].get<std::uint64_t>() >
          b["steps"]["prefill"].get<std::uint64_t>());
    const nlohmann::json room =
        run_serving("keys-room", kServing, "--set serving.deployment.decode_requests_per_gpu=1");
    CHECK(room["serving"]["decode_batch"]["max"].get<std::uint64_t>() <= 16);
    CHECK(b["decode_batch"]["max"].get<std::uint64_t>() > 16);
    // Tighter targets, fewer requests meet them.
    const nlohmann::json tight = run_serving(
        "keys-tight", kServing, "--set serving.slo.ttft_ms=60 --set serving.slo.tpot_ms=50");
    CHECK(tight["serving"]["slo_attainment"].get<double>() < b["slo_attainment"].get<double>());
    // A trace brings its own arrivals and lengths.
    const auto dir = temp_dir("serving-trace-file");
    write_text(dir / "trace.csv", "arrival_us,prompt_tokens,output_tokens\n0,500,3\n1000,800,5\n");
    const nlohmann::json trace =
        run_serving("keys-trace", with_trace((dir / "trace.csv").string()));
    CHECK(trace["serving"]["requests"]["arrived"] == 2);
    CHECK(trace["serving"]["output_tokens"] == 8);
}

TEST_CASE(
    "serve-search brackets the highest rate meeting the SLO target, and its answer is what a "
    "run at that rate gives",
    "[serving][system][long]") {
    const auto dir = temp_dir("serving-search");
    const auto r = run_cli("serve-search " + small_file("search-file") +
                           " --json --attainment 0.8 --precision 0.1");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out)["serve_search"];
    const double rate = j["rate_per_s"].get<double>();
    const double failed = j["failed_rate_per_s"].get<double>();
    REQUIRE(rate > 0);
    REQUIRE(failed > rate);
    CHECK(j["bracketed"] == true);
    CHECK((failed - rate) / failed <= 0.1);
    std::uint64_t runs = 0;
    for (const auto& p : j["probes"]) {
        runs += p["step_simulations"].get<std::uint64_t>();
        // Every probe is judged by the target, and the answer is the best that met it.
        CHECK(p["meets"] == (p["slo_attainment"].get<double>() >= 0.8));
        if (p["meets"] == true) CHECK(p["rate_per_s"].get<double>() <= rate);
        if (p["meets"] == false) CHECK(p["rate_per_s"].get<double>() >= failed);
    }
    CHECK(runs == j["step_simulations"].get<std::uint64_t>());
    // One second of arrivals is a few dozen requests: attainment is not steady in the rate,
    // and the search says so.
    bool monotone = true;
    for (const auto& a : j["probes"])
        for (const auto& b : j["probes"])
            if (a["rate_per_s"].get<double>() < b["rate_per_s"].get<double>() &&
                a["slo_attainment"].get<double>() < b["slo_attainment"].get<double>())
                monotone = false;
    CHECK(j["monotone"] == monotone);
    CHECK(j["probes"].size() >= 3);
    // On two threads, the same search.
    const auto threads = run_cli("serve-search " + small_file("search-threads") +
                                 " --json --attainment 0.8 --precision 0.1 --threads 2");
    INFO(threads.err);
    REQUIRE(threads.exit_code == 0);
    const nlohmann::json jt = nlohmann::json::parse(threads.out)["serve_search"];
    CHECK(jt["probes"] == j["probes"]);
    CHECK(jt["at_rate"] == j["at_rate"]);
    // The shared cache holds the same grid points a run of its own simulates.
    const nlohmann::json alone = run_serving(
        "search-rate", kServing, fmt::format("--set serving.arrival.rate_per_s={}", rate));
    for (const char* k : {"ttft_ms", "tpot_ms", "e2e_ms", "slo_attainment", "goodput_rps",
                          "requests", "kv_slowdown"})
        CHECK(j["at_rate"][k] == alone["serving"][k]);
    // A trace is not a rate to vary.
    write_text(dir / "t.csv", "0,100,5\n1000,100,5\n");
    write_text(dir / "trace.yaml", with_trace("t.csv"));
    const auto t = run_cli("serve-search " + (dir / "trace.yaml").string());
    INFO(t.err);
    CHECK(t.exit_code == 2);
    CHECK(t.err.find("serving.arrival.kind: serve-search varies a Poisson rate") !=
          std::string::npos);
}

TEST_CASE(
    "sim.replicates serves the scenario under each seed and reports the means with their "
    "intervals, the first seed's detail kept",
    "[serving][system][long]") {
    const nlohmann::json r = run_serving("replicates", kServing, "--set sim.replicates=3");
    const nlohmann::json& v = r["serving"];
    CHECK(v["replicates"] == 3);
    std::vector<nlohmann::json> seeds;
    for (int seed = 1; seed <= 3; ++seed)
        seeds.push_back(run_serving(fmt::format("replicate-{}", seed), kServing,
                                    fmt::format("--seed {}", seed))["serving"]);
    auto mean = [&](const nlohmann::json::json_pointer& at) {
        double m = 0;
        for (const auto& s : seeds) m += s[at].get<double>() / 3;
        return m;
    };
    for (const char* k : {"/goodput_rps", "/slo_attainment", "/tokens_per_s_per_gpu",
                          "/ttft_ms/p50", "/ttft_ms/p99", "/tpot_ms/mean", "/e2e_ms/p90"}) {
        INFO(k);
        CHECK(v[nlohmann::json::json_pointer(k)].get<double>() ==
              Approx(mean(nlohmann::json::json_pointer(k))));
    }
    // Seeds draw other requests: the intervals are not empty, and the counts are the first's.
    CHECK(v["goodput_rps_ci95"].get<double>() > 0);
    CHECK(v["ttft_ms_ci95"]["p50"].get<double>() > 0);
    CHECK(v["requests"] == seeds[0]["requests"]);
    CHECK(r["files"] == run_serving("replicate-first", kServing)["files"]);
    // serve-search takes one seed per probe.
    const auto dir = temp_dir("serving-replicates-search");
    write_text(dir / "s.yaml", kServing);
    const auto bad =
        run_cli("serve-search " + (dir / "s.yaml").string() + " --set sim.replicates=2");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("sim.replicates") != std::string::npos);
}

TEST_CASE(
    "a sweep of serving scenarios ranks fabrics by a serving objective, each point what a run "
    "of it gives, and check refuses a key serving does not report",
    "[serving][system][long]") {
    const auto dir = temp_dir("serving-sweep");
    std::string base;
    std::istringstream lines(kServing);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("name:", 0) != 0) base += "  " + line + "\n";
    const std::string sweep = "name: serving-fabrics\nseeds: 1\nbase:\n" + base +
                              "zip:\n  topology:\n    - {kind: mpft}\n    - {kind: ft2}\n"
                              "objective: {key: serving.goodput_rps_per_musd, goal: max}\n";
    write_text(dir / "sweep.yaml", sweep);
    const auto checked = run_cli("check " + (dir / "sweep.yaml").string());
    INFO(checked.err);
    CHECK(checked.exit_code == 0);
    const auto r = run_cli("sweep " + (dir / "sweep.yaml").string() + " --quiet --out " +
                           (dir / "out").string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(read_text(dir / "out" / "results.json"));
    REQUIRE(j["points"].size() == 2);
    const nlohmann::json alone = run_serving("sweep-point", kServing);
    const nlohmann::json& m = j["points"][0]["metrics"];
    CHECK(j["points"][0]["status"] == "completed");
    CHECK(m["objective"]["mean"].get<double>() ==
          Approx(alone["serving"]["goodput_rps_per_musd"].get<double>()));
    CHECK(m["cluster_cost_usd"]["mean"].get<double>() ==
          Approx(alone["serving"]["cost_usd"]["cluster"].get<double>()));
    // Another fabric, another price.
    CHECK(j["points"][1]["metrics"]["cluster_cost_usd"]["mean"] != m["cluster_cost_usd"]["mean"]);
    std::string bad = sweep;
    bad.replace(bad.find("serving.goodput_rps_per_musd"), 28, "serving.goodput");
    write_text(dir / "bad.yaml", bad);
    const auto refused = run_cli("check " + (dir / "bad.yaml").string());
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("objective") != std::string::npos);
    CHECK(refused.err.find("serving.goodput_rps") != std::string::npos);  // what it could be
}

TEST_CASE(
    "serve-search --split searches each prefill:decode split and names the one taking the most "
    "requests per second per million dollars",
    "[serving][system][long]") {
    const std::string search =
        "serve-search " + small_file("split") + " --json --max-probes 3 --attainment 0.8";
    // The dearer split first: a choice that kept the first would be caught.
    const auto r = run_cli(search + " --split 1:2 --split 1:1");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out)["serve_search_splits"];
    REQUIRE(j["splits"].size() == 2);
    double best = -1;
    for (const auto& sp : j["splits"]) {
        REQUIRE(sp["rate_per_s"].get<double>() > 0);
        const double per_musd =
            sp["rate_per_s"].get<double>() / sp["cluster_usd"].get<double>() * 1e6;
        CHECK(sp["rate_per_musd"].get<double>() == Approx(per_musd));
        CHECK(sp["gpus"] ==
              16 * (sp["prefill_instances"].get<int>() + sp["decode_instances"].get<int>()));
        best = std::max(best, per_musd);
    }
    CHECK(j["splits"][j["best"].get<std::size_t>()]["rate_per_musd"].get<double>() == Approx(best));
    // A split is the search of the scenario with those instances.
    const auto one = run_cli(search + " --set serving.deployment.decode.instances=2");
    REQUIRE(one.exit_code == 0);
    CHECK(j["best"] == 1);
    CHECK(j["splits"][0]["search"]["probes"] ==
          nlohmann::json::parse(one.out)["serve_search"]["probes"]);
    const auto bad = run_cli(search + " --split 2:0");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--split") != std::string::npos);
}

TEST_CASE(
    "a sweep by a serve_search key runs serve-search at each point and ranks the points by "
    "the rate it found",
    "[serving][system][long]") {
    const auto dir = temp_dir("serving-search-sweep");
    write_text(dir / "s.yaml", kServing);
    const std::string head =
        "name: search-sweep\nbase: s.yaml\nseeds: 1\ngrid: {serving.slo.tpot_ms: [60]}\n";
    write_text(dir / "sweep.yaml",
               head +
                   "serve_search: {attainment: 0.8, max_probes: 2}\n"
                   "objective: {key: serve_search.rate_per_s_per_musd, goal: max}\n");
    const auto swept = run_cli("sweep " + (dir / "sweep.yaml").string() + " --quiet --out " +
                               (dir / "out").string());
    INFO(swept.err);
    REQUIRE(swept.exit_code == 0);
    const nlohmann::json point = nlohmann::json::parse(read_text(dir / "out/points/00000.json"));
    REQUIRE(point["status"] == "completed");
    const nlohmann::json& found = point["runs"][0]["results"]["serve_search"];
    const auto alone = run_cli("serve-search " + (dir / "s.yaml").string() +
                               " --json --attainment 0.8 --max-probes 2");
    REQUIRE(alone.exit_code == 0);
    const nlohmann::json cli = nlohmann::json::parse(alone.out)["serve_search"];
    // The same search: its probes, its answer and what the answer is worth.
    CHECK(found["probes"] == cli["probes"]);
    REQUIRE(cli["rate_per_s"].get<double>() > 0);
    CHECK(found["rate_per_s"] == cli["rate_per_s"]);
    CHECK(cli["cluster_usd"] == cli["at_rate"]["cost_usd"]["cluster"]);
    CHECK(cli["rate_per_s_per_gpu"].get<double>() == Approx(cli["rate_per_s"].get<double>() / 32));
    const double per_musd =
        cli["rate_per_s"].get<double>() / cli["cluster_usd"].get<double>() * 1e6;
    CHECK(cli["rate_per_s_per_musd"].get<double>() == Approx(per_musd));
    const nlohmann::json& m = point["runs"][0]["metrics"];
    CHECK(m["objective"].get<double>() == Approx(per_musd));
    CHECK(m["cluster_cost_usd"] == cli["cluster_usd"]);
    // Options and objective that are not a search's are located input errors.
    for (const auto& [text, where] : std::vector<std::pair<std::string, std::string>>{
             {"serve_search: {attainment: 0}\n", "serve_search.attainment"},
             {"serve_search: {max_probes: 65}\n", "serve_search.max_probes"},
             {"serve_search: {rate: 3}\n", "serve_search.rate"},
             {"serve_search: {}\nobjective: serving.goodput_rps\n", "objective"}}) {
        write_text(dir / "bad.yaml", head + text);
        const auto bad = run_cli("sweep " + (dir / "bad.yaml").string() + " --dry-run");
        INFO(text << bad.err);
        CHECK(bad.exit_code == 2);
        CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
        CHECK(bad.err.find("bad.yaml:") != std::string::npos);
        CHECK(bad.err.find(where) != std::string::npos);
    }
}

namespace {
// The small deployment with windows of 0.1 s and these faults (and workload keys).
std::string with_faults(const std::string& faults, const std::string& workload = "") {
    return with("simulated_layers: 2}", "simulated_layers: 2" + workload + "}") +
           "  timeline_s: 0.1\nfaults:\n" + faults;
}

const nlohmann::json& window_at(const nlohmann::json& v, double start_s) {
    for (const nlohmann::json& w : v["timeline"]["windows"])
        if (std::abs(w["start_s"].get<double>() - start_s) < 1e-9) return w;
    FAIL("no window at " << start_s);
    return v;
}

// arrived = finished + failed, also in the timeline's windows.
void check_accounted(const nlohmann::json& v) {
    const auto& r = v["requests"];
    CHECK(r["in_flight"].get<std::uint64_t>() == 0);
    CHECK(r["arrived"].get<std::uint64_t>() ==
          r["finished"].get<std::uint64_t>() + r["failed"].get<std::uint64_t>());
    std::uint64_t arrived = 0, finished = 0, failed = 0, steps = 0;
    double batches = 0;
    for (const nlohmann::json& w : v["timeline"]["windows"]) {
        arrived += w["arrived"].get<std::uint64_t>();
        finished += w["finished"].get<std::uint64_t>();
        failed += w["failed"].get<std::uint64_t>();
        const auto n = w["decode_steps"].get<std::uint64_t>();
        steps += n;
        batches += w["decode_batch"]["mean"].get<double>() * static_cast<double>(n);
    }
    // Batch sizes over time add up to the run's.
    CHECK(steps == v["steps"]["decode"].get<std::uint64_t>());
    CHECK(batches / static_cast<double>(steps) == Approx(v["decode_batch"]["mean"].get<double>()));
    CHECK(arrived == r["arrived"].get<std::uint64_t>());
    CHECK(finished == r["finished"].get<std::uint64_t>());
    CHECK(failed == r["failed"].get<std::uint64_t>());
}
}  // namespace

TEST_CASE(
    "a GPU slowed during serving shows in its own kind's steps, in the timeline's windows it "
    "lasts, the same under the seed",
    "[serving][faults][system][long]") {
    const std::string decode_gpu =
        "  - {kind: gpu_slow, target: {gpu: 20}, factor: 2, at_us: 300000, until_us: 600000}\n";
    const nlohmann::json a = run_serving("slow-decode", with_faults(decode_gpu));
    const nlohmann::json& v = a["serving"];
    check_accounted(v);
    CHECK(v["requests"]["failed"] == 0);
    const nlohmann::json& f = v["faults"][0];
    CHECK(f["effect"] == "steps");
    CHECK(f["steps_of"] == nlohmann::json::array({"decode"}));
    CHECK(f["transient_steps"] == 0);  // nothing to react to
    CHECK(f["steps"].get<std::uint64_t>() > 0);
    // Each decode step waits for the slow GPU: about twice as long while it lasts.
    const double before = window_at(v, 0.1)["tpot_ms"]["p50"].get<double>();
    for (const double t : {0.3, 0.4, 0.5})
        CHECK(window_at(v, t)["tpot_ms"]["p50"].get<double>() > 1.5 * before);
    CHECK(window_at(v, 0.8)["tpot_ms"]["p50"].get<double>() == Approx(before).epsilon(0.02));
    for (const nlohmann::json& shape : v["step_shapes"])
        if (shape.contains("faults")) CHECK(shape["what"] == "decode");
    const nlohmann::json b = run_serving("slow-decode-again", with_faults(decode_gpu));
    CHECK(b["serving"] == a["serving"]);
    CHECK(b["files"] == a["files"]);
    // --baseline: the healthy twin is the run without the fault -- as the same scenario with
    // the fault after its end (steps placed alike; a slow GPU drops nothing, so the transport
    // is the same) -- and delta the difference.
    const nlohmann::json c =
        run_serving("slow-decode-baseline", with_faults(decode_gpu), "--baseline");
    const nlohmann::json healthy = run_serving(
        "healthy",
        with_faults("  - {kind: gpu_slow, target: {gpu: 20}, factor: 2, at_us: 100000000}\n"));
    CHECK(c["serving"] == a["serving"]);
    CHECK(c["baseline"]["serving"]["tpot_ms"] == healthy["serving"]["tpot_ms"]);
    CHECK(c["baseline"]["serving"]["ttft_ms"] == healthy["serving"]["ttft_ms"]);
    CHECK(c["delta"]["serving"]["tpot_ms"]["p50"].get<double>() ==
          Approx(v["tpot_ms"]["p50"].get<double>() -
                 healthy["serving"]["tpot_ms"]["p50"].get<double>()));
    CHECK(c["delta"]["serving"]["tpot_ms"]["p99"].get<double>() > 0);
    CHECK(c["delta"]["serving"]["ttft_ms"]["p50"].get<double>() == 0);  // prefill untouched
    // A prefill GPU slows prefill steps alone.
    const nlohmann::json p = run_serving(
        "slow-prefill",
        with_faults("  - {kind: gpu_slow, target: {gpu: 3}, factor: 2, at_us: 300000}\n"));
    CHECK(p["serving"]["faults"][0]["steps_of"] == nlohmann::json::array({"prefill"}));
    bool prefill_with = false;
    for (const nlohmann::json& shape : p["serving"]["step_shapes"])
        if (shape.contains("faults")) {
            CHECK(shape["what"] == "prefill");
            prefill_with = true;
        }
    CHECK(prefill_with);
}

TEST_CASE(
    "a plane lost during serving stops the instances whose libraries abort, their requests "
    "failing -- rerouted, the first step after it waits out the queue pairs' timeout",
    "[serving][faults][system][long]") {
    const std::string plane =
        "  - {kind: plane_down, target: {plane: 1}, at_us: 300000, until_us: 700000}\n";
    const nlohmann::json fail = run_serving("plane-fail", with_faults(plane));
    const nlohmann::json& v = fail["serving"];
    check_accounted(v);
    const nlohmann::json& f = v["faults"][0];
    CHECK(f["failed_steps"].get<std::uint64_t>() >= 1);
    // The prefill and the decode instance, each twice: in the transient, and again in the
    // steady state once restarted.
    CHECK(f["instances_stopped"] == 4);
    CHECK(f["requests_failed"] == v["requests"]["failed"]);
    CHECK(v["requests"]["failed"].get<std::uint64_t>() > 0);
    for (const nlohmann::json& w : v["timeline"]["windows"]) {
        const double t = w["start_s"].get<double>();
        if (t < 0.3 - 1e-9 || t > 0.6 + 1e-9) CHECK(w["failed"] == 0);
    }
    // Back once the plane is: requests arriving after it finish.
    CHECK(window_at(v, 0.8)["tpot_ms"]["p50"].get<double>() > 0);
    const nlohmann::json rerouted =
        run_serving("plane-reroute", with_faults(plane, ", on_plane_loss: reroute"));
    const nlohmann::json& r = rerouted["serving"];
    check_accounted(r);
    CHECK(r["requests"]["failed"] == 0);
    CHECK(r["faults"][0]["transient_steps"] == 2);  // each instance's first step with it
    // Packets sent into the plane before the bond moved are lost; their queue pairs resend
    // after the local ACK timeout, 4.096 us x 2^20 = 4.29 s (network.ack_timeout_exponent).
    bool transient = false;
    for (const nlohmann::json& shape : r["step_shapes"])
        if (shape.contains("transient") && !shape["transient"].empty()) {
            transient = true;
            CHECK(shape["time_ms"].get<double>() > 4295);
        }
    CHECK(transient);
}

TEST_CASE("a NIC lost during serving stops the instance of its GPUs alone",
          "[serving][faults][system][long]") {
    // Two decode instances of 8: NIC 20 is GPU 20's, in decode instance 0 (GPUs 16 to 23).
    const std::string two =
        with_faults("  - {kind: nic_down, target: {nic: 20}, at_us: 300000, until_us: 700000}\n");
    std::string y = two;
    const std::string from = "decode: {ep_size: 16}";
    y.replace(y.find(from), from.size(), "decode: {instances: 2, ep_size: 8}");
    const nlohmann::json a = run_serving("nic", y);
    const nlohmann::json& v = a["serving"];
    check_accounted(v);
    CHECK(v["faults"][0]["effect"] == "stops");
    CHECK(v["faults"][0]["instances"] == nlohmann::json::array({"decode 0"}));
    CHECK(v["faults"][0]["instances_stopped"] == 1);
    // The other instance goes on: requests prefilled while instance 0 is down finish on 1.
    std::istringstream csv(a["files"].get<std::string>());
    std::string line;
    std::getline(csv, line);
    std::uint64_t on_one = 0;
    while (std::getline(csv, line)) {
        std::vector<std::string> c;
        std::stringstream ls(line);
        for (std::string x; std::getline(ls, x, ',');) c.push_back(x);
        REQUIRE(c.size() == 13);
        if (c[5].empty() || c[8].empty()) continue;  // no first token, or failed
        const double first_us = std::stod(c[5]);
        if (first_us > 300000 && first_us < 700000) {
            CHECK(c[10] == "1");
            ++on_one;
        }
    }
    CHECK(on_one > 0);
}

TEST_CASE("bad faults in a serving run are one located line and exit 2",
          "[serving][faults][input][system]") {
    expect_serving_error(
        "flap",
        with_faults("  - {kind: link_flap, target: {tier: nic-leaf, count: 1}, period_us: 100, "
                    "down_us: 10, until_us: 1000}\n"),
        "faults[0].kind", "step boundaries");
    expect_serving_error("gpu-outside",
                         with_faults("  - {kind: gpu_slow, target: {gpu: 32}, factor: 2}\n"),
                         "faults[0].target", "not in the deployment");
    expect_serving_error("switch-outside",
                         with_faults("  - {kind: switch_down, target: {switch: 100000}}\n"),
                         "faults[0].target", "expected");
    std::string unaligned = with_faults("  - {kind: gpu_slow, target: {gpu: 20}, factor: 2}\n");
    // 12 prefill GPUs and 20 decode: whole nodes together, but not the prefill GPUs alone.
    unaligned.replace(unaligned.find("prefill: {ep_size: 16}"), 22, "prefill: {ep_size: 12}");
    unaligned.replace(unaligned.find("decode: {ep_size: 16}"), 21, "decode: {ep_size: 20}");
    expect_serving_error("unaligned", unaligned, "serving.deployment.prefill.ep_size",
                         "whole nodes");
    expect_serving_error("windows", with("duration_s: 1", "duration_s: 11\n  timeline_s: 0.001"),
                         "serving.timeline_s", "10,000 windows");
}

TEST_CASE("a serving run prices its fabric as topo does: in-rack cables copper",
          "[serving][unit]") {
    // FT2 leaves sit in the racks: the NICs' cables to them are DAC, not AOC. The price must
    // come from the placed fabric, not the plan's counts (which place nothing).
    const auto dir = temp_dir("serving-price-racks");
    write_text(dir / "s.yaml", with("topology: {kind: mpft}", "topology: {kind: ft2}"));
    const Scenario s = load_scenario((dir / "s.yaml").string(), {});
    const Scenario whole = serving_fabric_scenario(s);
    const Topology placed = build_topology(whole, 0);
    const auto& cables = placed.inventory.cables;
    REQUIRE(std::any_of(cables.begin(), cables.end(), [](const CableCount& c) {
        return c.kind == "endpoint-dac" && c.count > 0;
    }));
    const double topo_usd = topology_cost(whole, placed).total_usd;
    CHECK(prepare_serving(s).fabric_usd == Approx(topo_usd));
    CHECK(topology_cost(whole, build_topology(whole, 0, true)).total_usd > topo_usd);
}
