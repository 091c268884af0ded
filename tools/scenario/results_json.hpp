#pragma once
// Turns a finished simulation into the results document of the CLI contract
// (shared/spec/cli.md), a readable table, and the per-message CSV.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "models/network/simulation.hpp"
#include "tools/scenario/scenario.hpp"
#include "topologies/cost_model.hpp"

namespace clustersim {

using Json = nlohmann::ordered_json;

/// The text of a document: what input put in it is UTF-8 already (the YAML front door refuses
/// anything else), and any byte that still is not -- a path from the command line -- is
/// replaced by U+FFFD rather than ending the run.
inline std::string json_text(const Json& j, int indent = -1) {
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

/// The value at a dotted path (`decode.tpot_ms`) of a results document, or null.
const Json* json_at(const Json& j, std::string_view path);
/// results.json's `resolved_scenario`: every key the run read, nested as a scenario file
/// nests them, with the value it used (faults[i] as a list).
Json resolved_scenario_json(const Scenario& s);
/// results.json's `tool`: the version, commit and build type that made it (build_info.hpp).
Json tool_json();

Json inventory_json(const Scenario& s, const Topology& t, const CostBreakdown& cost);
/// The cluster a run's document prices: its fabric (`topology.cost_usd`) and the servers of its
/// NICs (`topology.endpoints`) at the node preset's price, as sweeps and availability price it.
ClusterCost cluster_cost_of(const Scenario& s, const Json& results);
/// `t` is the fabric (its endpoints are NICs); `simulated` what ran (the fabric, or the fabric
/// expanded with its nodes, whose fabric switches keep their channel indices).
Json run_results_json(const Scenario& s, const Topology& t, const Topology& simulated,
                      std::uint32_t endpoints, const Workload& w, const SimulationResult& r);
std::string run_summary_table(const Json& results);
/// The sampled egress queues (sim.sample_us): time_us, channel, its two ends, queued bytes,
/// whether PFC held the port.
std::string queues_csv(const PortGraph& graph, const SimulationResult& r);
/// One line per unfinished message (at most `limit`), for the exit-3 report.
std::string unfinished_report(const Workload& w, const SimulationResult& r, std::size_t limit);

}  // namespace clustersim
