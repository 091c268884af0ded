#include "tools/scenario/serving_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "models/network/simulation.hpp"
#include "tools/scenario/baseline.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/settle_layers.hpp"

namespace clustersim {
namespace {
// The reference contexts a step's line in context goes through.
constexpr std::uint64_t kContextA = 1024, kContextB = 8192;
// A fault an instance meets for the first time hits its step's first packets: 1 ns in, so the
// step run shows the transient (a fault at 0 is one long reacted to).
constexpr double kTransientAtUs = 0.001;

// Instance i's time in a step run: its EP group's (a transfer's, or a run that did not
// complete, has none: the run's).
double instance_time_ms(const StepSimulation& r, std::uint32_t instance) {
    return instance < r.instance_ms.size() ? r.instance_ms[instance] : r.time_ms;
}

// `t` on the serving run's fabric, or on its first pod alone where steps simulate only that.
void serving_step_fabric(const Scenario& s, Scenario& t) {
    t.topology.endpoints = serving_fabric_nics(s);
    t.topology.endpoints_set = true;
    if (first_pod_steps(s)) {
        t.topology.endpoints /= s.serving.deployment.pods;
        t.topology.pods = 1;
    }
}
}  // namespace

bool first_pod_steps(const Scenario& s) {
    return s.serving.deployment.pods > 1 && s.serving.step_first_pod && s.faults.empty();
}

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

PacketStepTimes::PacketStepTimes(const Scenario& s, bool progress)
    : s_(s), progress_(progress), faults_(serving_faults(s)) {
    if (!s.serving.step_store.empty()) store_.emplace(s.serving.step_store, s);
}
PacketStepTimes::~PacketStepTimes() = default;

Scenario PacketStepTimes::step_scenario(const Scenario& s, MoePhase phase, std::uint32_t per_gpu,
                                        std::uint32_t context, StepFaults faults) {
    Scenario t = s;
    t.serving.set = false;
    // Every step of a run whose faults drop packets keeps ACKs and timers, with its faults or
    // not, so that what a fault adds to a step is the fault's (tools/scenario/baseline.hpp).
    t.network.reliable = faulted_run_reliable(s);
    t.faults.clear();
    for (std::uint32_t k = 0; k < s.faults.size(); ++k) {
        if (!(faults.present >> k & 1)) continue;
        FaultSpec f = s.faults[k];
        f.at_us = faults.transient >> k & 1 ? kTransientAtUs : 0;
        f.until_us = -1;  // taken at step boundaries: present for the whole step
        t.faults.push_back(std::move(f));
    }
    const ServingDeployment& d = s.serving.deployment;
    const bool prefill = phase == MoePhase::Prefill;
    // Colocated instances prefill too: their prefill steps run on the decode group.
    const InstanceGroup& g =
        prefill && d.kind == DeploymentKind::Disaggregated ? d.prefill : d.decode;
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
    // On the whole deployment's fabric. In a scenario with faults, the kind's instances are
    // where the deployment puts them, so a fault hits the steps it would (and its healthy
    // steps are placed alike: a fault's delta is the fault's); without, from GPU 0 (fat trees
    // are symmetric in this, Dragonfly and Slim Fly not quite: a simplification the results
    // state).
    if (!s.faults.empty() && !prefill) w.first_gpu = d.prefill_gpus();
    if (d.pods > 1) {  // always where the deployment puts them: in every pod, beside the other
        const bool dis_prefill = prefill && d.kind == DeploymentKind::Disaggregated;
        w.first_gpu = dis_prefill ? 0 : d.decode_first_gpu(0);
        const std::uint32_t per_pod = d.per_pod(dis_prefill);
        if (first_pod_steps(s)) {
            w.ep_groups = per_pod;
        } else {
            w.groups_per_pod = per_pod;
            w.pod_stride_gpus = d.pod_gpus();
        }
    }
    serving_step_fabric(s, t);
    t.sim.replicates = 1;
    return t;
}

StepSimulation PacketStepTimes::run_step(What what, std::uint64_t per_gpu, std::uint64_t context,
                                         std::uint64_t kv_bytes, StepFaults faults) {
    const MoePhase phase = what == What::Prefill ? MoePhase::Prefill : MoePhase::Decode;
    const Scenario t = step_scenario(s_, phase, static_cast<std::uint32_t>(per_gpu),
                                     static_cast<std::uint32_t>(context), faults);
    std::vector<MessageSpec> beside;
    if (kv_bytes > 0) {
        // The step's rank 0 sends a KV cache (prefill) or receives one (decode); the other end
        // is a GPU of the other kind in its pod: past the step's last node (in pods: the
        // first pod's), or (placed where the deployment puts it) the first prefill GPU.
        const std::uint32_t first = t.workload.first_gpu;
        const std::uint32_t step_gpus =
            t.workload.ep_size *
            (t.workload.groups_per_pod > 0 ? t.workload.groups_per_pod : t.workload.ep_groups);
        const std::uint32_t per_node = std::max<std::uint32_t>(1, s_.cluster.gpus_per_node);
        const std::uint32_t room = s_.serving.deployment.pods > 1 ? s_.serving.deployment.pod_gpus()
                                                                  : s_.serving.deployment.gpus();
        std::uint32_t other = (step_gpus + per_node - 1) / per_node * per_node;
        if (other >= room) other = step_gpus;
        if (first > 0) other = 0;
        beside.push_back(what == What::Prefill ? MessageSpec{first, other, kv_bytes, Time::zero()}
                                               : MessageSpec{other, first, kv_bytes, Time::zero()});
    }
    PreparedRun p = prepare_run(t, beside);
    const RunOutcome o = execute_settled(t, p, false);
    if (o.result.status != SimulationResult::Status::Completed) {
        if (faults.present == 0)
            throw std::runtime_error(fmt::format("a {} step of {} per GPU did not complete: {}",
                                                 phase_name(phase), per_gpu,
                                                 run_stop_report(t, p, o.result)));
        // With its faults the library aborts, or the step stalls: the instance stops.
        StepSimulation r;
        r.what = std::string(phase_name(phase));
        r.size = per_gpu;
        r.context = context;
        r.kv_bytes = kv_bytes;
        r.window_us = o.result.end_time.us();
        r.events = o.result.events;
        r.faults = faults;
        r.completed = false;
        if (progress_)
            fmt::print(stderr, "clustersim: serving: {} step, {} per GPU, with faults: {}\n",
                       phase_name(phase), per_gpu, run_stop_report(t, p, o.result));
        return r;
    }
    const Json& m = o.results[std::string(phase_name(phase))];
    StepSimulation r{std::string(phase_name(phase)),
                     per_gpu,
                     context,
                     kv_bytes,
                     m["step_ms"].get<double>(),
                     m["group_step_ms"].get<std::vector<double>>(),
                     o.result.end_time.us(),
                     m["dispatch_us"].get<double>(),
                     m["combine_us"].get<double>(),
                     0.0,
                     o.result.events,
                     faults};
    if (kv_bytes > 0) {  // the stream is the run's last message
        const MessageState& kv = o.result.messages.back();
        r.kv_stream_gbps = static_cast<double>(kv_bytes) * 8 / (kv.finished - kv.first_sent).ns();
    }
    if (progress_) {
        const auto [fastest, slowest] =
            std::minmax_element(r.instance_ms.begin(), r.instance_ms.end());
        fmt::print(
            stderr, "clustersim: serving: {} step, {} per GPU, context {}{}{}: {:.3f} ms{}\n",
            phase_name(phase), per_gpu, context,
            kv_bytes > 0 ? fmt::format(", beside {} KV bytes", kv_bytes) : "",
            faults.present != 0 ? fmt::format(", {} faults", std::popcount(faults.present)) : "",
            r.time_ms,
            r.instance_ms.size() > 1
                ? fmt::format(" (instances {:.3f} to {:.3f})", *fastest, *slowest)
                : "");
    }
    return r;
}

StepSimulation PacketStepTimes::run_transfer(std::uint64_t bytes) {
    const ServingDeployment& d = s_.serving.deployment;
    Scenario t = s_;
    t.serving.set = false;
    serving_step_fabric(s_, t);
    if (!fabric_) fabric_ = std::make_unique<SimulatedFabric>(build_simulated_fabric(t, d.gpus()));
    // From the first prefill GPU to the first decode GPU (of its pod): another node, as every
    // transfer over the fabric.
    Workload w;
    w.add_message(MessageSpec{0, d.decode_first_gpu(0), bytes, Time::zero()});
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
                                                 std::uint64_t context, bool with_kv,
                                                 StepFaults faults) {
    const Key key{what, size, context, with_kv, faults.present, faults.transient};
    if (auto it = known_.find(key); it != known_.end()) return runs_[it->second];
    const StoredStepKey stored{what == What::Transfer  ? "kv_transfer"
                               : what == What::Prefill ? "prefill"
                                                       : "decode",
                               size, context, with_kv, faults};
    if (store_) {
        if (std::optional<StepSimulation> kept = store_->find(stored)) {
            ++from_store_;
            if (progress_)
                fmt::print(stderr, "clustersim: serving: {}{}: {:.3f} ms (from the step store)\n",
                           what == What::Transfer ? fmt::format("KV transfer of {} bytes", size)
                                                  : fmt::format("{} step, {} per GPU, context {}",
                                                                kept->what, size, context),
                           with_kv ? ", beside a KV stream" : "", kept->time_ms);
            runs_.push_back(std::move(*kept));
            known_.emplace(key, runs_.size() - 1);
            return runs_.back();
        }
    }
    StepSimulation r;
    if (what == What::Transfer) {
        r = run_transfer(size);
    } else if (!with_kv) {
        r = run_step(what, size, context, 0, faults);
    } else {
        // Twice what the NIC carries in the simulated window: sharing the NIC, the stream
        // lasts past the window's end, so every simulated layer (and the steady state the
        // step's other layers are taken at) meets it.
        const StepSimulation& alone = simulated(what, size, context, false, faults);
        if (!alone.completed) return alone;  // nothing to stream beside
        const double window_us = alone.window_us;
        const auto bytes =
            static_cast<std::uint64_t>(2 * window_us * s_.cluster.nic_rate_gbps * 125.0) + 1;
        r = run_step(what, size, context, bytes, faults);
    }
    if (store_) store_->keep(stored, r);
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

std::uint32_t PacketStepTimes::group_of(What what, std::uint32_t instance) const {
    if (!first_pod_steps(s_)) return instance;
    const ServingDeployment& d = s_.serving.deployment;
    const bool dis_prefill = what == What::Prefill && d.kind == DeploymentKind::Disaggregated;
    return instance % std::max<std::uint32_t>(1, d.per_pod(dis_prefill));
}

double PacketStepTimes::interpolated_ms(What what, std::uint64_t size, std::uint64_t context,
                                        std::uint32_t instance, StepFaults f, bool& completed) {
    auto at = [&](std::uint64_t sz, std::uint64_t ctx) {
        const StepSimulation& r = simulated(what, sz, ctx, false, f);
        completed = completed && r.completed;
        return instance_time_ms(r, group_of(what, instance));
    };
    // Uncached, and a step meeting a fault for the first time (its instance's alone): exact.
    if (!s_.serving.step_cache || f.transient != 0) return at(size, context);
    if (what == What::Transfer) return grid_transfer_ms(size);
    const auto [s0, s1] = half_octave_bracket(size);
    // A step's time is affine in its context (only attention reads it, at a rate its roofline
    // fixes: docs/serving.md): the line through two reference contexts.
    auto on_line = [&](std::uint64_t sz) {
        const double a = at(sz, kContextA);
        const double b = at(sz, kContextB);
        return a + (b - a) * (static_cast<double>(context) - kContextA) /
                       static_cast<double>(kContextB - kContextA);
    };
    return lerp(on_line(s0), on_line(s1), s0, s1, size);
}

double PacketStepTimes::kv_delta_ms(What what, std::uint64_t size, std::uint64_t context,
                                    StepFaults f) {
    f.transient = 0;  // the KV stream's effect in the faults' steady state
    // On the instance whose NIC the stream passes through, the first (by value: a new run may
    // move the runs already held).
    auto delta = [&](std::uint64_t sz, std::uint64_t ctx) {
        const StepSimulation alone = simulated(what, sz, ctx, false, f);
        if (!alone.completed) return 0.0;
        const StepSimulation with = simulated(what, sz, ctx, true, f);
        return with.completed ? instance_time_ms(with, 0) - instance_time_ms(alone, 0) : 0.0;
    };
    if (!s_.serving.step_cache) return delta(size, context);
    // Cached: at the first reference context only (the contention is the network's; the
    // context changes the compute between the all-to-alls).
    const auto [s0, s1] = half_octave_bracket(size);
    return lerp(delta(s0, kContextA), delta(s1, kContextA), s0, s1, size);
}

StepTime PacketStepTimes::step(What what, std::uint64_t size, std::uint64_t context,
                               std::uint32_t instance, std::uint64_t kv_bytes, StepFaults faults) {
    const std::size_t before = runs_.size();
    bool completed = true;
    const double alone_ms = interpolated_ms(what, size, context, instance, faults, completed);
    if (!completed) {
        if (runs_.size() == before) ++hits_;
        return StepTime{Time::zero(), Time::zero(), true};
    }
    double slowdown_ms = 0;
    const ServingDeployment& d = s_.serving.deployment;
    if (kv_bytes > 0 && d.kind == DeploymentKind::Disaggregated && d.kv_via == KvVia::Fabric) {
        // The fraction of the step the KV bytes in flight take (alone) through its busiest NIC
        // scales what a stream lasting the whole step adds. A difference below the runs' noise
        // can come out negative: taken as none.
        // The bytes' time alone from the transfer grid, also with the cache off: the bytes in
        // flight are a fraction of a transfer, all but never the same twice.
        const double share = std::min(1.0, grid_transfer_ms(kv_bytes) / alone_ms);
        slowdown_ms = share * std::max(0.0, kv_delta_ms(what, size, context, faults));
    }
    if (runs_.size() == before) ++hits_;
    return StepTime{Time::from_us((alone_ms + slowdown_ms) * 1e3),
                    Time::from_us(slowdown_ms * 1e3)};
}

StepTime PacketStepTimes::prefill(PrefillShape shape) {
    return step(What::Prefill, shape.tokens_per_gpu, shape.prompt_tokens, shape.instance,
                shape.kv_bytes, shape.faults);
}

StepTime PacketStepTimes::decode(DecodeShape shape) {
    return step(What::Decode, shape.requests_per_gpu, shape.context_tokens, shape.instance,
                shape.kv_bytes, shape.faults);
}

Time PacketStepTimes::kv_transfer(std::uint64_t bytes) {
    const std::size_t before = runs_.size();
    bool completed = true;
    const double ms = interpolated_ms(What::Transfer, bytes, 0, 0, StepFaults{}, completed);
    if (runs_.size() == before) ++hits_;
    return Time::from_us(ms * 1e3);
}

}  // namespace clustersim
