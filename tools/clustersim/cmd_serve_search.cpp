// clustersim serve-search SCENARIO: the highest request rate its serving deployment takes at
// the SLO (tools/scenario/serve_search.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/output_files.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/serve_search.hpp"

namespace clustersim::cli {
namespace {

struct ServeSearchCliOptions {
    ScenarioOptions scenario;
    ServeSearchOptions search;
    std::string out_dir;
    bool quiet = false;
};

int run(const ServeSearchCliOptions& o) {
    const Scenario s = load(o.scenario);
    if (!s.serving.set)
        throw s.error_at("serving",
                         "serve-search needs a serving: section (expected one; "
                         "docs/serving.md)");
    if (!o.out_dir.empty()) prepare_output_dir(o.out_dir, {"results.json"});
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
    sub->add_option("--out", o->out_dir, "write results.json here")->check(non_empty_path);
    sub->add_flag("--quiet", o->quiet, "print nothing but errors");
    return {sub, [o] { return run(*o); }};
}

}  // namespace clustersim::cli
