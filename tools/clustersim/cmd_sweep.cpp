// clustersim sweep SWEEP: a scenario over a grid of values, on threads or MPI ranks.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/check_json.hpp"
#include "tools/scenario/step_store.hpp"
#include "tools/scenario/sweep.hpp"
#include "tools/scenario/sweep_check.hpp"

namespace clustersim::cli {
namespace {

struct SweepCommandOptions {
    std::string file, out_dir, step_store;
    std::vector<std::string> grid;
    unsigned threads = 1;
    bool quiet = false, dry_run = false;
};

int run(const SweepCommandOptions& o, const MpiSession& mpi) {
    if (o.dry_run) return mpi.rank() == 0 ? check_sweep_file(o.file, o.grid, o.threads) : kExitOk;
    const SweepSpec spec = load_sweep(o.file, o.grid);
    const bool root = mpi.rank() == 0;
    if (spec.goal_inferred && !o.quiet && root)
        fmt::print(stderr,
                   "sweep: objective {} taken as goal: {} from its name (write objective: "
                   "{{key: {}, goal: max|min}} to say it)\n",
                   spec.objective, spec.maximize ? "max" : "min", spec.objective);
    SweepOptions options;
    options.threads = o.threads;
    options.out_dir = o.out_dir;
    // Serving points keep their step runs beside the points: a sweep run again resumes a point
    // it stopped inside, and points differing only in their requests share steps.
    if (!o.step_store.empty()) {
        prepare_step_store(o.step_store);
        options.step_store = o.step_store;
    } else if (!o.out_dir.empty()) {
        options.step_store = (std::filesystem::path(o.out_dir) / "step-store").string();
    }
    options.rank = mpi.rank();
    options.ranks = mpi.ranks();
    options.gather = mpi.gather();
    options.progress = !o.quiet && root;
    const SweepSummary summary = run_sweep(spec, options);
    if (!o.quiet && root) {
        std::cout << sweep_table(spec, summary);
        fmt::print(stderr, "sweep: {} points, {} failed, {} resumed{}\n", summary.points,
                   summary.failed, summary.resumed,
                   o.out_dir.empty() ? "" : "; results.csv and results.json in " + o.out_dir);
    }
    if (!root) return kExitOk;  // rank 0 gathers the rows and answers for the sweep
    return sweep_exit_code(summary);
}

}  // namespace

int sweep_exit_code(const SweepSummary& summary) {
    // As the contract says: 2 when a point's input is bad, 4 when every input was valid but a
    // point did not complete, 0 only when all did.
    bool bad_input = false, incomplete = false;
    for (const auto& row : summary.json["points"]) {
        bad_input |= row["status"] == "error";
        incomplete |= row["status"] != "completed";
    }
    return bad_input ? kExitBadInput : incomplete ? kExitSweepIncomplete : kExitOk;
}

int check_sweep_file(const std::string& file, const std::vector<std::string>& grid,
                     unsigned threads, bool json) {
    const SweepSpec spec = load_sweep(file, grid);
    SweepCheck c = check_sweep(spec);
    // In the order they are written in the file.
    std::stable_sort(c.errors.begin(), c.errors.end(),
                     [](const InputError& a, const InputError& b) {
                         return std::pair{a.line(), a.column()} < std::pair{b.line(), b.column()};
                     });
    for (const InputError& e : c.errors) fmt::print(stderr, "{}\n", e.formatted());
    for (const InputError& w : c.warnings) fmt::print(stderr, "{}\n", w.formatted());
    if (json)
        std::cout << json_text(sweep_check_json(spec, c, threads), 2) << "\n";
    else
        fmt::print("{}\n", sweep_check_summary(spec, c, threads));
    return c.errors.empty() ? kExitOk : kExitBadInput;
}

Subcommand add_sweep(CLI::App& app, const MpiSession& mpi) {
    auto o = std::make_shared<SweepCommandOptions>();
    auto* sub = app.add_subcommand(
        "sweep", "run a scenario over a grid of key values and rank the points by cost");
    sub->add_option("sweep", o->file, "sweep YAML file (base, grid, zip, seeds, objective)")
        ->required();
    sub->add_option("--grid", o->grid, "add or replace a grid key: PATH=V1,V2,...");
    sub->add_option("-j", o->threads, "points to run at once, on threads")
        ->check(CLI::Range(1u, 1024u));
    sub->add_option("--out", o->out_dir, "write results.csv, results.json and points/ here")
        ->check(non_empty_path);
    sub->add_option("--step-store", o->step_store,
                    "serving points: keep step runs in this folder (default OUT/step-store) "
                    "and read them back instead of simulating them again")
        ->check(non_empty_path);
    sub->add_flag("--quiet", o->quiet, "no table and no progress bar");
    sub->add_flag("--dry-run", o->dry_run,
                  "check every point and estimate the sweep, as check does; run nothing");
    return {sub, [o, &mpi] { return run(*o, mpi); }};
}

}  // namespace clustersim::cli
