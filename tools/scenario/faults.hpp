#pragma once
// `faults:` from the scenario to the running network: each entry read and checked
// (read_faults), its target resolved on the built fabric and turned into timed actions, with
// the forwarding tables the fabric's reaction swaps in (build_fault_plan: docs/faults.md says
// which policy reacts when), and what each fault did written for results.json.
#include <span>
#include <string>
#include <vector>

#include "models/faults/fault_plan.hpp"
#include "models/network/simulation.hpp"
#include "tools/scenario/fault_spec.hpp"
#include "tools/scenario/results_json.hpp"
#include "traffic/moe_workload.hpp"

namespace clustersim {

struct Scenario;
struct SimulatedFabric;
struct Topology;

/// The `faults` entries, checked one by one (kind, one target that suits it, times, the kind's
/// own keys and no other's). Throws InputError.
std::vector<FaultSpec> read_faults(const Scenario& s);
/// The plan the network runs, and per fault what its target resolved to (for results.json).
struct ResolvedFaults {
    FaultPlan plan;
    std::vector<std::string> hit;
    std::vector<std::string> fails;  // per fault: why it fails the instance (empty: it does not)
};
/// The GPUs gpu_down and node_down lose from the start of the window whose experts move to
/// their redundant copies (workload.on_rank_loss: redundant), in order.
std::vector<std::uint32_t> ranks_lost_from_start(const Scenario& s);
/// Moves the experts of `lost` GPUs to their redundant copies; those with none stay (and the
/// fault plan fails the instance).
void serve_from_copies(ExpertPlacement& placement, std::span<const std::uint32_t> lost);
/// Resolves every target (a located InputError when it names nothing in this fabric) and
/// lays out the actions and reaction tables. Empty (no actions) without faults.
/// `moe`: the MoE step (its placement says which lost experts have copies), or null.
ResolvedFaults build_fault_plan(const Scenario& s, const SimulatedFabric& f, const MoeRun* moe);
/// A fault starting after the simulated window is an input error (located at its at_us).
void check_faults_in_window(const Scenario& s, const SimulationResult& r);
/// `topo --json`'s `elements`: every switch, NIC count and cable by the names fault targets
/// take (`switch-3`, `nic-0`; `index` among parallel cables), so a listing pastes as a target.
Json elements_json(const Topology& fabric);
/// The `faults` section of results.json: each fault, what it hit and what it cost.
Json faults_json(const Scenario& s, const ResolvedFaults& faults, const SimulationResult& r);

}  // namespace clustersim
