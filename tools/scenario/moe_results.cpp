#include "tools/scenario/moe_results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "tools/scenario/build.hpp"
#include "traffic/moe_traffic.hpp"

namespace clustersim {
namespace {

using Json = nlohmann::ordered_json;

// An exact integer when the mean is one, else a fraction.
Json mean_of(std::uint64_t total, std::uint64_t n) {
    if (n == 0) return 0;
    if (total % n == 0) return total / n;
    return static_cast<double>(total) / static_cast<double>(n);
}

}  // namespace

Json moe_traffic_json(const Scenario& s) {
    if (s.workload.kind != "moe")
        throw s.error_at("workload.kind",
                         "traffic describes moe workloads (expected workload.kind: moe)");
    const MoeModel& model = s.model.preset;
    const auto& w = s.workload;
    const std::uint32_t ep = w.ep_size;
    const std::uint32_t per_node = s.cluster.gpus_per_node;
    const ExpertPlacement placement = moe_placement(s);
    const GatingParams gp = moe_gating_params(s);
    const MoeTrafficParams tp = moe_traffic_params(s);
    MoeAllToAll a;
    try {
        Gating gating(model, placement, gp);
        RandomStream rng(s.seed, "moe-gating", 0);  // layer 0, micro-batch 0
        a = moe_all_to_all(gating, placement, model, tp, rng);
    } catch (const std::invalid_argument& e) {
        throw s.error_at("workload.gating", e.what());
    }

    const std::uint64_t hidden = model.hidden;
    std::uint64_t copies = 0, forwarded = 0, rdma = 0, max_copies = 0;
    for (std::uint32_t g = 0; g < ep; ++g) {
        copies += a.copies[g];
        forwarded += a.forwarded[g];
        rdma += a.rdma_sent[g];
        max_copies = std::max(max_copies, a.copies[g]);
    }
    const std::uint64_t dispatch_total = copies * dispatch_payload_bytes(model.hidden);
    const std::uint64_t combine_total = copies * combine_payload_bytes(model.hidden);

    Json j;
    j["model"] = model.name;
    j["phase"] = w.phase;
    j["mode"] = w.normal_mode ? "normal" : "low-latency";
    j["gating"] = w.gating;
    j["expert_placement"] = w.expert_placement;
    j["ep_size"] = ep;
    j["nodes"] = placement.nodes();
    j["gpus_per_node"] = per_node;
    j["tokens_per_gpu"] = w.tokens_per_gpu;
    j["micro_batches"] = w.micro_batches;
    j["moe_layers"] = model.moe_layers();
    Json per_layer;
    per_layer["dispatch_bytes_per_gpu"] = mean_of(dispatch_total, ep);
    per_layer["combine_bytes_per_gpu"] = mean_of(combine_total, ep);
    per_layer["dispatch_bytes_max_gpu"] = max_copies * dispatch_payload_bytes(model.hidden);
    per_layer["dispatch_overhead_bytes_per_gpu"] =
        mean_of(copies * dispatch_scale_bytes(model.hidden), ep);
    per_layer["nvlink_forward_bytes_per_gpu"] = mean_of(forwarded * hidden, ep);
    per_layer["rdma_dispatch_bytes_per_gpu"] = mean_of(rdma * hidden, ep);
    j["per_layer"] = per_layer;
    // Dispatch all-to-alls per step: MoE layers x micro-batches (training: forward and backward).
    const std::uint64_t comms =
        std::uint64_t{model.moe_layers()} * w.micro_batches * (w.phase == "training" ? 2 : 1);
    j["comms_per_iteration"] = comms;
    j["iteration_bytes_per_gpu"] = mean_of((dispatch_total + combine_total) * comms, ep);
    j["nodes_per_token"] = {
        {"mean",
         a.tokens ? static_cast<double>(a.node_visits) / static_cast<double>(a.tokens) : 0.0},
        {"max", a.max_nodes_per_token}};

    // The first-hop traffic matrix (dispatch bytes per GPU pair) and the load per NIC and node.
    std::uint64_t max_pair = 0, pair_total = 0;
    for (const auto& t : a.transfers) {
        max_pair = std::max(max_pair, t.tokens * hidden);
        pair_total += t.tokens * hidden;
    }
    std::uint32_t hot_gpu = 0;
    std::uint64_t hot_bytes = 0, nic_total = 0;
    std::vector<std::uint64_t> node_load(placement.nodes(), 0);
    for (std::uint32_t g = 0; g < ep; ++g) {
        const std::uint64_t b = (a.rdma_sent[g] + a.rdma_received[g]) * hidden;
        nic_total += b;
        node_load[placement.node_of_gpu(g)] += b;
        if (b > hot_bytes) {
            hot_bytes = b;
            hot_gpu = g;
        }
    }
    const auto hot_node = static_cast<std::uint32_t>(
        std::max_element(node_load.begin(), node_load.end()) - node_load.begin());
    auto share = [&](std::uint64_t b) {
        return nic_total ? static_cast<double>(b) / static_cast<double>(nic_total) : 0.0;
    };
    j["matrix"] = {
        {"pairs", a.transfers.size()},
        {"max_pair_bytes", max_pair},
        {"mean_pair_bytes", mean_of(pair_total, a.transfers.size())},
        {"hottest_nic", {{"gpu", hot_gpu}, {"bytes", hot_bytes}, {"share", share(hot_bytes)}}},
        {"hottest_node",
         {{"node", hot_node},
          {"bytes", node_load[hot_node]},
          {"share", share(node_load[hot_node])}}}};

    // ISCA '25 section 2.3.2: (dispatch + combine payload per GPU) / the GPU's nominal EP
    // bandwidth -- its NIC's line rate when the group spans nodes, its NVLink rate per
    // direction when the group fits one NVLink domain.
    const bool one_domain = ep <= per_node && !s.cluster.bare;
    const double bw_GBps =
        one_domain ? s.cluster.preset.nvlink_gbytes_per_s : s.cluster.nic_rate_gbps / 8.0;
    const double per_gpu = static_cast<double>(dispatch_total + combine_total) / ep;
    const double alltoall_us = per_gpu / (bw_GBps * 1e9) * 1e6;
    const double layer_us = alltoall_us * w.micro_batches;
    const double step_ms = layer_us * model.layers / 1000.0;
    j["analytic"] = {
        {"ep_bandwidth_GBps", bw_GBps}, {"ep_path", one_domain ? "nvlink" : "nic"},
        {"alltoall_us", alltoall_us},   {"layer_us", layer_us},
        {"step_ms", step_ms},           {"tokens_per_s", step_ms > 0 ? 1000.0 / step_ms : 0.0}};
    j["note"] =
        "per-layer figures come from one seeded draw (layer 0, micro-batch 0); the iteration "
        "multiplies them by comms_per_iteration. The analytic bound counts model.layers, as the "
        "ISCA '25 paper does, and leaves out network latency.";
    return j;
}

std::string moe_traffic_table(const Json& j) {
    const auto& l = j["per_layer"];
    const auto& an = j["analytic"];
    auto num = [](const Json& v) { return v.get<double>(); };
    std::string out = fmt::format(
        "{} {} ({} mode, {} gating): EP {} over {} nodes, {} tokens per GPU, {} micro-batches\n",
        j["model"].get<std::string>(), j["phase"].get<std::string>(), j["mode"].get<std::string>(),
        j["gating"].get<std::string>(), j["ep_size"].get<std::uint32_t>(),
        j["nodes"].get<std::uint32_t>(), j["tokens_per_gpu"].get<std::uint32_t>(),
        j["micro_batches"].get<std::uint32_t>());
    out +=
        fmt::format("  {:<34}{:>16.0f} B  ({:.2f} MiB)\n", "dispatch per GPU per layer",
                    num(l["dispatch_bytes_per_gpu"]), num(l["dispatch_bytes_per_gpu"]) / 1048576);
    out += fmt::format("  {:<34}{:>16.0f} B  ({:.2f} MiB)\n", "combine per GPU per layer",
                       num(l["combine_bytes_per_gpu"]), num(l["combine_bytes_per_gpu"]) / 1048576);
    out += fmt::format("  {:<34}{:>16.0f} B\n", "NVLink forwarding per GPU",
                       num(l["nvlink_forward_bytes_per_gpu"]));
    out += fmt::format("  {:<34}{:>16}\n", "all-to-alls per step",
                       j["comms_per_iteration"].get<std::uint64_t>());
    out +=
        fmt::format("  {:<34}{:>16.0f} B  ({:.1f} MiB)\n", "bytes per GPU per step",
                    num(j["iteration_bytes_per_gpu"]), num(j["iteration_bytes_per_gpu"]) / 1048576);
    out += fmt::format("  {:<34}{:>16.2f}   (max {})\n", "nodes per token",
                       num(j["nodes_per_token"]["mean"]),
                       j["nodes_per_token"]["max"].get<std::uint32_t>());
    const auto& hot = j["matrix"]["hottest_nic"];
    out += fmt::format("  {:<34}{:>16}   GPU {} ({:.1f} % of NIC bytes)\n", "hottest NIC [B]",
                       hot["bytes"].get<std::uint64_t>(), hot["gpu"].get<std::uint32_t>(),
                       100 * num(hot["share"]));
    out += fmt::format(
        "  bound (ISCA '25 2.3.2, {} at {:.0f} GB/s): {:.2f} us per all-to-all, "
        "{:.2f} us per layer, {:.3f} ms per token, {:.1f} tokens/s\n",
        an["ep_path"].get<std::string>(), num(an["ep_bandwidth_GBps"]), num(an["alltoall_us"]),
        num(an["layer_us"]), num(an["step_ms"]), num(an["tokens_per_s"]));
    return out;
}

}  // namespace clustersim

namespace clustersim {

nlohmann::ordered_json moe_step_json(const Scenario& s, const MoeRun& run,
                                     const SimulationResult& r) {
    const MoeModel& m = s.model.preset;
    const auto& w = s.workload;
    const bool decode = w.phase == "decode", training = w.phase == "training";
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
            const MessageState& st = r.messages[i];
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
            if (r.messages[i].finished != Time::never())
                pass_end[pass_of(a)] = std::max(pass_end[pass_of(a)], r.messages[i].finished);
    }
    // The last pass also ends with its last compute task (experts with nothing to send back).
    for (const auto& c : r.computes)
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
        w.micro_batches * (run.attention.us() + busiest_expert_us / (training ? 2 : 1));
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
    const double dense_us = static_cast<double>(m.dense_layers) * w.micro_batches *
                            passes_per_dense * (run.attention + run.dense_ffn).us();
    const double step_ms = (per_layer_us * m.moe_layers() + dense_us) / 1000.0;
    const double compute_ms = (dense_us + static_cast<double>(m.moe_layers()) * w.micro_batches *
                                              (passes_per_dense * run.attention.us() +
                                               expert_us * static_cast<double>(passes) / layers)) /
                              1000.0;
    // Compute lost to the SMs communication kernels hold (normal mode): what the compute tasks
    // took beyond their nominal durations, per GPU per step, in integer picoseconds so that no
    // slowdown is exactly zero.
    std::int64_t lost_ps = 0;
    for (const Time& t : run.expert) lost_ps -= t.ps();
    for (const auto& a : run.all_to_alls)  // attention: once per rank per all-to-all range
        lost_ps -= run.attention.ps() * (a.backward ? 2 : 1) * static_cast<std::int64_t>(w.ep_size);
    for (const auto& c : r.computes)
        if (c.finished != Time::never()) lost_ps += (c.finished - c.started).ps();
    const double slowdown_ms = static_cast<double>(std::max<std::int64_t>(0, lost_ps)) / 1e9 /
                               (static_cast<double>(w.ep_size) * w.ep_groups) / layers *
                               m.moe_layers();
    const double tokens_per_step = decode ? 1.0 + w.mtp_acceptance : 1.0;
    const double per_gpu =
        step_ms > 0 ? w.tokens_per_gpu * w.micro_batches * tokens_per_step / (step_ms / 1000.0)
                    : 0.0;
    Json d;
    d[decode ? "tpot_ms" : "step_ms"] = step_ms;
    d["tokens_per_s_per_gpu"] = per_gpu;
    d["tokens_per_s_per_node"] = per_gpu * s.cluster.gpus_per_node;
    if (decode)
        d["tokens_per_s_per_user"] = step_ms > 0 ? tokens_per_step / (step_ms / 1000.0) : 0.0;
    d["dispatch_us"] = n > 0 ? dispatch / n : 0.0;
    d["combine_us"] = n > 0 ? combine / n : 0.0;
    d["layer_us"] = per_layer_us;
    if (training) {
        d["forward_layer_us"] = forward_us;
        d["backward_layer_us"] = backward_us;
    }
    d["compute_ms"] = compute_ms;
    d["compute_slowdown_ms"] = slowdown_ms;
    d["exposed_comm_ms"] = std::max(0.0, step_ms - compute_ms - slowdown_ms);
    d["attention_us"] = run.attention.us();
    d["expert_us"] = expert_us;
    d["simulated_layers"] = layers;
    d["extrapolation"] = fmt::format(
        "{} of {} MoE layers simulated{} with {} micro-batches; {} = {} MoE layers x the "
        "steady-state time per layer{} ({}) + {} dense layers x {} micro-batches x (attention + "
        "dense FFN){}, compute only",
        layers, m.moe_layers(), training ? " forward and backward" : "", w.micro_batches,
        decode ? "TPOT" : "the step", m.moe_layers(), training ? " (forward + backward)" : "",
        layers >= 2 ? "between the ends of the first and last simulated layers"
                    : "the one simulated layer, pipeline fill included",
        m.dense_layers, w.micro_batches, training ? " x 3 (backward twice the forward)" : "");
    return d;
}

}  // namespace clustersim
