#pragma once
// `faults:` from the scenario to the running network: each entry read and checked
// (read_faults), its target resolved on the built fabric and turned into timed actions, with
// the forwarding tables the fabric's reaction swaps in (build_fault_plan: docs/faults.md says
// which policy reacts when), and what each fault did written for results.json.
#include <string>
#include <vector>

#include "models/faults/fault_plan.hpp"
#include "models/network/simulation.hpp"
#include "tools/scenario/fault_spec.hpp"
#include "tools/scenario/results_json.hpp"

namespace clustersim {

struct Scenario;
struct SimulatedFabric;

/// The `faults` entries, checked one by one (kind, one target that suits it, times, the kind's
/// own keys and no other's). Throws InputError.
std::vector<FaultSpec> read_faults(const Scenario& s);
/// The plan the network runs, and per fault what its target resolved to (for results.json).
struct ResolvedFaults {
    FaultPlan plan;
    std::vector<std::string> hit;
};
/// Resolves every target (a located InputError when it names nothing in this fabric) and
/// lays out the actions and reaction tables. Empty (no actions) without faults.
ResolvedFaults build_fault_plan(const Scenario& s, const SimulatedFabric& f);
/// A fault starting after the simulated window is an input error (located at its at_us).
void check_faults_in_window(const Scenario& s, const SimulationResult& r);
/// The `faults` section of results.json: each fault, what it hit and what it cost.
Json faults_json(const Scenario& s, const ResolvedFaults& faults, const SimulationResult& r);

}  // namespace clustersim
