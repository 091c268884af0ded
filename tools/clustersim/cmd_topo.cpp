// clustersim topo SCENARIO: the fabric's inventory and cost, and what simulating it would take.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/faults.hpp"
#include "tools/scenario/results_json.hpp"

namespace clustersim::cli {
namespace {

int run(const ScenarioOptions& o) {
    const Scenario s = load(o);
    const Topology t = build_topology(s, s.workload.kind == "trace" ? load_trace(s).nodes : 0);
    const CostBreakdown cost = topology_cost(s, t);
    Json j = inventory_json(s, t, cost);
    const std::optional<RunEstimate> est = estimate_fabric(s, t);
    if (est) j["memory_estimate_bytes"] = est->memory_bytes();
    if (o.json) {
        if (t.inventory.constructible) j["elements"] = elements_json(t);
        std::cout << json_text(j, 2) << "\n";
        return kExitOk;
    }
    fmt::print("{} fabric: {} endpoints, {} switches", t.kind, t.inventory.endpoints,
               t.inventory.switches);
    std::string tiers;
    for (const auto& tier : t.inventory.tiers)
        tiers += fmt::format("{}{} {}", tiers.empty() ? "" : ", ", tier.switches, tier.name);
    fmt::print(" ({})\n", tiers);
    fmt::print(
        "  switch-to-switch links  {}\n  endpoint links          {}\n  max hops (switches)     "
        "{}\n",
        t.inventory.switch_links, t.inventory.endpoint_links, t.inventory.max_hops);
    if (t.pod_nics > 0)
        fmt::print("  pods                    {} of {} endpoints, nothing between them\n",
                   (t.inventory.endpoints + t.pod_nics - 1) / t.pod_nics, t.pod_nics);
    fmt::print("  bisection               {:.0f} Gb/s ({})\n", t.inventory.bisection_gbps,
               t.inventory.bisection_exact ? "exact" : "bound");
    for (const auto& c : t.inventory.cables) fmt::print("  cables {:<26}{}\n", c.kind, c.count);
    if (t.inventory.endpoints_per_rack > 0)
        fmt::print("  racks                   {} endpoints each, {} top-of-rack switches\n",
                   t.inventory.endpoints_per_rack, t.inventory.top_of_rack_switches);
    else
        fmt::print("  racks                   not placed (every cable optical)\n");
    fmt::print("  cost                    ${:.2f} M  (${:.0f} per endpoint)\n",
               cost.total_usd / 1e6, cost.per_endpoint_usd);
    if (!t.inventory.constructible) fmt::print("  not constructible: {}\n", t.inventory.note);
    if (est)
        fmt::print("  to simulate             about {} of memory (fabric {}, routes {}{})\n",
                   format_bytes(est->memory_bytes()), format_bytes(est->fabric_bytes),
                   format_bytes(est->routes_bytes),
                   est->messages > 0
                       ? ", workload " + format_bytes(est->workload_bytes + est->packet_bytes)
                       : std::string());
    return kExitOk;
}

}  // namespace

Subcommand add_topo(CLI::App& app) {
    auto o = std::make_shared<ScenarioOptions>();
    auto* sub =
        app.add_subcommand("topo", "inventory of the scenario's fabric, without simulating");
    add_scenario_options(sub, *o, true);
    return {sub, [o] { return run(*o); }};
}

}  // namespace clustersim::cli
