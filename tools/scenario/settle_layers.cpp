#include "tools/scenario/settle_layers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "tools/scenario/steady_state.hpp"
#include "traffic/moe_step_metrics.hpp"

namespace clustersim {
namespace {

RunOutcome settle(const Scenario& s, PreparedRun& prepared, bool progress) {
    RunOutcome o = execute_run(s, prepared, progress);
    if (!prepared.moe || s.workload.simulated_layers != 0) return o;
    // Decode compares a run's first L - 1 layers with all L; prefill and training, whose
    // layers cost far more, each run with the one before it (one layer fewer).
    const bool in_run = s.workload.phase == MoePhase::Decode;
    const std::string section(phase_name(s.workload.phase));
    const std::uint32_t cap = std::min(kAutoLayersCap, s.model.preset.moe_layers());
    std::optional<double> previous_run;
    for (std::uint32_t runs = 1;; ++runs) {
        if (o.result.status != SimulationResult::Status::Completed) return o;
        const MoeRun& run = *prepared.moe;
        const std::uint32_t layers = run.simulated_layers;
        auto step_with = [&](std::uint32_t use) {
            return moe_step_metrics(run.spec, run, prepared.workload, o.result.messages,
                                    o.result.computes, s.cluster.gpus_per_node, use)
                .step_ms;
        };
        const double step = step_with(layers);
        std::optional<double> before = previous_run;
        if (in_run && layers >= 3) before = step_with(layers - 1);
        const double change = before && *before > 0 ? std::abs(step - *before) / *before : -1;
        const bool settled = change >= 0 && change < kSettledChange;
        // Where it stopped: the step's move with the last layer added, in percent (null: one
        // layer only), and why when it stopped short of settling.
        auto stop = [&](bool done, const std::string& why) {
            Json a;
            a["start"] = simulated_layers_to_run(s);
            a["cap"] = cap;
            a["runs"] = runs;
            a["settled"] = done;
            a["change_percent"] = change >= 0 ? Json(100 * change) : Json(nullptr);
            if (!why.empty()) a["stopped"] = why;
            o.results[section]["simulated_layers_auto"] = a;
            return std::move(o);
        };
        if (settled || layers >= cap) return stop(settled, "");
        previous_run = step;
        Scenario more = s;
        more.workload.simulated_layers = in_run ? std::min(cap, 2 * layers) : layers + 1;
        // A rerun past one of the scenario's limits (events, memory) is not made: this run
        // stands, said unsettled (prepare_run throws before `prepared` is replaced).
        try {
            prepared = prepare_run(more);
        } catch (const InputError& e) {
            return stop(false, fmt::format("{} layers would exceed a limit: {}",
                                           more.workload.simulated_layers, e.what()));
        }
        o = execute_run(more, prepared, progress);
    }
}

}  // namespace

RunOutcome execute_settled(const Scenario& s, PreparedRun& prepared, bool progress) {
    RunOutcome o = settle(s, prepared, progress);
    add_steady_state(s, prepared, o, progress);
    return o;
}

}  // namespace clustersim
