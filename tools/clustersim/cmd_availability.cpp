// clustersim availability SCENARIO_OR_SWEEP: what a MoE step's cluster delivers over days of
// component failures (tools/scenario/availability.hpp), or a sweep's points ranked by it.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/availability.hpp"
#include "tools/scenario/output_files.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/sweep.hpp"
#include "tools/scenario/sweep_file.hpp"

namespace clustersim::cli {
namespace {

struct AvailabilityCliOptions {
    ScenarioOptions scenario;
    std::string out_dir;
    unsigned threads = 1;
    bool quiet = false;
};

// A sweep: every point's analysis, ranked by delivered tokens/s per million dollars unless its
// objective is already an availability key.
int run_sweep_file(const AvailabilityCliOptions& o) {
    if (!o.scenario.sets.empty()) {
        fmt::print(stderr,
                   "clustersim: availability of a sweep takes no --set (expected its grid or "
                   "base: to say it)\n");
        return kExitBadInput;
    }
    SweepSpec spec = load_sweep(o.scenario.scenario, {});
    if (!spec.availability) {
        spec.objective = "availability.tokens_per_s_per_musd";
        spec.maximize = true;
        spec.availability = true;
    }
    SweepOptions options;
    options.threads = o.threads;
    options.out_dir = o.out_dir;
    options.progress = !o.quiet && !o.scenario.json;
    const SweepSummary summary = run_sweep(spec, options);
    if (o.scenario.json)
        std::cout << json_text(summary.json, 2) << "\n";
    else if (!o.quiet)
        std::cout << sweep_table(spec, summary);
    return sweep_exit_code(summary);
}

int run(const AvailabilityCliOptions& o) {
    if (is_sweep_file(o.scenario.scenario)) return run_sweep_file(o);
    if (!o.out_dir.empty()) prepare_output_dir(o.out_dir, {"results.json"});
    const Scenario s = load(o.scenario);
    const Json r = run_availability(s, !o.quiet && !o.scenario.json);
    if (!o.out_dir.empty())
        write_file_atomically((std::filesystem::path(o.out_dir) / "results.json").string(),
                              json_text(r, 2) + "\n");
    if (o.scenario.json)
        std::cout << json_text(r, 2) << "\n";
    else if (!o.quiet)
        std::cout << availability_table(r);
    return kExitOk;
}

}  // namespace

Subcommand add_availability(CLI::App& app) {
    auto o = std::make_shared<AvailabilityCliOptions>();
    auto* sub = app.add_subcommand(
        "availability",
        "expected throughput and cost per delivered token over days of component failures");
    add_scenario_options(sub, o->scenario, true, true, "scenario or sweep YAML file");
    sub->add_option("--out", o->out_dir, "write results.json here (a sweep: its folder)")
        ->check(non_empty_path);
    sub->add_option("-j", o->threads, "a sweep's points to run at once, on threads")
        ->check(CLI::Range(1u, 1024u));
    sub->add_flag("--quiet", o->quiet, "print nothing but errors");
    return {sub, [o] { return run(*o); }};
}

}  // namespace clustersim::cli
