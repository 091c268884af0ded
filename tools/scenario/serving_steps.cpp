#include "tools/scenario/serving_steps.hpp"

#include <fmt/format.h>

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
    t.topology.endpoints = g.ep_size * g.instances;
    t.topology.endpoints_set = true;
    t.sim.replicates = 1;
    return t;
}

double PacketStepTimes::run_step(MoePhase phase, std::uint64_t per_gpu, std::uint64_t context) {
    const Scenario t = step_scenario(s_, phase, static_cast<std::uint32_t>(per_gpu),
                                     static_cast<std::uint32_t>(context));
    PreparedRun p = prepare_run(t);
    const RunOutcome o = execute_settled(t, p, false);
    if (o.result.status != SimulationResult::Status::Completed)
        throw std::runtime_error(fmt::format("a {} step of {} per GPU did not complete: {}",
                                             phase_name(phase), per_gpu,
                                             run_stop_report(t, p, o.result)));
    const double ms = o.results[std::string(phase_name(phase))]["step_ms"].get<double>();
    runs_.push_back(
        StepSimulation{std::string(phase_name(phase)), per_gpu, context, ms, o.result.events});
    if (progress_)
        fmt::print(stderr, "clustersim: serving: {} step, {} per GPU, context {}: {:.3f} ms\n",
                   phase_name(phase), per_gpu, context, ms);
    return ms;
}

double PacketStepTimes::run_transfer(std::uint64_t bytes) {
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
    const double ms = r.end_time.ms();
    runs_.push_back(StepSimulation{"kv_transfer", bytes, 0, ms, r.events});
    return ms;
}

double PacketStepTimes::simulated_ms(What what, std::uint64_t size, std::uint64_t context) {
    const auto key = std::make_tuple(what, size, context);
    if (auto it = known_.find(key); it != known_.end()) return it->second;
    const double ms = what == What::Transfer  ? run_transfer(size)
                      : what == What::Prefill ? run_step(MoePhase::Prefill, size, context)
                                              : run_step(MoePhase::Decode, size, context);
    known_.emplace(key, ms);
    return ms;
}

double PacketStepTimes::interpolated_ms(What what, std::uint64_t size, std::uint64_t context) {
    const std::size_t before = runs_.size();
    double ms = 0;
    if (!s_.serving.step_cache) {
        ms = simulated_ms(what, size, context);
    } else {
        auto lerp = [](double a, double b, std::uint64_t lo, std::uint64_t hi, std::uint64_t x) {
            return hi == lo
                       ? a
                       : a + (b - a) * static_cast<double>(x - lo) / static_cast<double>(hi - lo);
        };
        const auto [s0, s1] = half_octave_bracket(size);
        if (what == What::Transfer) {
            ms = lerp(simulated_ms(what, s0, 0), simulated_ms(what, s1, 0), s0, s1, size);
        } else {
            // A step's time is affine in its context (only attention reads it, at a rate its
            // roofline fixes: docs/serving.md): the line through two reference contexts.
            auto on_line = [&](std::uint64_t sz) {
                const double a = simulated_ms(what, sz, kContextA);
                const double b = simulated_ms(what, sz, kContextB);
                return a + (b - a) * (static_cast<double>(context) - kContextA) /
                               static_cast<double>(kContextB - kContextA);
            };
            ms = lerp(on_line(s0), on_line(s1), s0, s1, size);
        }
    }
    if (runs_.size() == before) ++hits_;
    return ms;
}

Time PacketStepTimes::prefill(PrefillShape shape) {
    return Time::from_us(interpolated_ms(What::Prefill, shape.tokens_per_gpu, shape.prompt_tokens) *
                         1e3);
}

Time PacketStepTimes::decode(DecodeShape shape) {
    return Time::from_us(
        interpolated_ms(What::Decode, shape.requests_per_gpu, shape.context_tokens) * 1e3);
}

Time PacketStepTimes::kv_transfer(std::uint64_t bytes) {
    return Time::from_us(interpolated_ms(What::Transfer, bytes, 0) * 1e3);
}

}  // namespace clustersim
