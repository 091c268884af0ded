#pragma once
// One run from a loaded scenario to its results document: cheap validation, the estimate and
// its limits, building, simulating, reporting. `run` and every point of `sweep` go through it.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/network/simulation.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/faults.hpp"
#include "tools/scenario/messages_csv.hpp"
#include "tools/scenario/results_json.hpp"
#include "tools/scenario/scenario.hpp"

namespace clustersim {

/// Checked and built, ready to simulate.
struct PreparedRun {
    RunEstimate estimate;
    std::optional<MoeRun> moe;  // workload.kind: moe (its workload moved into `workload`)
    SimulatedFabric fabric;
    Workload workload;
    ResolvedFaults faults;  // faults: the plan the network runs
};

/// Validates the workload, estimates from formulas and refuses what exceeds sim.max_events or
/// sim.max_memory_gb, then builds the fabric and the workload. `beside`: messages that run
/// alongside the scenario's workload, after its own (a serving step's KV transfer). Throws
/// InputError.
PreparedRun prepare_run(const Scenario& s, std::span<const MessageSpec> beside = {});

struct RunOutcome {
    SimulationResult result;
    Json results;  // the results.json document
};

/// Simulates a prepared run, once (its workload's dependency graph is freed after it); `progress`
/// prints a progress line on stderr for long runs.
RunOutcome execute_run(const Scenario& s, PreparedRun& p, bool progress);

/// The files a run writes under --out, in the order written (results.json last, so a folder
/// with results.json holds a whole run).
const std::vector<std::string>& run_output_files();
/// Creates `dir` and checks that every output file can be written as a file, before anything
/// runs: never a half-written output after a long simulation. Throws InputError.
void prepare_output_dir(const std::string& dir,
                        const std::vector<std::string>& files = run_output_files());
struct TraceWritten;
/// What the files hold where they do not hold everything: messages.csv and trace.json.
struct RunFilesWritten {
    MessagesWritten messages;
    std::uint64_t trace_events = 0;
    bool trace_sampled = false;
    std::string trace_what;
};
/// Writes every output file of a finished run, each atomically.
RunFilesWritten write_run_outputs(const std::string& dir, const Scenario& s, const PreparedRun& p,
                                  const RunOutcome& o, std::uint64_t trace_limit,
                                  MessagesChoice messages = MessagesChoice::Auto);

/// Why a run did not complete, with its first unfinished messages (empty when it completed).
std::string run_stop_report(const Scenario& s, const PreparedRun& p, const SimulationResult& r);

}  // namespace clustersim
