#pragma once
// Turns a validated scenario into the objects a run needs: topology, network parameters,
// workload. Limits found here (a topology too large, a trace naming missing endpoints) become
// InputErrors that point at the scenario key responsible.
#include <optional>
#include "models/dag/workload.hpp"
#include "models/network/network.hpp"
#include "tools/scenario/scenario.hpp"

#include "models/forwarding/forwarding_tables.hpp"
#include "models/network/node_layout.hpp"
#include "topologies/cost_model.hpp"
#include "topologies/node_expansion.hpp"
#include "topologies/topology.hpp"
#include "traffic/moe_step_size.hpp"
#include "traffic/moe_workload.hpp"
#include "traffic/workload_kinds.hpp"

namespace clustersim {

struct TraceInput {
    std::uint32_t nodes = 0;
    Workload workload;
};

/// Reads `workload.file` (.cm or .csv) once; empty when the workload is not a trace.
TraceInput load_trace(const Scenario& s);
/// `counts_only`: inventory, planes and lanes from the formulas, no graph (TopologyRequest).
Topology build_topology(const Scenario& s, std::uint32_t endpoints_if_unset = 0,
                        bool counts_only = false);
CostBreakdown topology_cost(const Scenario& s, const Topology& t);

/// What `run` simulates: the fabric, its forwarding tables, and (unless cluster.node is none)
/// the fabric expanded with the node model, whose endpoints are GPUs.
struct SimulatedFabric {
    Topology fabric;
    ForwardingTables routes;
    std::optional<Topology> expanded;
    NodeLayout layout;
    const Topology& simulated() const { return expanded ? *expanded : fabric; }
    const NodeLayout* node_layout() const { return expanded ? &layout : nullptr; }
    std::uint32_t endpoints() const { return simulated().graph.endpoint_count(); }
};
NodeSpec node_spec(const Scenario& s);
/// The GPUs the workload needs when topology.endpoints is not set: a MoE step's EP groups, a
/// trace's nodes, else 0 (the topology's maximum).
inline std::uint32_t workload_gpus(const Scenario& s, const TraceInput& trace) {
    return s.workload.kind == "moe" ? s.workload.ep_size * s.workload.ep_groups : trace.nodes;
}

/// What build_simulated_fabric would build, counted from formulas after all its checks.
struct FabricPlan {
    Topology fabric;  // counts only: inventory, planes and lanes, no graph
    std::uint32_t lanes = 1;
    bool node_model = false;
    std::uint64_t fabric_switches = 0, fabric_cables = 0;
    std::uint64_t edge_switches = 0;  // fabric switches endpoints attach to (forwarding tables)
    std::uint64_t endpoints = 0;      // simulated: GPUs with the node model, else NICs
    std::uint64_t switches = 0, cables = 0;  // simulated, node model included
};
/// `trace_gpus`: the GPU count a trace needs, used when topology.endpoints is not set.
FabricPlan plan_fabric(const Scenario& s, std::uint32_t trace_gpus);
/// The NICs of the nodes that hold `gpus` GPUs (what topology.endpoints counts).
std::uint32_t nics_of_gpus(const Scenario& s, std::uint32_t gpus);
/// The NICs a serving run's fabric attaches: topology.endpoints as set (GPUs beside the
/// deployment's idle, but built and priced: a pod bought bigger than what it serves), else the
/// deployment's nodes'.
std::uint32_t serving_fabric_nics(const Scenario& s);
/// A serving scenario's whole fabric as a scenario of its own (serving unset, endpoints
/// serving_fabric_nics): what its price, pod check and fault targets are taken on.
Scenario serving_fabric_scenario(const Scenario& s);
SimulatedFabric build_simulated_fabric(const Scenario& s, std::uint32_t trace_gpus);
/// Whether some switch of the scenario's fabric has more than one next hop toward some
/// destination: all a routing policy can choose among (none: every policy routes alike).
bool fabric_has_route_choice(const Scenario& s);
NetworkParams network_params(const Scenario& s, const Topology& fabric);
/// Lanes per link: network.virtual_lanes, else what the topology's minimal routes need (twice
/// that for valiant and ugal).
std::uint32_t virtual_lanes(const Scenario& s, const Topology& fabric);
/// The workload's cheap checks (kind known, message size given), before anything is built.
const WorkloadKind& validate_workload(const Scenario& s);
Workload build_workload(const Scenario& s, std::uint32_t endpoints, TraceInput trace);
/// The moe decode step's DAG and where its all-to-alls are (workload.kind: moe).
/// workload.simulated_layers: auto starts from 4 layers in decode (its first three against all
/// four) and from 2 in prefill and training (whose layers cost far more; each rerun adds one),
/// up to 8 (tools/scenario/settle_layers.hpp). Assumptions, stated in docs/moe-traffic.md.
inline constexpr std::uint32_t kAutoLayersStart = 4, kAutoLayersCostlyStart = 2, kAutoLayersCap = 8;
/// The MoE layers a run simulates: the scenario's count, or where auto starts.
std::uint32_t simulated_layers_to_run(const Scenario& s);
MoeRunSpec moe_run_spec(const Scenario& s, std::uint32_t endpoints);
/// GPUs per pod of a fabric of unconnected pods (whole nodes of its NICs), 0 for a connected one.
std::uint64_t pod_gpus(const Scenario& s, const Topology& fabric);
/// On a fabric of unconnected pods (topology.pods), every EP group inside one pod (an input
/// error at the workload key otherwise); nothing to check on a connected fabric.
void check_groups_in_pods(const Scenario& s, const Topology& fabric);
/// Every message between GPUs of one pod, on a fabric of unconnected pods: the backstop for
/// workloads that are not EP groups (traces, collectives) and for messages added beside them.
void check_messages_in_pods(const Scenario& s, const Topology& fabric, const Workload& w);
GatingParams moe_gating_params(const Scenario& s);
MoeTrafficParams moe_traffic_params(const Scenario& s);
/// Experts over the EP ranks: contiguous, with workload.redundant_experts extra copies.
/// `gating` is moe_gating_params(s), read once by the caller (trace gating reads a file).
ExpertPlacement moe_placement(const Scenario& s, const GatingParams& gating);
/// The request a workload kind builds from (one mapping for build and estimate).
WorkloadRequest workload_request(const Scenario& s, std::uint32_t endpoints);
MoeRun build_moe(const Scenario& s, std::uint32_t endpoints);
/// The step's shape from the scenario's keys alone (nothing drawn or placed), for its size
/// formula; `whole_step` false: one all-to-all, as `traffic` gates it.
MoeStepShape moe_step_shape(const Scenario& s, bool whole_step = true);

}  // namespace clustersim
