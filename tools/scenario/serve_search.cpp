#include "tools/scenario/serve_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "tools/scenario/serving_run.hpp"
#include "traffic/serving_requests.hpp"

namespace clustersim {
namespace {

// One probe: the scenario's requests at `rate`, served with the shared step times.
ServeProbe probe(const Scenario& s, double rate, PacketStepTimes& steps, Json& serving,
                 double attainment) {
    Scenario at = s;
    at.serving.rate_per_s = rate;
    const ServingInput in = prepare_serving(at);
    const std::size_t before = steps.simulations().size();
    const ServingRunOutcome o = execute_serving(at, in, steps);
    const Json& v = o.results["serving"];
    ServeProbe p;
    p.rate_per_s = rate;
    p.slo_attainment = v["slo_attainment"].get<double>();
    p.goodput_rps = v["goodput_rps"].get<double>();
    p.ttft_p99_ms = v["ttft_ms"]["p99"].get<double>();
    p.tpot_p99_ms = v["tpot_ms"]["p99"].get<double>();
    p.requests = in.requests.size();
    p.step_simulations = steps.simulations().size() - before;
    p.meets = o.results["status"] == "completed" && p.slo_attainment >= attainment;
    serving = v;
    return p;
}

// Whether the scenario's seed draws any request at `rate` within its arrival window (at a low
// enough rate none arrives, and there is nothing to serve).
bool any_request(const Scenario& s, double rate) {
    return !poisson_requests(rate, s.serving.duration_s, s.serving.prompt, s.serving.output, s.seed)
                .empty();
}

}  // namespace

ServeSearchResult serve_search(const Scenario& s, const ServeSearchOptions& o, bool progress) {
    if (!s.serving.set)
        throw s.error_at("serving",
                         "serve-search needs a serving: section (expected one; "
                         "docs/serving.md)");
    if (s.serving.trace)
        throw s.error_at("serving.arrival.kind",
                         "serve-search varies a Poisson rate, and this scenario replays a trace "
                         "(expected arrival: {kind: poisson, rate_per_s: R})");
    if (s.sim.replicates > 1)
        throw s.error_at("sim.replicates",
                         "serve-search runs each probe under one seed (expected 1, or a "
                         "search per seed with --set seed=N)");
    (void)prepare_serving(s);  // the deployment and the fabric checked before anything runs
    PacketStepTimes steps(s, progress);
    ServeSearchResult r;
    double lo = 0, hi = 0;  // the highest rate that met the target, the lowest that did not
    Json best = nullptr;
    auto run = [&](double rate) {
        Json serving;
        const ServeProbe p = probe(s, rate, steps, serving, o.attainment);
        r.probes.push_back(p);
        if (progress)
            fmt::print(stderr,
                       "clustersim: serve-search: {:.4g} req/s: attainment {:.4f}, TTFT p99 "
                       "{:.1f} ms, TPOT p99 {:.2f} ms ({} new step runs)\n",
                       rate, p.slo_attainment, p.ttft_p99_ms, p.tpot_p99_ms, p.step_simulations);
        if (p.meets && rate > lo) {
            lo = rate;
            best = serving;
        }
        if (!p.meets && (hi == 0 || rate < hi)) hi = rate;
        return p.meets;
    };
    double rate = s.serving.rate_per_s;
    if (run(rate)) {
        while (r.probes.size() < o.max_probes && run(rate *= 2)) {
        }
    } else {
        // Down while a request still arrives: below that, no rate meets the target.
        while (r.probes.size() < o.max_probes && any_request(s, rate / 2) && !run(rate /= 2)) {
        }
    }
    while (lo > 0 && hi > 0 && (hi - lo) / hi > o.precision && r.probes.size() < o.max_probes)
        run((lo + hi) / 2);
    r.rate_per_s = lo;
    r.failed_rate_per_s = hi;
    r.bracketed = lo > 0 && hi > 0 && (hi - lo) / hi <= o.precision;
    r.best = best;
    // With common random numbers attainment falls as the rate rises, but for which requests
    // share a step: a short window of few requests can break that, and the answer with it.
    for (const ServeProbe& a : r.probes)
        for (const ServeProbe& b : r.probes)
            if (a.rate_per_s < b.rate_per_s && a.slo_attainment < b.slo_attainment)
                r.monotone = false;

    Json probes = Json::array();
    for (const ServeProbe& p : r.probes)
        probes.push_back({{"rate_per_s", p.rate_per_s},
                          {"slo_attainment", p.slo_attainment},
                          {"goodput_rps", p.goodput_rps},
                          {"ttft_p99_ms", p.ttft_p99_ms},
                          {"tpot_p99_ms", p.tpot_p99_ms},
                          {"requests", p.requests},
                          {"step_simulations", p.step_simulations},
                          {"meets", p.meets}});
    // What the answer is worth: the rate per GPU and per million dollars of the deployment
    // (fabric and servers, as the run at the rate prices them); null when no probe met it.
    Json gpus = nullptr, usd = nullptr, per_gpu = nullptr, per_musd = nullptr;
    if (best.is_object()) {
        gpus = best["gpus"];
        usd = best["cost_usd"]["cluster"];
        per_gpu = r.rate_per_s / gpus.get<double>();
        per_musd = usd.get<double>() > 0 ? r.rate_per_s / usd.get<double>() * 1e6 : 0.0;
    }
    Json j;
    j["tool"] = tool_json();
    j["resolved_scenario"] = resolved_scenario_json(s);
    j["scenario"] = s.name;
    j["seed"] = s.seed;
    j["serve_search"] = {{"attainment_target", o.attainment},
                         {"precision", o.precision},
                         {"rate_per_s", r.rate_per_s},
                         {"failed_rate_per_s", r.failed_rate_per_s},
                         {"bracketed", r.bracketed},
                         {"monotone", r.monotone},
                         {"gpus", gpus},
                         {"cluster_usd", usd},
                         {"rate_per_s_per_gpu", per_gpu},
                         {"rate_per_s_per_musd", per_musd},
                         {"step_simulations", steps.simulations().size()},
                         {"step_cache_hits", steps.cache_hits()},
                         {"probes", probes},
                         {"at_rate", best}};
    j["sim"] = {{"step_runs_from_store", steps.runs_from_store()}};
    r.results = std::move(j);
    return r;
}

std::vector<std::string> serve_search_result_keys() {
    std::vector<std::string> keys = {"serve_search.rate_per_s",
                                     "serve_search.failed_rate_per_s",
                                     "serve_search.gpus",
                                     "serve_search.cluster_usd",
                                     "serve_search.rate_per_s_per_gpu",
                                     "serve_search.rate_per_s_per_musd",
                                     "serve_search.step_simulations",
                                     "serve_search.step_cache_hits"};
    for (const std::string& k : serving_result_keys())  // the run at the rate found
        if (k.rfind("serving.", 0) == 0) keys.push_back("serve_search.at_rate." + k.substr(8));
    return keys;
}

std::string serve_search_table(const ServeSearchResult& r) {
    const Json& j = r.results;
    const Json& v = j["serve_search"];
    std::string out = fmt::format(
        "{} (seed {}): {}\n", j["scenario"].get<std::string>(), j["seed"].get<std::uint64_t>(),
        r.rate_per_s > 0 ? fmt::format("{:.4g} req/s with {:.0f} % of requests "
                                       "meeting the SLO",
                                       r.rate_per_s, 100 * v["attainment_target"].get<double>())
                         : std::string("no rate probed met the SLO target"));
    out += fmt::format("  {:>12}{:>12}{:>12}{:>14}{:>14}{:>8}\n", "req/s", "attainment", "goodput",
                       "TTFT p99 ms", "TPOT p99 ms", "meets");
    for (const ServeProbe& p : r.probes)
        out += fmt::format("  {:>12.4g}{:>12.4f}{:>12.3f}{:>14.1f}{:>14.2f}{:>8}\n", p.rate_per_s,
                           p.slo_attainment, p.goodput_rps, p.ttft_p99_ms, p.tpot_p99_ms,
                           p.meets ? "yes" : "no");
    if (!r.monotone)
        out +=
            "  attainment did not fall steadily with the rate: too few requests for the "
            "answer to hold (expected a longer serving.duration_s)\n";
    if (!r.bracketed)
        out += fmt::format("  not bracketed within {:.0f} % in {} probes\n",
                           100 * v["precision"].get<double>(), r.probes.size());
    return out;
}

Json split_search_json(std::span<const ServeSplit> splits) {
    Json rows = Json::array();
    std::optional<std::size_t> best;
    double best_per_musd = 0;
    for (std::size_t i = 0; i < splits.size(); ++i) {
        const ServeSplit& sp = splits[i];
        const ServeSearchResult& r = sp.result;
        const Json& v = r.results["serve_search"];
        Json row;
        row["prefill_instances"] = sp.prefill_instances;
        row["decode_instances"] = sp.decode_instances;
        row["rate_per_s"] = r.rate_per_s;
        row["failed_rate_per_s"] = r.failed_rate_per_s;
        row["bracketed"] = r.bracketed;
        row["monotone"] = r.monotone;
        row["probes"] = r.probes.size();
        row["gpus"] = v["gpus"];  // null when no probe met the target
        row["cluster_usd"] = v["cluster_usd"];
        row["rate_per_gpu"] = v["rate_per_s_per_gpu"];
        row["rate_per_musd"] = v["rate_per_s_per_musd"];
        if (const Json& m = v["rate_per_s_per_musd"]; !m.is_null() &&
                                                      v["cluster_usd"].get<double>() > 0 &&
                                                      (!best || m.get<double>() > best_per_musd)) {
            best = i;
            best_per_musd = m.get<double>();
        }
        rows.push_back(std::move(row));
    }
    Json j;
    j["splits"] = rows;
    j["best"] = best ? Json(*best) : Json(nullptr);
    return j;
}

std::string split_search_table(const Json& j) {
    std::string out = fmt::format("  {:>9}{:>9}{:>7}{:>12}{:>12}{:>14}{:>8}\n", "prefill", "decode",
                                  "GPUs", "req/s", "req/s/GPU", "req/s per $M", "best");
    auto cell = [](const Json& v, const char* f) {
        return v.is_null() ? std::string("-") : fmt::format(fmt::runtime(f), v.get<double>());
    };
    for (std::size_t i = 0; i < j["splits"].size(); ++i) {
        const Json& r = j["splits"][i];
        out += fmt::format("  {:>9}{:>9}{:>7}{:>12}{:>12}{:>14}{:>8}\n",
                           r["prefill_instances"].get<std::uint32_t>(),
                           r["decode_instances"].get<std::uint32_t>(), cell(r["gpus"], "{:.0f}"),
                           cell(r["rate_per_s"], "{:.4g}"), cell(r["rate_per_gpu"], "{:.4f}"),
                           cell(r["rate_per_musd"], "{:.3f}"),
                           !j["best"].is_null() && j["best"].get<std::size_t>() == i ? "*" : "");
    }
    return out;
}

}  // namespace clustersim
