// clustersim serve-search SCENARIO: the highest request rate its serving deployment takes at
// the SLO (tools/scenario/serve_search.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/output_files.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/serve_search.hpp"
#include "tools/scenario/step_store.hpp"

namespace clustersim::cli {
namespace {

struct ServeSearchCliOptions {
    ScenarioOptions scenario;
    ServeSearchOptions search;
    std::vector<std::string> splits;  // P:D, prefill and decode instances
    std::string out_dir;
    std::string step_store;                // keep step runs here across runs
    std::optional<std::uint32_t> threads;  // overrides sim.threads
    bool quiet = false;
};

Scenario load_with_store(const ServeSearchCliOptions& o, const ScenarioOptions& with) {
    Scenario s = load(with);
    s.serving.step_store = o.step_store;
    if (o.threads) s.sim.threads = *o.threads;
    return s;
}

std::string split_text(const std::string& v) {
    const auto colon = v.find(':');
    const auto whole = [](const std::string& t) {
        return !t.empty() && t.size() <= 6 &&
               t.find_first_not_of("0123456789") == std::string::npos && t != "0" && t[0] != '0';
    };
    if (colon != std::string::npos && whole(v.substr(0, colon)) && whole(v.substr(colon + 1)))
        return {};
    return "'" + v.substr(0, 40) +
           "' (expected PREFILL:DECODE instances, two whole numbers from 1, such as 2:1)";
}

// Each split: the scenario with those instance counts, searched on its own.
int run_splits(const ServeSearchCliOptions& o) {
    // The kind first: a colocated scenario has no prefill instances to set.
    if (const Scenario base = load(o.scenario);
        base.serving.set && base.serving.deployment.kind != DeploymentKind::Disaggregated)
        throw base.error_at("serving.deployment.kind",
                            "--split divides a disaggregated deployment (expected kind: "
                            "disaggregated)");
    if (!o.step_store.empty()) prepare_step_store(o.step_store);
    std::vector<ServeSplit> splits;
    Json first;
    for (const std::string& text : o.splits) {
        const auto colon = text.find(':');
        ScenarioOptions with = o.scenario;
        with.sets.push_back("serving.deployment.prefill.instances=" + text.substr(0, colon));
        with.sets.push_back("serving.deployment.decode.instances=" + text.substr(colon + 1));
        const Scenario s = load_with_store(o, with);
        ServeSplit sp;
        sp.prefill_instances = s.serving.deployment.prefill.instances;
        sp.decode_instances = s.serving.deployment.decode.instances;
        if (!o.quiet && !o.scenario.json)
            fmt::print(stderr, "clustersim: serve-search: split {}\n", text);
        sp.result = serve_search(s, o.search, !o.quiet && !o.scenario.json);
        if (first.is_null()) first = sp.result.results;
        splits.push_back(std::move(sp));
    }
    Json j;
    j["tool"] = first["tool"];
    j["scenario"] = first["scenario"];
    j["seed"] = first["seed"];
    j["serve_search_splits"] = split_search_json(splits);
    for (std::size_t i = 0; i < splits.size(); ++i)
        j["serve_search_splits"]["splits"][i]["search"] = splits[i].result.results["serve_search"];
    if (!o.out_dir.empty())
        write_file_atomically((std::filesystem::path(o.out_dir) / "results.json").string(),
                              json_text(j, 2) + "\n");
    if (o.scenario.json)
        std::cout << json_text(j, 2) << "\n";
    else if (!o.quiet)
        std::cout << fmt::format("{} (seed {}): requests/s at the SLO target by split\n",
                                 first["scenario"].get<std::string>(),
                                 first["seed"].get<std::uint64_t>())
                  << split_search_table(j["serve_search_splits"]);
    return kExitOk;
}

int run(const ServeSearchCliOptions& o) {
    if (!o.out_dir.empty()) prepare_output_dir(o.out_dir, {"results.json"});
    if (!o.splits.empty()) return run_splits(o);
    const Scenario s = load_with_store(o, o.scenario);
    if (!o.step_store.empty() && s.serving.set) prepare_step_store(o.step_store);
    const ServeSearchResult r = serve_search(s, o.search, !o.quiet && !o.scenario.json);
    if (!o.out_dir.empty())
        write_file_atomically((std::filesystem::path(o.out_dir) / "results.json").string(),
                              json_text(r.results, 2) + "\n");
    if (o.scenario.json)
        std::cout << json_text(r.results, 2) << "\n";
    else if (!o.quiet)
        std::cout << serve_search_table(r);
    return kExitOk;
}

std::string share(const std::string& v) {
    try {
        const double x = std::stod(v);
        if (x > 0 && x <= 1) return {};
    } catch (const std::exception&) {
    }
    return "'" + v.substr(0, 40) + "' (expected a share above 0 and at most 1)";
}

}  // namespace

Subcommand add_serve_search(CLI::App& app) {
    auto o = std::make_shared<ServeSearchCliOptions>();
    auto* sub = app.add_subcommand(
        "serve-search",
        "the highest Poisson request rate a serving scenario's deployment takes at its SLO");
    add_scenario_options(sub, o->scenario, true);
    sub->add_option("--attainment", o->search.attainment,
                    "share of requests that must meet the SLO (default 0.9, DistServe's)")
        ->check(share);
    sub->add_option("--precision", o->search.precision,
                    "stop once the bracket is within this share of its top (default 0.02)")
        ->check(share);
    sub->add_option("--max-probes", o->search.max_probes, "serving runs at most (default 12)")
        ->check(CLI::Range(1u, 64u));
    sub->add_option("--split", o->splits,
                    "search each prefill:decode split of instances, P:D (repeatable); the best "
                    "takes the most requests/s per million dollars")
        ->check(split_text);
    sub->add_option("--out", o->out_dir, "write results.json here")->check(non_empty_path);
    sub->add_option("--threads", o->threads,
                    "threads that simulate each step run's partitions together (results "
                    "identical to one thread's; as sim.threads)")
        ->check(CLI::Range(1u, 1024u));
    sub->add_option("--step-store", o->step_store,
                    "keep each packet-level step run in this folder and read it back in later "
                    "searches instead of simulating it again")
        ->check(non_empty_path);
    sub->add_flag("--quiet", o->quiet, "print nothing but errors");
    return {sub, [o] { return run(*o); }};
}

}  // namespace clustersim::cli
