// clustersim check SCENARIO: validate it and say what a run would cost, from formulas.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/check_json.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/serving_run.hpp"
#include "tools/scenario/sweep_file.hpp"

namespace clustersim::cli {
namespace {

struct CheckOptions {
    ScenarioOptions scenario;
    bool schema = false;
    std::optional<std::uint32_t> ranks;  // check --ranks R: per MPI rank too
};

// Each rank's share; past 16 ranks the rest are summed up in a line (rank 0 holds the most).
void print_ranks(const RanksEstimate& r) {
    fmt::print("  over {} MPI rank{}: {}\n", r.per_rank.size(), r.per_rank.size() == 1 ? "" : "s",
               ranks_note(r));
    constexpr std::size_t kListed = 16;
    for (std::size_t i = 0; i < std::min(r.per_rank.size(), kListed); ++i)
        fmt::print("  rank {}: {} partition{}, at most about {} events, memory about {}\n", i,
                   r.per_rank[i].partitions, r.per_rank[i].partitions == 1 ? "" : "s",
                   r.per_rank[i].events, format_bytes(r.per_rank[i].memory_bytes));
    if (r.per_rank.size() > kListed)
        fmt::print("  ({} more ranks, each holding at most what rank 0 does)\n",
                   r.per_rank.size() - kListed);
}

int run(const CheckOptions& o) {
    if (o.schema) {
        std::cout << schema_markdown();
        return kExitOk;
    }
    if (o.scenario.scenario.empty()) {
        fmt::print(stderr, "clustersim: check needs a scenario file (or --schema)\n");
        return kExitBadInput;
    }
    if (is_sweep_file(o.scenario.scenario)) {
        if (!o.scenario.sets.empty()) {
            fmt::print(stderr,
                       "clustersim: check of a sweep takes no --set (expected its grid: "
                       "or sweep --grid)\n");
            return kExitBadInput;
        }
        if (o.ranks) {
            fmt::print(stderr,
                       "clustersim: check --ranks takes a scenario, not a sweep (expected "
                       "one of the sweep's points as a scenario file)\n");
            return kExitBadInput;
        }
        return check_sweep_file(o.scenario.scenario, {}, 1, o.scenario.json);
    }
    const Scenario scenario = load(o.scenario);
    if (scenario.serving.set) {
        if (o.ranks)
            throw InputError("--ranks",
                             "serving runs take no ranks estimate yet (expected no "
                             "--ranks with a serving: section)");
        const ServingCheck c = check_serving(scenario);
        std::cout << (o.scenario.json
                          ? json_text(serving_check_json(o.scenario.scenario, scenario, c), 2) +
                                "\n"
                          : serving_check_line(o.scenario.scenario, scenario, c));
        return kExitOk;
    }
    const ScenarioEstimate e = estimate_scenario(scenario);
    const std::string& file = o.scenario.scenario;
    std::optional<RanksEstimate> ranks;
    if (o.ranks && e.has_workload) ranks = estimate_ranks(scenario, e.run, *o.ranks);
    if (o.scenario.json) {
        std::cout << json_text(scenario_check_json(file, e, scenario.sim.replicates,
                                                   ranks ? &*ranks : nullptr),
                               2)
                  << "\n";
        return kExitOk;
    }
    if (!e.has_workload) {
        fmt::print("{}: ok ({} of {} NICs, no workload)\n", file, e.fabric_kind,
                   e.fabric_endpoints);
        return kExitOk;
    }
    const RunEstimate& est = e.run;
    fmt::print(
        "{}: ok ({}; {} messages, about {} packets, at most about {} events{}; memory about {}: "
        "fabric {}, routes {}, workload {}, packets {}){}\n",
        file, e.what, est.messages, est.packets, est.events,
        est.gating_scores ? fmt::format(", {} gating scores", est.gating_scores) : std::string(),
        format_bytes(est.memory_bytes()), format_bytes(est.fabric_bytes),
        format_bytes(est.routes_bytes), format_bytes(est.workload_bytes),
        format_bytes(est.packet_bytes),
        scenario.sim.replicates > 1
            ? fmt::format("; per seed: {} replicates run one after another (about twice that "
                          "memory at the peak)",
                          scenario.sim.replicates)
            : std::string());
    if (ranks) print_ranks(*ranks);
    return kExitOk;
}

}  // namespace

Subcommand add_check(CLI::App& app) {
    auto o = std::make_shared<CheckOptions>();
    auto* sub = app.add_subcommand(
        "check",
        "validate a scenario, or a sweep file: every point, and what the sweep would cost");
    add_scenario_options(sub, o->scenario, true, false, "scenario or sweep YAML file");
    sub->add_flag("--schema", o->schema, "print every scenario key as a Markdown table");
    sub->add_option("--ranks", o->ranks,
                    "also what each of this many MPI ranks would hold and handle (mpirun -n R "
                    "clustersim run)")
        ->check(CLI::Range(1u, 65536u));
    return {sub, [o] { return run(*o); }};
}

}  // namespace clustersim::cli
