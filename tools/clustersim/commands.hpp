#pragma once
// The subcommands of shared/spec/cli.md, one file each: each adds its options to the app and
// returns what runs it. Wiring only: the answers come from the scenario library.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/scenario/mpi_world.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/sweep.hpp"

namespace clustersim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitStalled = 3;
inline constexpr int kExitSweepIncomplete = 4;  // every input valid, a point did not complete

struct Subcommand {
    CLI::App* app = nullptr;
    std::function<int()> run;
};

Subcommand add_run(CLI::App& app, const MpiSession& mpi);
Subcommand add_topo(CLI::App& app);
Subcommand add_traffic(CLI::App& app);
Subcommand add_check(CLI::App& app);
Subcommand add_sweep(CLI::App& app, const MpiSession& mpi);
Subcommand add_report(CLI::App& app);
Subcommand add_compare(CLI::App& app);
Subcommand add_bench(CLI::App& app);
Subcommand add_serve_search(CLI::App& app);
Subcommand add_availability(CLI::App& app);

/// SCENARIO, --set and (optionally) --json: the options every scenario command takes.
struct ScenarioOptions {
    std::string scenario;
    std::vector<std::string> sets;
    bool json = false;
};
void add_scenario_options(CLI::App* sub, ScenarioOptions& o, bool json, bool required = true,
                          const std::string& file_help = "scenario YAML file");
Scenario load(const ScenarioOptions& o, std::optional<std::uint64_t> seed = std::nullopt);

/// `check SWEEP.yaml` and `sweep --dry-run`: each problem on its own line on stderr, then the
/// summary (points, runs, events, memory, wall time), as text or (`json`) one JSON document;
/// exit 2 with problems, else 0.
int check_sweep_file(const std::string& file, const std::vector<std::string>& grid,
                     unsigned threads, bool json = false);

/// A finished sweep's exit code: 2 when a point's input was bad, 4 when a point did not
/// complete, else 0.
int sweep_exit_code(const SweepSummary& summary);

/// `report` on a run's or sweep's output folder (also run --report), or on several runs'
/// (compare.html in the first); returns the page written.
std::string write_report(const std::vector<std::string>& dirs, double slo_tpot_ms);

/// An option that names a folder to write into: refuses an empty path.
std::string non_empty_path(const std::string& v);

}  // namespace clustersim::cli
