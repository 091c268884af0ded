#pragma once
// Running a scenario written inline, through the same loading and building as the command line
// (for tests that need the fabric and per-channel results, not just the JSON).
#include <string>

#include "support.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/scenario.hpp"

namespace clustersim::test {

struct Run {
    Scenario scenario;
    SimulatedFabric fabric;
    Workload workload;
    SimulationResult result;
};

inline Run run_yaml(const std::string& name, const std::string& yaml,
                    const std::vector<Override>& sets = {}, const SimulationOptions& options = {}) {
    const auto dir = temp_dir("run-" + name);
    write_text(dir / "s.yaml", yaml);
    Run r{load_scenario((dir / "s.yaml").string(), sets), {}, {}, {}};
    r.fabric = build_simulated_fabric(r.scenario, 0);
    r.workload = build_workload(r.scenario, r.fabric.endpoints(), load_trace(r.scenario));
    r.result =
        simulate(r.fabric.simulated().graph, r.fabric.routes, r.workload,
                 network_params(r.scenario, r.fabric.fabric), options, r.fabric.node_layout());
    return r;
}

}  // namespace clustersim::test
