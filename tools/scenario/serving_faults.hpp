#pragma once
// A serving scenario's `faults:` as the serving run takes them (docs/serving.md, "Faults during
// serving"): times on the serving clock; a lost GPU, node or NIC stops the instances holding it
// (the library aborts), a hung GPU freezes its instance (stops it, without until_us), a lost GPU
// from the start served from redundant copies (one instance of its kind) and every other kind
// change the steps that start while they are present, which the packet-level step runs simulate
// with them: a GPU's only for its own kind's steps, the fabric's for both kinds'.
#include <cstdint>
#include <vector>

#include "models/serving/serving_fault.hpp"
#include "models/serving/serving_simulator.hpp"
#include "tools/scenario/results_json.hpp"

namespace clustersim {

struct Scenario;

struct ServingFaults {
    std::vector<ServingFault> faults;  // per `faults[i]`
};

/// Reads and checks them against the deployment (a GPU, node or NIC outside it, a flapping
/// link, more than 64); the fabric's targets are checked by the fault plan. Throws InputError.
ServingFaults serving_faults(const Scenario& s);
/// results.json's serving.faults: each fault, how the run took it, and what it did.
Json serving_faults_json(const Scenario& s, const ServingFaults& faults, const ServingOutcome& out);

}  // namespace clustersim
