#pragma once
// Turns a validated scenario into the objects a run needs: topology, network parameters,
// workload. Limits found here (a topology too large, a trace naming missing endpoints) become
// InputErrors that point at the scenario key responsible.
#include "models/network.hpp"
#include "models/workload.hpp"
#include "tools/clustersim/scenario.hpp"
#include "topologies/cost_model.hpp"
#include "topologies/topology.hpp"

namespace clustersim {

struct TraceInput {
    std::uint32_t nodes = 0;
    Workload workload;
};

/// Reads `workload.file` (.cm or .csv) once; empty when the workload is not a trace.
TraceInput load_trace(const Scenario& s);
Topology build_topology(const Scenario& s, std::uint32_t endpoints_if_unset = 0);
CostBreakdown topology_cost(const Scenario& s, const Topology& t);
NetworkParams network_params(const Scenario& s);
Workload build_workload(const Scenario& s, std::uint32_t endpoints, TraceInput trace);

}  // namespace clustersim
