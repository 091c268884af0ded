#include "tools/scenario/steady_state.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "tools/scenario/baseline.hpp"
#include "tools/scenario/moe_results.hpp"
#include "tools/scenario/settle_layers.hpp"
#include "traffic/moe_step_metrics.hpp"

namespace clustersim {

bool has_transient(const Scenario& s) {
    return std::ranges::any_of(s.faults, [](const FaultSpec& f) { return f.at_us > 0; });
}

Scenario degraded_steady_state(const Scenario& s, Time window_end, std::uint32_t simulated_layers) {
    Scenario d = s;
    d.network.reliable = faulted_run_reliable(s);
    d.workload.simulated_layers = simulated_layers;
    d.faults.clear();
    for (FaultSpec f : s.faults) {
        if (f.ends() && f.until_us <= window_end.us()) continue;  // over: the fabric is back
        f.at_us = 0;
        f.until_us = -1;
        d.faults.push_back(std::move(f));
    }
    return d;
}

void add_steady_state(const Scenario& s, const PreparedRun& prepared, RunOutcome& o,
                      bool progress) {
    if (!prepared.moe || !has_transient(s) ||
        o.result.status != SimulationResult::Status::Completed)
        return;
    const MoeRun& run = *prepared.moe;
    const std::string section(phase_name(s.workload.phase));
    const Scenario steady = degraded_steady_state(s, o.result.end_time, run.simulated_layers);
    // Its own input errors cannot arise (the faulted scenario passed them); a policy can end
    // it (a plane lost from the start with on_plane_loss: fail), and then it has no pace.
    PreparedRun p = prepare_run(steady);
    const RunOutcome so = execute_run(steady, p, progress);
    Json summary = Json::object();
    summary["faults"] = steady.faults.size();
    summary["status"] = so.results.value("status", "");
    if (so.result.status != SimulationResult::Status::Completed || !so.results.contains(section)) {
        o.results[section]["degraded_steady_state"] = std::move(summary);
        return;
    }
    const MoeRun& srun = *p.moe;
    const MoeStepMetrics pace = moe_step_metrics(srun.spec, srun, p.workload, so.result.messages,
                                                 so.result.computes, s.cluster.gpus_per_node);
    constexpr std::array<std::string_view, 8> kKept = {
        "tpot_ms",    "step_ms",  "tokens_per_s_per_gpu", "tokens_per_s_per_user", "dispatch_us",
        "combine_us", "layer_us", "extrapolation"};
    for (std::string_view k : kKept)
        if (so.results[section].contains(std::string(k)))
            summary[std::string(k)] = so.results[section][std::string(k)];
    // The faulted run's section again, its layers after the simulated ones at that pace; what
    // auto layers said of the faulted run stays.
    Json rewritten = moe_step_json(s, run, prepared.workload, o.result, &pace);
    if (o.results[section].contains("simulated_layers_auto"))
        rewritten["simulated_layers_auto"] = o.results[section]["simulated_layers_auto"];
    rewritten["degraded_steady_state"] = std::move(summary);
    o.results[section] = std::move(rewritten);
}

}  // namespace clustersim
