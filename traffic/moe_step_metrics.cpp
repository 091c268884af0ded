#include "traffic/moe_step_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace clustersim {

MoeStepMetrics moe_step_metrics(const MoeRunSpec& spec, const MoeRun& run,
                                std::span<const MessageState> messages,
                                std::span<const ComputeState> computes,
                                std::uint32_t gpus_per_node) {
    const MoeModel& m = spec.model;
    const bool decode = spec.phase == MoePhase::Decode;
    const bool training = spec.phase == MoePhase::Training;
    const std::uint32_t micro_batches = spec.micro_batches;
    const std::uint32_t ep_size = spec.placement.ep_size;
    const std::uint32_t layers = run.simulated_layers;
    // Passes in simulated order: the layers forward, then (training) backward from the top.
    const std::uint32_t passes = training ? 2 * layers : layers;
    auto pass_of = [&](const MoeAllToAllRange& a) {
        return a.backward ? passes - 1 - a.layer : a.layer;
    };
    // One all-to-all's time: from its first byte sent to its last byte received.
    auto span_us = [&](std::uint32_t first, std::uint32_t last) {
        Time start = Time::never(), end = Time::zero();
        for (std::uint32_t i = first; i < last; ++i) {
            const MessageState& st = messages[i];
            if (st.first_sent != Time::never()) start = std::min(start, st.first_sent);
            if (st.finished != Time::never()) end = std::max(end, st.finished);
        }
        return start == Time::never() ? 0.0 : (end - start).us();
    };
    double dispatch = 0, combine = 0;
    std::vector<Time> pass_end(passes, Time::zero());
    for (const auto& a : run.all_to_alls) {
        dispatch += span_us(a.dispatch_first, a.dispatch_last);
        combine += span_us(a.combine_first, a.combine_last);
        for (std::uint32_t i = a.combine_first; i < a.combine_last; ++i)
            if (messages[i].finished != Time::never())
                pass_end[pass_of(a)] = std::max(pass_end[pass_of(a)], messages[i].finished);
    }
    // The last pass also ends with its last compute task (experts with nothing to send back).
    for (const auto& c : computes)
        if (c.finished != Time::never()) pass_end.back() = std::max(pass_end.back(), c.finished);
    const double n = static_cast<double>(run.all_to_alls.size());
    // Compute per GPU: the mean expert time per all-to-all (backward ones count double).
    double expert_us = 0;
    for (const Time& t : run.expert) expert_us += t.us();
    expert_us /= static_cast<double>(run.expert.size());
    double busiest_expert_us = 0;
    for (const Time& t : run.expert) busiest_expert_us = std::max(busiest_expert_us, t.us());
    // Steady state of a run of `count` passes from `first`: the time between the ends of its
    // first and last passes (the first includes the pipeline's fill; that of a backward run
    // starts after the forward's end); with one pass, that pass's whole time. Never below the
    // busiest GPU's compute per layer: overlapping micro-batches can end a layer early, but no
    // GPU computes faster than its tasks take.
    // Training's expert entries include the backward ones, twice the forward's.
    const double fill_floor_us =
        micro_batches * (run.attention.us() + busiest_expert_us / (training ? 2 : 1));
    auto steady_us = [&](std::uint32_t first, std::uint32_t count, Time before, double weight) {
        const double t = count >= 2
                             ? (pass_end[first + count - 1] - pass_end[first]).us() / (count - 1)
                             : (pass_end[first] - before).us();
        return std::max(t, weight * fill_floor_us);
    };
    const double forward_us = steady_us(0, layers, Time::zero(), 1.0);
    const double backward_us = training ? steady_us(layers, layers, pass_end[layers - 1], 2.0) : 0;
    const double per_layer_us = forward_us + backward_us;
    const double passes_per_dense = training ? 3.0 : 1.0;  // forward + twice that backward
    const double dense_us = static_cast<double>(m.dense_layers) * micro_batches * passes_per_dense *
                            (run.attention + run.dense_ffn).us();
    const double step_ms = (per_layer_us * m.moe_layers() + dense_us) / 1000.0;
    const double compute_ms = (dense_us + static_cast<double>(m.moe_layers()) * micro_batches *
                                              (passes_per_dense * run.attention.us() +
                                               expert_us * static_cast<double>(passes) / layers)) /
                              1000.0;
    // Compute lost to the SMs communication kernels hold (normal mode): what the compute tasks
    // took beyond their nominal durations, per GPU per step, in integer picoseconds so that no
    // slowdown is exactly zero.
    std::int64_t lost_ps = 0;
    for (const Time& t : run.expert) lost_ps -= t.ps();
    for (const auto& a : run.all_to_alls)  // attention: once per rank per all-to-all range
        lost_ps -= run.attention.ps() * (a.backward ? 2 : 1) * static_cast<std::int64_t>(ep_size);
    for (const auto& c : computes)
        if (c.finished != Time::never()) lost_ps += (c.finished - c.started).ps();
    const double slowdown_ms = static_cast<double>(std::max<std::int64_t>(0, lost_ps)) / 1e9 /
                               (static_cast<double>(ep_size) * spec.groups) / layers *
                               m.moe_layers();
    const double tokens_per_step = decode ? 1.0 + spec.mtp_acceptance : 1.0;
    const double per_gpu = step_ms > 0 ? spec.traffic.tokens_per_gpu * micro_batches *
                                             tokens_per_step / (step_ms / 1000.0)
                                       : 0.0;
    MoeStepMetrics d;
    d.step_ms = step_ms;
    d.tokens_per_step_per_gpu =
        static_cast<double>(spec.traffic.tokens_per_gpu) * micro_batches * tokens_per_step;
    d.tokens_per_s_per_gpu = per_gpu;
    d.tokens_per_s_per_node = per_gpu * gpus_per_node;
    if (decode) d.tokens_per_s_per_user = step_ms > 0 ? tokens_per_step / (step_ms / 1000.0) : 0.0;
    d.dispatch_us = n > 0 ? dispatch / n : 0.0;
    d.combine_us = n > 0 ? combine / n : 0.0;
    d.layer_us = per_layer_us;
    d.forward_layer_us = forward_us;
    d.backward_layer_us = backward_us;
    d.compute_ms = compute_ms;
    d.compute_slowdown_ms = slowdown_ms;
    d.exposed_comm_ms = std::max(0.0, step_ms - compute_ms - slowdown_ms);
    d.attention_us = run.attention.us();
    d.expert_us = expert_us;
    d.simulated_layers = layers;
    d.extrapolation = fmt::format(
        "{} of {} MoE layers simulated{} with {} micro-batches; {} = {} MoE layers x the "
        "steady-state time per layer{} ({}) + {} dense layers x {} micro-batches x (attention + "
        "dense FFN){}, compute only",
        layers, m.moe_layers(), training ? " forward and backward" : "", micro_batches,
        decode ? "TPOT" : "the step", m.moe_layers(), training ? " (forward + backward)" : "",
        layers >= 2 ? "between the ends of the first and last simulated layers"
                    : "the one simulated layer, pipeline fill included",
        m.dense_layers, micro_batches, training ? " x 3 (backward twice the forward)" : "");
    return d;
}

}  // namespace clustersim
