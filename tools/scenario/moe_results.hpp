#pragma once
// `clustersim traffic`: the expert-parallel traffic of a moe scenario without simulating it --
// bytes per GPU per all-to-all and per step, the traffic matrix's summary, the load per NIC and
// per node, and the ISCA '25 section 2.3.2 communication bound.
#include <nlohmann/json.hpp>
#include <string>

#include "tools/scenario/scenario.hpp"

namespace clustersim {

nlohmann::ordered_json moe_traffic_json(const Scenario& s);
std::string moe_traffic_table(const nlohmann::ordered_json& j);

}  // namespace clustersim

#include "models/network/simulation.hpp"
#include "traffic/moe_step_metrics.hpp"
#include "traffic/moe_workload.hpp"

namespace clustersim {

/// The `decode`, `prefill` or `training` section of results.json for a simulated moe step:
/// per-layer dispatch and combine times, the step time (TPOT for decode) extrapolated from the
/// simulated layers' steady state (or `pace`'s, the degraded steady state after a fault's
/// transient: moe_step_metrics), tokens/s, and the simulated passes' timeline.
nlohmann::ordered_json moe_step_json(const Scenario& s, const MoeRun& run, const Workload& w,
                                     const SimulationResult& r,
                                     const MoeStepMetrics* pace = nullptr);
/// The same section from metrics already computed (`simulated_layers`: the main layers
/// simulated, which tells the timeline's passes apart).
nlohmann::ordered_json moe_step_section(const MoeStepMetrics& m, MoePhase phase,
                                        std::uint32_t simulated_layers);

}  // namespace clustersim
