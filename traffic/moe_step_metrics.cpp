#include "traffic/moe_step_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace clustersim {

MoeStepMetrics moe_step_metrics(const MoeRunSpec& spec, const MoeRun& run, const Workload& workload,
                                std::span<const MessageState> messages,
                                std::span<const ComputeState> computes, std::uint32_t gpus_per_node,
                                std::uint32_t use_layers, const MoeStepMetrics* pace) {
    const MoeModel& m = spec.model;
    const bool decode = spec.phase == MoePhase::Decode;
    const bool training = spec.phase == MoePhase::Training;
    const std::uint32_t micro_batches = spec.micro_batches;
    const std::uint32_t ep_size = spec.placement.ep_size;
    const std::uint32_t layers = run.simulated_layers;
    const std::uint32_t used = training || use_layers == 0 ? layers : std::min(use_layers, layers);
    const std::uint32_t drafts = decode ? spec.mtp_draft_tokens : 0;
    // Passes in simulated order: the layers forward, then (training) backward from the top, or
    // (decode with MTP) the MTP modules.
    const std::uint32_t main_passes = training ? 2 * layers : layers;
    const std::uint32_t passes = main_passes + drafts;
    const std::span<const Message> specs = workload.messages;
    const std::uint32_t groups = spec.groups;
    auto pass_of = [&](const MoeAllToAllRange& a) {
        return a.backward ? main_passes - 1 - a.layer : a.layer;
    };
    // One all-to-all's time: from its first byte sent to its last byte received (a message
    // that carries nothing -- a lost rank's -- has neither).
    auto span_us = [&](std::uint32_t first, std::uint32_t last) {
        Time start = Time::never(), end = Time::zero();
        for (std::uint32_t i = first; i < last; ++i) {
            const MessageState& st = messages[i];
            if (specs[i].bytes == 0 || st.first_sent == Time::never()) continue;
            if (st.first_sent != Time::never()) start = std::min(start, st.first_sent);
            if (st.finished != Time::never()) end = std::max(end, st.finished);
        }
        return start == Time::never() ? 0.0 : (end - start).us();
    };
    double dispatch = 0, combine = 0, main_all_to_alls = 0;
    std::vector<Time> pass_end(passes, Time::zero());
    // And each EP group's: [group x passes + pass].
    std::vector<Time> group_end(std::size_t{groups} * passes, Time::zero());
    std::vector<PassTiming> timeline(passes);
    std::vector<std::uint32_t> pass_all_to_alls(passes, 0);
    for (const auto& a : run.all_to_alls) {
        const std::uint32_t at = pass_of(a);  // MTP modules' layers follow the main passes
        const double d_us = span_us(a.dispatch_first, a.dispatch_last);
        const double c_us = span_us(a.combine_first, a.combine_last);
        if (at < passes) {
            timeline[at].dispatch_us += d_us;
            timeline[at].combine_us += c_us;
            ++pass_all_to_alls[at];
        }
        if (!a.mtp && pass_of(a) < (training ? main_passes : used)) {
            dispatch += d_us;
            combine += c_us;
            ++main_all_to_alls;
        }
        Time& in_group = group_end[std::size_t{a.group} * passes + pass_of(a)];
        for (std::uint32_t i = a.combine_first; i < a.combine_last; ++i)
            if (messages[i].finished != Time::never()) {
                pass_end[pass_of(a)] = std::max(pass_end[pass_of(a)], messages[i].finished);
                in_group = std::max(in_group, messages[i].finished);
            }
    }
    // The last pass also ends with its last compute task (experts with nothing to send back).
    for (std::size_t i = 0; i < computes.size(); ++i) {
        const Time f = computes[i].finished;
        if (f == Time::never()) continue;
        pass_end.back() = std::max(pass_end.back(), f);
        const std::uint32_t g = gpu_group(spec, workload.computes[i].gpu);
        if (g < groups) {
            Time& last = group_end[std::size_t{g} * passes + passes - 1];
            last = std::max(last, f);
        }
    }
    // Expert compute per GPU: the mean per all-to-all of the main layers (backward ones count
    // double) and of the MTP modules; run.expert is in pass order.
    const std::size_t per_pass = std::size_t{micro_batches} * spec.groups * ep_size;
    const std::size_t main_entries = std::size_t{main_passes} * per_pass;
    auto mean_us = [](auto first, auto last) {
        double sum = 0;
        for (auto it = first; it != last; ++it) sum += it->us();
        return first == last ? 0.0 : sum / static_cast<double>(last - first);
    };
    const auto main_end = run.expert.begin() + static_cast<std::ptrdiff_t>(main_entries);
    const double expert_us = mean_us(run.expert.begin(), main_end);
    const double mtp_expert_us = mean_us(main_end, run.expert.end());
    // Attention per rank: the mean, the slowest micro-batch, and the slowest rank's sum over a
    // step's micro-batches (every layer's all-to-all waits for it), of groups [g0, g1).
    const double attention_us = mean_us(run.attention.begin(), run.attention.end());
    double attention_max_us = 0;
    for (const Time& t : run.attention) attention_max_us = std::max(attention_max_us, t.us());
    auto slowest_rank_us = [&](std::uint32_t g0, std::uint32_t g1) {
        double worst = 0;
        for (std::uint32_t grp = g0; grp < g1; ++grp)
            for (std::uint32_t r = 0; r < ep_size; ++r) {
                double sum = 0;
                for (std::uint32_t mb = 0; mb < micro_batches; ++mb)
                    sum += run.attention[run.rank_index(grp, mb, r)].us();
                worst = std::max(worst, sum);
            }
        return worst;
    };
    // The busiest GPU of groups [g0, g1): its compute per layer (attention and experts over
    // every micro-batch), the mean over passes [first, first + count).
    auto floor_us = [&](std::uint32_t first, std::uint32_t count, std::uint32_t g0,
                        std::uint32_t g1) {
        double worst = 0;
        for (std::uint32_t grp = g0; grp < g1; ++grp)
            for (std::uint32_t r = 0; r < ep_size; ++r) {
                double sum = 0;
                for (std::uint32_t p = first; p < first + count; ++p)
                    for (std::uint32_t mb = 0; mb < micro_batches; ++mb) {
                        const double cost = training && p >= layers ? 2.0 : 1.0;
                        sum +=
                            cost * run.attention[run.rank_index(grp, mb, r)].us() +
                            run.expert[((std::size_t{p} * micro_batches + mb) * spec.groups + grp) *
                                           ep_size +
                                       r]
                                .us();
                    }
                worst = std::max(worst, sum / count);
            }
        return worst;
    };
    // The step of groups [g0, g1) from their pass ends.
    struct Step {
        double step_ms = 0, forward_us = 0, backward_us = 0, mtp_layer_us = 0;
    };
    const double mb = micro_batches;
    // Decode, once per step: the embedding before the first layer, and the MTP modules as
    // simulated after the last (each from the end of what precedes it, its head included),
    // then the last head and sampling, as compute that nothing overlaps.
    const double tail_us = !decode       ? 0.0
                           : drafts == 0 ? mb * (run.lm_head + run.sampling).us()
                                         : mb * (run.mtp_head + run.mtp_sampling).us();
    const double edges_us = decode ? mb * run.embedding.us() + tail_us : 0.0;
    const double passes_per_dense = training ? 3.0 : 1.0;  // forward + twice that backward
    const double rest = static_cast<double>(m.moe_layers() - used);
    auto step_of = [&](std::span<const Time> ends, std::uint32_t g0, std::uint32_t g1,
                       const double* pace_forward_us, const double* pace_backward_us) {
        // Steady state of a run of `count` passes from `first` (after `before`): the mean
        // interval between the ends of its later half -- its first layers still fill the
        // pipeline and, in five stages, settle the micro-batches' offset -- or with one pass
        // that pass's whole time. Never below the busiest GPU's compute per layer (its
        // attention and experts over every micro-batch, the mean over those passes):
        // overlapping micro-batches can end a layer early, but no GPU computes faster than its
        // tasks take.
        auto steady_us = [&](std::uint32_t first, std::uint32_t count, Time before) {
            const std::uint32_t half = (count - 1) / 2;
            const double t = count >= 2 ? (ends[first + count - 1] - ends[first + half]).us() /
                                              (count - 1 - half)
                                        : (ends[first] - before).us();
            return std::max(t, floor_us(first, count, g0, g1));
        };
        // A step runs its layers from a standing start (the next step's first layer waits for
        // this one's sampling): the simulated passes as they ran, fill included, then the rest
        // of the layers at the steady state (the degraded one's, after a transient).
        Step st;
        st.forward_us = pace_forward_us ? *pace_forward_us : steady_us(0, used, Time::zero());
        st.backward_us = !training          ? 0
                         : pace_backward_us ? *pace_backward_us
                                            : steady_us(layers, layers, ends[layers - 1]);
        const double moe_us =
            ends[used - 1].us() + rest * st.forward_us +
            (training ? (ends[main_passes - 1] - ends[layers - 1]).us() + rest * st.backward_us
                      : 0.0);
        const double dense_us = static_cast<double>(m.dense_layers) * passes_per_dense *
                                (slowest_rank_us(g0, g1) + micro_batches * run.dense_ffn.us());
        st.mtp_layer_us = drafts > 0 ? (ends[passes - 1] - ends[main_passes - 1]).us() : 0.0;
        st.step_ms = (moe_us + dense_us + st.mtp_layer_us + edges_us) / 1000.0;
        return st;
    };
    auto paced = [](const std::vector<double>& by_group, const double& all, std::uint32_t g) {
        return g < by_group.size() ? &by_group[g] : &all;
    };
    const Step whole = step_of(pass_end, 0, groups, pace ? &pace->forward_layer_us : nullptr,
                               pace && training ? &pace->backward_layer_us : nullptr);
    const double step_ms = whole.step_ms;
    const double forward_us = whole.forward_us, backward_us = whole.backward_us;
    const double per_layer_us = forward_us + backward_us;
    const double mtp_layer_us = whole.mtp_layer_us;
    // Each group as if alone in its own timing (its traffic still met the others' in the
    // fabric): a serving instance's step.
    std::vector<double> group_step_ms(groups), group_forward_us(groups), group_backward_us(groups);
    for (std::uint32_t g = 0; g < groups; ++g) {
        const std::span<const Time> ends(group_end.data() + std::size_t{g} * passes, passes);
        const Step one = step_of(
            ends, g, g + 1,
            pace ? paced(pace->group_forward_layer_us, pace->forward_layer_us, g) : nullptr,
            pace && training ? paced(pace->group_backward_layer_us, pace->backward_layer_us, g)
                             : nullptr);
        group_step_ms[g] = one.step_ms;
        group_forward_us[g] = one.forward_us;
        group_backward_us[g] = one.backward_us;
    }
    // Compute per GPU per step: every layer's, the heads', the MTP modules' (MoE included).
    const double mtp_us =
        drafts > 0 ? drafts * (mean_us(run.mtp_before_moe.begin(), run.mtp_before_moe.end()) +
                               mtp_expert_us + (run.mtp_head + run.mtp_sampling).us())
                   : 0.0;
    const double heads_us =
        decode ? (run.embedding + run.lm_head + run.sampling).us() + mtp_us : 0.0;
    const double compute_ms = (static_cast<double>(m.dense_layers) * passes_per_dense * mb *
                                   (attention_us + run.dense_ffn.us()) +
                               static_cast<double>(m.moe_layers()) * mb *
                                   (passes_per_dense * attention_us +
                                    expert_us * static_cast<double>(main_passes) / layers) +
                               mb * heads_us) /
                              1000.0;
    // Compute lost to the SMs communication kernels hold (normal mode): what the compute tasks
    // took beyond their nominal durations, per GPU per step, in integer picoseconds so that no
    // slowdown is exactly zero.
    std::int64_t lost_ps = -run.nominal_compute_ps;
    for (const auto& c : computes)
        if (c.finished != Time::never()) lost_ps += (c.finished - c.started).ps();
    const double slowdown_ms = static_cast<double>(std::max<std::int64_t>(0, lost_ps)) / 1e9 /
                               (static_cast<double>(ep_size) * spec.groups) / layers *
                               m.moe_layers();
    // Output tokens per request per step: one, plus the accepted drafts on average.
    const double tokens_per_step = decode ? 1.0 + spec.mtp_acceptance * drafts : 1.0;
    // Per GPU paid for: lost ranks hold no requests.
    const double live = 1.0 - static_cast<double>(spec.lost_ranks.size()) /
                                  (static_cast<double>(ep_size) * spec.groups);
    const double sequences =
        (decode ? spec.requests_per_gpu() : spec.traffic.tokens_per_gpu) * live;
    const double per_gpu =
        step_ms > 0 ? sequences * micro_batches * tokens_per_step / (step_ms / 1000.0) : 0.0;
    MoeStepMetrics d;
    d.step_ms = step_ms;
    d.tpot_ms = decode ? step_ms / tokens_per_step : 0.0;
    d.tokens_per_step_per_gpu = sequences * micro_batches * tokens_per_step;
    d.tokens_per_s_per_gpu = per_gpu;
    d.tokens_per_s_per_node = per_gpu * gpus_per_node;
    if (decode) d.tokens_per_s_per_user = step_ms > 0 ? tokens_per_step / (step_ms / 1000.0) : 0.0;
    d.dispatch_us = main_all_to_alls > 0 ? dispatch / main_all_to_alls : 0.0;
    d.combine_us = main_all_to_alls > 0 ? combine / main_all_to_alls : 0.0;
    d.layer_us = per_layer_us;
    d.forward_layer_us = forward_us;
    d.backward_layer_us = backward_us;
    d.compute_ms = compute_ms;
    d.compute_slowdown_ms = slowdown_ms;
    d.exposed_comm_ms = std::max(0.0, step_ms - compute_ms - slowdown_ms);
    d.attention_us = attention_us;
    d.attention_max_us = attention_max_us;
    d.router_us = run.router.us();
    d.expert_us = expert_us;
    d.embedding_us = run.embedding.us();
    d.lm_head_us = run.lm_head.us();
    d.sampling_us = run.sampling.us();
    d.mtp_us = mtp_us;
    d.mtp_layer_us = mtp_layer_us;
    d.simulated_layers = used;
    d.group_step_ms = std::move(group_step_ms);
    d.group_forward_layer_us = std::move(group_forward_us);
    d.group_backward_layer_us = std::move(group_backward_us);
    for (std::uint32_t i = 0; i < passes; ++i) {
        timeline[i].end_us = pass_end[i].us();
        timeline[i].time_us = (pass_end[i] - (i == 0 ? Time::zero() : pass_end[i - 1])).us();
        if (pass_all_to_alls[i] > 0) {
            timeline[i].dispatch_us /= pass_all_to_alls[i];
            timeline[i].combine_us /= pass_all_to_alls[i];
        }
    }
    d.passes = std::move(timeline);
    d.extrapolation = fmt::format(
        "{} of {} MoE layers simulated{} with {} micro-batches{}; the step = the simulated layers "
        "as they ran (pipeline fill included) + the other {} at the steady-state time per "
        "layer{} ({}) + {} dense layers x {} micro-batches x "
        "(slowest rank's attention + dense FFN){}{}",
        used, m.moe_layers(), training ? " forward and backward" : "", micro_batches,
        drafts > 0 ? fmt::format(", then {} MTP module{}", drafts, drafts > 1 ? "s" : "") : "",
        m.moe_layers() - used, training ? " (forward + backward)" : "",
        pace ? "the degraded steady state's: the same scenario with its faults present from the "
               "start, those over by the window's end left out"
             : "the mean interval between the ends of the later half of the simulated layers, "
               "never below the busiest GPU's compute",
        m.dense_layers, micro_batches,
        training ? " x 3 (backward twice the forward)" : ", compute only",
        !decode ? ""
        : drafts > 0
            ? " + the MTP modules as simulated (from the last layer's end; the main LM head and "
              "sampling inside) + embedding and the last MTP head and sampling per micro-batch, "
              "not overlapped"
            : " + embedding, LM head and sampling per micro-batch, not overlapped");
    return d;
}

}  // namespace clustersim
