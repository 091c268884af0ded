#pragma once
// `run` of a scenario with a serving: section: its requests, checked against the deployment
// and the fabric before anything is simulated; the serving simulator over packet-level step
// times (serving_steps.hpp); the `serving` section of results.json and the per-request and
// per-step CSV files.
#include <span>
#include <string>
#include <vector>

#include "models/serving/serving_simulator.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/results_json.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/serving_steps.hpp"
#include "topologies/cost_model.hpp"

namespace clustersim {

/// What a serving run starts from: its requests (drawn, or read from the trace) and what the
/// deployment costs.
struct ServingInput {
    std::vector<ServingRequest> requests;
    double fabric_usd = 0;
    ClusterCost cluster;  // the fabric and the servers of the deployment's GPUs
};
/// Checks that each kind of step the deployment runs is one the fabric and the model can
/// simulate, and that the deployment fits (and has a price), before anything is simulated.
/// Throws InputError.
ServingInput prepare_serving(const Scenario& s);

/// `check` of a serving scenario: its requests, and the largest step of each kind it may run
/// (one packet-level run at a time: the run's memory is the largest's).
struct ServingCheck {
    std::uint64_t requests = 0;
    ScenarioEstimate decode, prefill;  // at the decode instance's room, the prefill budget
};
ServingCheck check_serving(const Scenario& s);
/// The memory its largest step run needs (a serving run makes one packet-level run at a time).
std::uint64_t serving_memory_bytes(const ServingCheck& c);
/// The numeric keys of its results (sweep objectives); families end in '.'.
std::vector<std::string> serving_result_keys();
Json serving_check_json(const std::string& file, const Scenario& s, const ServingCheck& c);
std::string serving_check_line(const std::string& file, const Scenario& s, const ServingCheck& c);

struct ServingRunOutcome {
    ServingOutcome outcome;
    std::vector<StepSimulation> simulations;
    std::uint64_t cache_hits = 0;
    std::uint64_t runs_from_store = 0;  // of simulations, read from the step store
    Json results;                       // the results.json document
};

ServingRunOutcome execute_serving(const Scenario& s, const ServingInput& in, bool progress);
/// The same with step times from `steps`, whose cache may hold earlier runs' shapes (same
/// deployment and step settings); `simulations` then lists all its runs.
ServingRunOutcome execute_serving(const Scenario& s, const ServingInput& in,
                                  PacketStepTimes& steps);

/// Files a serving run writes under --out (results.json last).
const std::vector<std::string>& serving_output_files();
void write_serving_outputs(const std::string& dir, const Scenario& s,
                           std::span<const ServingRequest> requests, const ServingRunOutcome& o);

/// The lines `run` prints for a serving run.
std::string serving_summary_table(const Json& results);

}  // namespace clustersim
