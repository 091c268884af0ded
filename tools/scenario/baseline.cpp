#include "tools/scenario/baseline.hpp"

#include <array>
#include <string_view>

#include "tools/scenario/build.hpp"

namespace clustersim {
namespace {

// The sections a baseline carries whole, and the numbers `delta` compares in each.
constexpr std::array<std::string_view, 3> kPhases = {"decode", "prefill", "training"};
constexpr std::array<std::string_view, 7> kCompared = {
    "tpot_ms",    "step_ms", "tokens_per_s_per_gpu", "tokens_per_s_per_user", "dispatch_us",
    "combine_us", "layer_us"};

Json difference(const Json& faulted, const Json& healthy, std::string_view key) {
    const std::string k(key);
    if (!healthy.contains(k) || !healthy[k].is_number()) return nullptr;
    if (!faulted.contains(k) || !faulted[k].is_number()) return nullptr;  // e.g. it failed
    return faulted[k].get<double>() - healthy[k].get<double>();
}

}  // namespace

Scenario without_faults(const Scenario& s) {
    Scenario h = s;
    // The same transport: where the faults turn on ACKs and timers (a fault that drops), the
    // healthy run keeps them, so that the difference is the fault's, not the ACKs' (~1-2 %).
    h.network.reliable = faulted_run_reliable(s);
    h.faults.clear();
    return h;
}

bool faulted_run_reliable(const Scenario& s) {
    return s.network.reliable || network_params(s, Topology{}).faults_drop;
}

void add_baseline(Json& faulted, const Json& healthy) {
    Json base = Json::object();
    Json delta = Json::object();
    base["status"] = healthy.value("status", "");
    for (std::string_view phase : kPhases) {
        const std::string p(phase);
        if (!healthy.contains(p)) continue;
        base[p] = healthy[p];
        const Json none = Json::object();
        const Json& f = faulted.contains(p) ? faulted[p] : none;
        Json d = Json::object();
        for (std::string_view key : kCompared)
            if (healthy[p].contains(std::string(key)))
                d[std::string(key)] = difference(f, healthy[p], key);
        delta[p] = d;
    }
    if (healthy.contains("messages")) {
        const Json& hm = healthy["messages"];
        base["messages"] = {{"latency_us", hm["latency_us"]}, {"makespan_us", hm["makespan_us"]}};
        const Json none = Json::object();
        const Json& fm = faulted.contains("messages") ? faulted["messages"] : none;
        const Json fl = fm.contains("latency_us") ? fm["latency_us"] : none;
        delta["messages"] = {{"latency_p99_us", difference(fl, hm["latency_us"], "p99")},
                             {"makespan_us", difference(fm, hm, "makespan_us")}};
    }
    faulted["baseline"] = std::move(base);
    faulted["delta"] = std::move(delta);
}

void add_serving_baseline(Json& faulted, const Json& healthy) {
    const Json& h = healthy["serving"];
    const Json& f = faulted["serving"];
    Json base = Json::object(), delta = Json::object();
    for (const char* k : {"requests", "ttft_ms", "tpot_ms", "e2e_ms", "goodput_rps",
                          "slo_attainment", "tokens_per_s_per_gpu"})
        base[k] = h[k];
    for (const char* k : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
        Json d = Json::object();
        for (const char* q : {"p50", "p90", "p99", "mean"}) d[q] = difference(f[k], h[k], q);
        delta[k] = std::move(d);
    }
    for (const char* k : {"goodput_rps", "slo_attainment", "tokens_per_s_per_gpu"})
        delta[k] = difference(f, h, k);
    delta["requests_failed"] = difference(f["requests"], h["requests"], "failed");
    faulted["baseline"] = {{"status", healthy.value("status", "")}, {"serving", std::move(base)}};
    faulted["delta"] = {{"serving", std::move(delta)}};
}

}  // namespace clustersim
