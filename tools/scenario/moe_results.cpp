#include "tools/scenario/moe_results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "models/hardware/node_rates.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/estimate.hpp"
#include "traffic/moe_step_metrics.hpp"
#include "traffic/moe_traffic.hpp"
#include "traffic/moe_traffic_summary.hpp"

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
    check_moe_traffic_limits(s);  // before a token is drawn
    const MoeModel& model = s.model.preset;
    const auto& w = s.workload;
    const std::uint32_t ep = w.ep_size;
    const std::uint32_t per_node = s.cluster.gpus_per_node;
    const GatingParams gp = moe_gating_params(s);
    const ExpertPlacement placement = moe_placement(s, gp);
    const MoeTrafficParams tp = moe_traffic_params(s);
    MoeAllToAll a;
    try {
        Gating gating(model, placement, gp);
        RandomStream rng(s.seed, "moe-gating", 0);  // layer 0, micro-batch 0
        a = moe_all_to_all(gating, placement, model, tp, rng);
    } catch (const std::invalid_argument& e) {
        throw s.error_at("workload.gating", e.what());
    }

    const bool one_domain = ep <= per_node && !s.cluster.bare;
    const MoeTrafficSummary t = summarise_moe_traffic(
        a, placement, model, w.micro_batches, w.phase == MoePhase::Training,
        nominal_ep_gbytes_per_s(s.cluster.preset, s.cluster.nic_rate_gbps, one_domain), one_domain);

    Json j;
    j["model"] = model.name;
    j["phase"] = phase_name(w.phase);
    j["mode"] = w.normal_mode ? "normal" : "low-latency";
    j["gating"] = gating_name(w.gating);
    j["expert_placement"] = w.expert_placement;
    j["ep_size"] = ep;
    j["nodes"] = t.nodes;
    j["gpus_per_node"] = per_node;
    j["tokens_per_gpu"] = w.tokens_per_gpu;
    j["micro_batches"] = w.micro_batches;
    j["moe_layers"] = model.moe_layers();
    Json per_layer;
    per_layer["dispatch_bytes_per_gpu"] = mean_of(t.dispatch_bytes, ep);
    per_layer["combine_bytes_per_gpu"] = mean_of(t.combine_bytes, ep);
    per_layer["dispatch_bytes_max_gpu"] = t.dispatch_bytes_max_gpu;
    per_layer["dispatch_overhead_bytes_per_gpu"] = mean_of(t.dispatch_scale_bytes, ep);
    per_layer["nvlink_forward_bytes_per_gpu"] = mean_of(t.nvlink_forward_bytes, ep);
    per_layer["rdma_dispatch_bytes_per_gpu"] = mean_of(t.rdma_dispatch_bytes, ep);
    j["per_layer"] = per_layer;
    j["comms_per_iteration"] = t.comms_per_iteration;
    j["iteration_bytes_per_gpu"] = mean_of(t.iteration_bytes, ep);
    j["nodes_per_token"] = {{"mean", t.nodes_per_token_mean}, {"max", t.nodes_per_token_max}};
    auto share = [&](std::uint64_t b) {
        return t.nic_bytes ? static_cast<double>(b) / static_cast<double>(t.nic_bytes) : 0.0;
    };
    j["matrix"] = {{"pairs", t.pairs},
                   {"max_pair_bytes", t.max_pair_bytes},
                   {"mean_pair_bytes", mean_of(t.pair_bytes, t.pairs)},
                   {"hottest_nic",
                    {{"gpu", t.hottest_gpu},
                     {"bytes", t.hottest_gpu_bytes},
                     {"share", share(t.hottest_gpu_bytes)}}},
                   {"hottest_node",
                    {{"node", t.hottest_node},
                     {"bytes", t.hottest_node_bytes},
                     {"share", share(t.hottest_node_bytes)}}}};
    const MoeBound& b = t.bound;
    j["analytic"] = {{"ep_bandwidth_GBps", b.ep_bandwidth_GBps},
                     {"ep_path", b.nvlink ? "nvlink" : "nic"},
                     {"alltoall_us", b.alltoall_us},
                     {"layer_us", b.layer_us},
                     {"step_ms", b.step_ms},
                     {"tokens_per_s", b.tokens_per_s}};
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
        "{} {} ({} mode, {} gating): EP {} over {} node{}, {} tokens per GPU, {} "
        "micro-batch{}\n",
        j["model"].get<std::string>(), j["phase"].get<std::string>(), j["mode"].get<std::string>(),
        j["gating"].get<std::string>(), j["ep_size"].get<std::uint32_t>(),
        j["nodes"].get<std::uint32_t>(), j["nodes"].get<std::uint32_t>() == 1 ? "" : "s",
        j["tokens_per_gpu"].get<std::uint32_t>(), j["micro_batches"].get<std::uint32_t>(),
        j["micro_batches"].get<std::uint32_t>() == 1 ? "" : "es");
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

nlohmann::ordered_json moe_step_json(const Scenario& s, const MoeRun& run, const Workload& w,
                                     const SimulationResult& r, const MoeStepMetrics* pace) {
    return moe_step_section(moe_step_metrics(run.spec, run, w, r.messages, r.computes,
                                             s.cluster.gpus_per_node, 0, pace),
                            run.spec.phase, run.simulated_layers);
}

nlohmann::ordered_json moe_step_section(const MoeStepMetrics& m, MoePhase phase,
                                        std::uint32_t simulated_layers) {
    const bool decode = phase == MoePhase::Decode;
    const bool training = phase == MoePhase::Training;
    nlohmann::ordered_json d;
    if (decode) d["tpot_ms"] = m.tpot_ms;
    d["step_ms"] = m.step_ms;
    d["tokens_per_s_per_gpu"] = m.tokens_per_s_per_gpu;
    d["tokens_per_s_per_node"] = m.tokens_per_s_per_node;
    if (decode) d["tokens_per_s_per_user"] = m.tokens_per_s_per_user;
    d["dispatch_us"] = m.dispatch_us;
    d["combine_us"] = m.combine_us;
    d["layer_us"] = m.layer_us;
    if (training) {
        d["forward_layer_us"] = m.forward_layer_us;
        d["backward_layer_us"] = m.backward_layer_us;
    }
    d["compute_ms"] = m.compute_ms;
    d["compute_slowdown_ms"] = m.compute_slowdown_ms;
    d["exposed_comm_ms"] = m.exposed_comm_ms;
    d["attention_us"] = m.attention_us;
    if (decode) d["attention_max_us"] = m.attention_max_us;
    d["router_us"] = m.router_us;
    d["expert_us"] = m.expert_us;
    if (decode) {
        d["embedding_us"] = m.embedding_us;
        d["lm_head_us"] = m.lm_head_us;
        d["sampling_us"] = m.sampling_us;
        d["mtp_us"] = m.mtp_us;
        d["mtp_layer_us"] = m.mtp_layer_us;
    }
    d["simulated_layers"] = m.simulated_layers;
    // Each EP group's own step (a serving instance's); step_ms is the groups' together.
    d["group_step_ms"] = m.group_step_ms;
    d["extrapolation"] = m.extrapolation;
    // The simulated passes as they ran: a fault inside the window shows here (the stalled
    // layer, then the recovered ones).
    nlohmann::ordered_json timeline = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < m.passes.size(); ++i) {
        const PassTiming& t = m.passes[i];
        const bool backward = training && i >= simulated_layers;
        const bool mtp = decode && i >= simulated_layers;
        timeline.push_back({{"pass", backward ? "backward"
                                     : mtp    ? "mtp"
                                              : "forward"},
                            {"layer", backward ? 2 * simulated_layers - 1 - i
                                      : mtp    ? i - simulated_layers
                                               : i},
                            {"end_us", t.end_us},
                            {"time_us", t.time_us},
                            {"dispatch_us", t.dispatch_us},
                            {"combine_us", t.combine_us}});
    }
    d["timeline"] = std::move(timeline);
    return d;
}

}  // namespace clustersim
