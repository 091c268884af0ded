// clustersim traffic SCENARIO: a moe step's expert-parallel bytes and its bound, no simulation.
#include <iostream>
#include <memory>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/moe_results.hpp"

namespace clustersim::cli {

Subcommand add_traffic(CLI::App& app) {
    auto o = std::make_shared<ScenarioOptions>();
    auto* sub = app.add_subcommand(
        "traffic", "expert-parallel traffic of a moe scenario and its bound, without simulating");
    add_scenario_options(sub, *o, true);
    return {sub, [o] {
                const auto j = moe_traffic_json(load(*o));
                if (o->json)
                    std::cout << json_text(j, 2) << "\n";
                else
                    std::cout << moe_traffic_table(j);
                return kExitOk;
            }};
}

}  // namespace clustersim::cli
