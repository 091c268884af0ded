#include "tools/scenario/serving_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "models/network/simulation.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/settle_layers.hpp"

namespace clustersim {
namespace {
// The reference contexts a step's line in context goes through.
constexpr std::uint64_t kContextA = 1024, kContextB = 8192;
}  // namespace

std::pair<std::uint64_t, std::uint64_t> half_octave_bracket(std::uint64_t x) {
    // 1, 2, then 2^k -> 1.5 x 2^k -> 2^(k+1).
    auto next = [](std::uint64_t g) {
        return g == 1 ? 2 : (g & (g - 1)) == 0 ? g + g / 2 : g / 3 * 4;
    };
    std::uint64_t lo = 1, g = 1;
    while (g < x) {
        lo = g;
        g = next(g);
    }
    return g == x ? std::pair{x, x} : std::pair{lo, g};
}

PacketStepTimes::PacketStepTimes(const Scenario& s, bool progress) : s_(s), progress_(progress) {}
PacketStepTimes::~PacketStepTimes() = default;

Scenario PacketStepTimes::step_scenario(const Scenario& s, MoePhase phase, std::uint32_t per_gpu,
                                        std::uint32_t context) {
    Scenario t = s;
    t.serving.set = false;
    const ServingDeployment& d = s.serving.deployment;
    const bool prefill = phase == MoePhase::Prefill;
    const InstanceGroup& g = prefill ? d.prefill : d.decode;
    auto& w = t.workload;
    w.phase = phase;
    // Per micro-batch: a prefill step's tokens per GPU are split over them.
    w.tokens_per_gpu = prefill ? (per_gpu + w.micro_batches - 1) / w.micro_batches : per_gpu;
    w.ep_size = g.ep_size;
    // Every instance of the kind steps at once: their traffic meets in the fabric.
    w.ep_groups = g.instances;
    w.kv_length = context;
    w.contexts = KvLengthDistribution{};
    w.contexts.tokens = context;
    if (prefill) {  // DeepSeek prefills with DeepEP's normal kernels, in two stages
        w.normal_mode = true;
        w.schedule = StepSchedule::TwoStage;
        w.mtp_draft_tokens = 0;
        w.mtp_acceptance = 0;
    }
    // Layers are not settled per shape (that would rerun every shape): the auto count's start,
    // 4 decode or 2 prefill layers (settle_layers.hpp), unless the scenario sets its own.
    if (w.simulated_layers == 0) w.simulated_layers = simulated_layers_to_run(t);
    // On the whole deployment's fabric, the kind's instances placed from its first GPU (where
    // the deployment puts them only for prefill; fat trees are symmetric in this, Dragonfly and
    // Slim Fly not quite: a simplification the results state).
    t.topology.endpoints = d.gpus();
    t.topology.endpoints_set = true;
    t.sim.replicates = 1;
    return t;
}

StepSimulation PacketStepTimes::run_step(What what, std::uint64_t per_gpu, std::uint64_t context,
                                         std::uint64_t kv_bytes) {
    const MoePhase phase = what == What::Prefill ? MoePhase::Prefill : MoePhase::Decode;
    const Scenario t = step_scenario(s_, phase, static_cast<std::uint32_t>(per_gpu),
                                     static_cast<std::uint32_t>(context));
    std::vector<MessageSpec> beside;
    if (kv_bytes > 0) {
        // The step's rank 0 sends a KV cache (prefill) or receives one (decode); the other end
        // is the first GPU of the first node past the step's, where the other kind's are.
        const std::uint32_t step_gpus = t.workload.ep_size * t.workload.ep_groups;
        const std::uint32_t per_node = std::max<std::uint32_t>(1, s_.cluster.gpus_per_node);
        std::uint32_t other = (step_gpus + per_node - 1) / per_node * per_node;
        if (other >= t.topology.endpoints) other = step_gpus;
        beside.push_back(what == What::Prefill ? MessageSpec{0, other, kv_bytes, Time::zero()}
                                               : MessageSpec{other, 0, kv_bytes, Time::zero()});
    }
    PreparedRun p = prepare_run(t, beside);
    const RunOutcome o = execute_settled(t, p, false);
    if (o.result.status != SimulationResult::Status::Completed)
        throw std::runtime_error(fmt::format("a {} step of {} per GPU did not complete: {}",
                                             phase_name(phase), per_gpu,
                                             run_stop_report(t, p, o.result)));
    const Json& m = o.results[std::string(phase_name(phase))];
    StepSimulation r{std::string(phase_name(phase)),
                     per_gpu,
                     context,
                     kv_bytes,
                     m["step_ms"].get<double>(),
                     o.result.end_time.us(),
                     m["dispatch_us"].get<double>(),
                     m["combine_us"].get<double>(),
                     0.0,
                     o.result.events};
    if (kv_bytes > 0) {  // the stream is the run's last message
        const MessageState& kv = o.result.messages.back();
        r.kv_stream_gbps = static_cast<double>(kv_bytes) * 8 / (kv.finished - kv.first_sent).ns();
    }
    if (progress_)
        fmt::print(stderr, "clustersim: serving: {} step, {} per GPU, context {}{}: {:.3f} ms\n",
                   phase_name(phase), per_gpu, context,
                   kv_bytes > 0 ? fmt::format(", beside {} KV bytes", kv_bytes) : "", r.time_ms);
    return r;
}

StepSimulation PacketStepTimes::run_transfer(std::uint64_t bytes) {
    const ServingDeployment& d = s_.serving.deployment;
    Scenario t = s_;
    t.serving.set = false;
    t.topology.endpoints = d.gpus();
    t.topology.endpoints_set = true;
    if (!fabric_) fabric_ = std::make_unique<SimulatedFabric>(build_simulated_fabric(t, d.gpus()));
    // From the first prefill GPU to the first decode GPU: another node, as every transfer.
    Workload w;
    w.add_message(MessageSpec{0, d.prefill_gpus(), bytes, Time::zero()});
    w.seal();
    SimulationOptions so;
    const SimulationResult r =
        simulate(fabric_->simulated().graph, fabric_->routes, w, network_params(t, fabric_->fabric),
                 so, fabric_->node_layout());
    if (r.status != SimulationResult::Status::Completed)
        throw std::runtime_error(fmt::format("a KV transfer of {} bytes did not complete", bytes));
    StepSimulation out;
    out.what = "kv_transfer";
    out.size = bytes;
    out.time_ms = r.end_time.ms();
    out.window_us = r.end_time.us();
    out.events = r.events;
    return out;
}

const StepSimulation& PacketStepTimes::simulated(What what, std::uint64_t size,
                                                 std::uint64_t context, bool with_kv) {
    const Key key{what, size, context, with_kv};
    if (auto it = known_.find(key); it != known_.end()) return runs_[it->second];
    StepSimulation r;
    if (what == What::Transfer) {
        r = run_transfer(size);
    } else if (!with_kv) {
        r = run_step(what, size, context, 0);
    } else {
        // Twice what the NIC carries in the simulated window: sharing the NIC, the stream
        // lasts past the window's end, so every simulated layer (and the steady state the
        // step's other layers are taken at) meets it.
        const double window_us = simulated(what, size, context, false).window_us;
        const auto bytes =
            static_cast<std::uint64_t>(2 * window_us * s_.cluster.nic_rate_gbps * 125.0) + 1;
        r = run_step(what, size, context, bytes);
    }
    runs_.push_back(std::move(r));
    known_.emplace(key, runs_.size() - 1);
    return runs_.back();
}

namespace {
double lerp(double a, double b, std::uint64_t lo, std::uint64_t hi, std::uint64_t x) {
    return hi == lo ? a : a + (b - a) * static_cast<double>(x - lo) / static_cast<double>(hi - lo);
}
}  // namespace

double PacketStepTimes::grid_transfer_ms(std::uint64_t bytes) {
    const auto [b0, b1] = half_octave_bracket(bytes);
    return lerp(simulated(What::Transfer, b0, 0, false).time_ms,
                simulated(What::Transfer, b1, 0, false).time_ms, b0, b1, bytes);
}

double PacketStepTimes::interpolated_ms(What what, std::uint64_t size, std::uint64_t context) {
    if (!s_.serving.step_cache) return simulated(what, size, context, false).time_ms;
    if (what == What::Transfer) return grid_transfer_ms(size);
    const auto [s0, s1] = half_octave_bracket(size);
    // A step's time is affine in its context (only attention reads it, at a rate its roofline
    // fixes: docs/serving.md): the line through two reference contexts.
    auto on_line = [&](std::uint64_t sz) {
        const double a = simulated(what, sz, kContextA, false).time_ms;
        const double b = simulated(what, sz, kContextB, false).time_ms;
        return a + (b - a) * (static_cast<double>(context) - kContextA) /
                       static_cast<double>(kContextB - kContextA);
    };
    return lerp(on_line(s0), on_line(s1), s0, s1, size);
}

double PacketStepTimes::kv_delta_ms(What what, std::uint64_t size, std::uint64_t context) {
    auto delta = [&](std::uint64_t sz, std::uint64_t ctx) {
        const double with = simulated(what, sz, ctx, true).time_ms;
        return with - simulated(what, sz, ctx, false).time_ms;
    };
    if (!s_.serving.step_cache) return delta(size, context);
    // Cached: at the first reference context only (the contention is the network's; the
    // context changes the compute between the all-to-alls).
    const auto [s0, s1] = half_octave_bracket(size);
    return lerp(delta(s0, kContextA), delta(s1, kContextA), s0, s1, size);
}

StepTime PacketStepTimes::step(What what, std::uint64_t size, std::uint64_t context,
                               std::uint64_t kv_bytes) {
    const std::size_t before = runs_.size();
    const double alone_ms = interpolated_ms(what, size, context);
    double slowdown_ms = 0;
    const ServingDeployment& d = s_.serving.deployment;
    if (kv_bytes > 0 && d.kind == DeploymentKind::Disaggregated && d.kv_via == KvVia::Fabric) {
        // The fraction of the step the KV bytes in flight take (alone) through its busiest NIC
        // scales what a stream lasting the whole step adds. A difference below the runs' noise
        // can come out negative: taken as none.
        // The bytes' time alone from the transfer grid, also with the cache off: the bytes in
        // flight are a fraction of a transfer, all but never the same twice.
        const double share = std::min(1.0, grid_transfer_ms(kv_bytes) / alone_ms);
        slowdown_ms = share * std::max(0.0, kv_delta_ms(what, size, context));
    }
    if (runs_.size() == before) ++hits_;
    return StepTime{Time::from_us((alone_ms + slowdown_ms) * 1e3),
                    Time::from_us(slowdown_ms * 1e3)};
}

StepTime PacketStepTimes::prefill(PrefillShape shape) {
    return step(What::Prefill, shape.tokens_per_gpu, shape.prompt_tokens, shape.kv_bytes);
}

StepTime PacketStepTimes::decode(DecodeShape shape) {
    return step(What::Decode, shape.requests_per_gpu, shape.context_tokens, shape.kv_bytes);
}

Time PacketStepTimes::kv_transfer(std::uint64_t bytes) {
    const std::size_t before = runs_.size();
    const double ms = interpolated_ms(What::Transfer, bytes, 0);
    if (runs_.size() == before) ++hits_;
    return Time::from_us(ms * 1e3);
}

}  // namespace clustersim
