// clustersim run SCENARIO: simulate it packet by packet; results on stdout and under --out.
#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <memory>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/baseline.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/replicates.hpp"
#include "tools/scenario/results_json.hpp"
#include "tools/scenario/results_trace.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/serving_run.hpp"
#include "tools/scenario/step_store.hpp"

namespace clustersim::cli {
namespace {

struct RunOptions {
    ScenarioOptions scenario;
    std::optional<std::string> seed_text;  // parsed exactly here (CLI11 would saturate)
    std::string out_dir;
    bool quiet = false, report = false, baseline = false;
    std::uint64_t trace_limit = kDefaultTraceLimit;
    MessagesChoice messages = MessagesChoice::Auto;
    std::optional<std::uint32_t> threads;  // overrides sim.threads
    std::string step_store;                // serving: keep step runs here across runs
};

std::optional<std::uint64_t> parse_seed(const std::optional<std::string>& text) {
    if (!text) return std::nullopt;
    std::uint64_t v = 0;
    const std::string& t = *text;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || p != t.data() + t.size())
        throw InputError("--seed", "'" + t.substr(0, 40) +
                                       "' is out of range or not an integer (expected 0 to "
                                       "18446744073709551615)");
    return v;
}

// A scenario with a serving: section: requests over time, each step simulated by shape.
int serve(const RunOptions& o, const Scenario& s) {
    if (o.baseline && s.faults.empty())
        throw InputError("--baseline",
                         "the scenario has no faults to compare against (expected a "
                         "faults: list)");
    if (o.baseline && s.sim.replicates > 1)
        throw s.error_at("sim.replicates",
                         "--baseline of a serving run compares one seed's runs (expected "
                         "sim.replicates: 1)");
    if (o.report)
        throw InputError("--report",
                         "serving runs have no report page yet (expected no "
                         "--report with a serving: section)");
    const ServingInput input = prepare_serving(s);
    if (!o.out_dir.empty()) prepare_output_dir(o.out_dir, serving_output_files());
    ServingRunOutcome outcome;
    if (o.baseline) {
        // Both runs from one step cache: the healthy steps the faulted run simulated are
        // reused (the same shapes, placement and transport).
        PacketStepTimes steps(s, !o.quiet && !o.scenario.json);
        outcome = execute_serving(s, input, steps);
        const ServingRunOutcome healthy = execute_serving(without_faults(s), input, steps);
        add_serving_baseline(outcome.results, healthy.results);
    } else {
        outcome = execute_serving(s, input, !o.quiet && !o.scenario.json);
    }
    if (!o.out_dir.empty()) write_serving_outputs(o.out_dir, s, input.requests, outcome);
    if (o.scenario.json)
        std::cout << json_text(outcome.results, 2) << "\n";
    else if (!o.quiet)
        std::cout << serving_summary_table(outcome.results);
    return outcome.results["status"] == "completed" ? kExitOk : kExitStalled;
}

int run(RunOptions o, const MpiSession& mpi) {
    // Under mpirun the ranks share the run (sim/ranks.hpp): rank 0 speaks and writes.
    if (mpi.rank() != 0) {
        o.quiet = true;
        o.scenario.json = false;
        o.out_dir.clear();
        o.report = false;
    }
    if (o.report && o.out_dir.empty())
        throw InputError("--report", "needs --out (expected a folder to write into)");
    Scenario s = load(o.scenario, parse_seed(o.seed_text));
    if (o.threads) s.sim.threads = *o.threads;
    s.sim.ranks = mpi.run_ranks();
    if (!o.step_store.empty()) {
        if (!s.serving.set)
            throw InputError("--step-store",
                             "keeps a serving run's step runs, and the scenario has no serving: "
                             "section (expected a serving scenario; docs/serving.md)");
        if (mpi.ranks() > 1)
            throw InputError("--step-store",
                             "each MPI rank would look in the store on its own, and a step "
                             "shared by the ranks can only run on all of them (expected a run "
                             "on one process)");
        prepare_step_store(o.step_store);
        s.serving.step_store = o.step_store;
    }
    if (s.serving.set) return serve(o, s);
    PreparedRun prepared = prepare_run(s);
    const RunEstimate& est = prepared.estimate;
    // No limit is set by default, but a run of hours should not start unannounced.
    if (est.events > kLongRunEvents && s.sim.max_events == 0 && s.sim.max_time_us == 0 && !o.quiet)
        fmt::print(stderr,
                   "clustersim: this run has up to about {:.3g} events to simulate (hours at a "
                   "few million a second); sim.max_events or sim.max_time_us bound it\n",
                   static_cast<double>(est.events));
    if (o.baseline && s.faults.empty())
        throw InputError(s.file,
                         "--baseline: the scenario has no faults to compare against "
                         "(expected a faults: list)");
    if (!o.out_dir.empty()) prepare_output_dir(o.out_dir);
    RunOutcome outcome = run_replicates(s, prepared, !o.quiet && !o.scenario.json);
    if (o.baseline) {
        // The same scenario without its faults, run the same way.
        const Scenario healthy = without_faults(s);
        PreparedRun hp = prepare_run(healthy);
        const RunOutcome h = run_replicates(healthy, hp, !o.quiet && !o.scenario.json);
        add_baseline(outcome.results, h.results);
    }
    if (!o.out_dir.empty()) {
        const RunFilesWritten f =
            write_run_outputs(o.out_dir, s, prepared, outcome, o.trace_limit, o.messages);
        if (f.messages.sampled && !o.quiet)
            fmt::print(stderr, "clustersim: messages.csv holds {}\n", f.messages.what);
        if (f.trace_sampled && !o.quiet)
            fmt::print(stderr, "clustersim: trace.json holds {}\n", f.trace_what);
    }
    if (o.scenario.json)
        std::cout << json_text(outcome.results, 2) << "\n";
    else if (!o.quiet)
        std::cout << run_summary_table(outcome.results)
                  << fmt::format("  {:<26}{:>16.1f}{:>12.1f}\n", "memory est. / peak [MB]",
                                 static_cast<double>(est.memory_bytes()) / 1e6,
                                 static_cast<double>(peak_memory_bytes()) / 1e6)
                  << fmt::format("  {:<26}{:>16}{:>12}\n", "partitions / threads",
                                 outcome.result.partitions, outcome.result.threads)
                  << (mpi.ranks() > 1 ? fmt::format("  {:<26}{:>16}{}\n", "MPI ranks", mpi.ranks(),
                                                    outcome.result.ranks_note.empty()
                                                        ? std::string()
                                                        : "  (" + outcome.result.ranks_note + ")")
                                      : std::string());
    int rc = kExitOk;
    if (const std::string stop = run_stop_report(s, prepared, outcome.result); !stop.empty()) {
        if (mpi.rank() == 0) std::cerr << "clustersim: " << stop;
        rc = kExitStalled;
    }
    if (o.report) (void)write_report({o.out_dir}, 0);
    return rc;
}

}  // namespace

Subcommand add_run(CLI::App& app, const MpiSession& mpi) {
    auto o = std::make_shared<RunOptions>();
    auto* sub = app.add_subcommand("run", "simulate a scenario packet by packet");
    add_scenario_options(sub, o->scenario, true);
    sub->add_option("--seed", o->seed_text, "override the scenario's seed (0 to 2^64 - 1)");
    sub->add_option("--out", o->out_dir, "write results.json and messages.csv to this folder")
        ->check(non_empty_path);
    sub->add_option("--threads", o->threads,
                    "threads that simulate the run's partitions together (results identical to "
                    "one thread's; as sim.threads)")
        ->check(CLI::Range(1u, 1024u));
    sub->add_option("--step-store", o->step_store,
                    "serving: keep each packet-level step run in this folder and read it back "
                    "in later runs instead of simulating it again")
        ->check(non_empty_path);
    sub->add_flag("--quiet", o->quiet, "no summary table or progress line");
    sub->add_option("--trace-limit", o->trace_limit,
                    "at most this many events in trace.json (messages are cut first)")
        ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40));
    sub->add_flag("--report", o->report, "also write report.html under --out");
    sub->add_option("--messages", o->messages,
                    "messages.csv: none, sample (node 0's GPUs), all; default all up to a "
                    "million messages, else sample")
        ->transform(CLI::CheckedTransformer(
            std::map<std::string, MessagesChoice>{{"none", MessagesChoice::None},
                                                  {"sample", MessagesChoice::Sample},
                                                  {"all", MessagesChoice::All}},
            CLI::ignore_case));
    sub->add_flag("--baseline", o->baseline,
                  "also run it without its faults: results gain baseline and delta");
    return {sub, [o, &mpi] { return run(*o, mpi); }};
}

}  // namespace clustersim::cli
