#include "tools/scenario/serving_run.hpp"

#include "tools/scenario/replicates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>

#include "sim/percentiles.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/output_files.hpp"
#include "tools/scenario/replicates.hpp"
#include "tools/scenario/serving_faults.hpp"
#include "tools/scenario/serving_timeline.hpp"
#include "tools/scenario/wall_estimate.hpp"
#include "topologies/cost_model.hpp"
#include "traffic/serving_requests.hpp"

namespace clustersim {
namespace {

// A step kind's own checks (the model's experts over the instance's GPUs, the fabric's room
// for the instances), blamed on the deployment key that sets it.
void check_step(const Scenario& s, MoePhase phase, const std::string& key) {
    const Scenario t = PacketStepTimes::step_scenario(s, phase, 1, 1);
    try {
        const FabricPlan plan = plan_fabric(t, 0);
        validate_moe_step(t, static_cast<std::uint32_t>(plan.endpoints));
        check_groups_in_pods(t, plan.fabric);
    } catch (const InputError& e) {
        if (e.key().rfind("serving", 0) == 0) throw;
        throw s.error_at(key, fmt::format("{} (as {})", e.what(),
                                          e.key().empty() ? std::string("the step") : e.key()));
    }
}

// The fabric's pods are the deployment's: each pod holds its share of the instances and
// nothing beside them (a pod's spare GPUs are not built). And serving.step_pods chooses only
// where there are pods and no faults. `whole`: the whole fabric's plan, none when it is
// itself in error (reported with the price's check).
void check_pods(const Scenario& s, const std::optional<FabricPlan>& whole) {
    const ServingDeployment& d = s.serving.deployment;
    if (s.positions.count("serving.step_pods") && (d.pods == 1 || !s.faults.empty()))
        throw s.error_at("serving.step_pods",
                         d.pods == 1 ? "one pod: nothing to choose (expected topology.pods above "
                                       "1, or no step_pods)"
                                     : "with faults every pod steps, a fault's own and the "
                                       "others (expected no step_pods, or no faults)");
    if (d.pods == 1 || !whole) return;
    const std::uint64_t fabric_pod = pod_gpus(serving_fabric_scenario(s), whole->fabric);
    if (fabric_pod != d.pod_gpus())
        throw s.error_at(s.topology.endpoints_set ? "topology.endpoints" : "topology.pods",
                         fmt::format("the fabric's pods hold {} GPUs, the deployment's {} "
                                     "(expected instances that fill every pod alike, to its "
                                     "last node)",
                                     fabric_pod, d.pod_gpus()));
}

Json stats_json(std::vector<double> v) {
    const Summary m = summarise(std::move(v));
    return Json{{"p50", m.p50}, {"p90", m.p90}, {"p99", m.p99}, {"mean", m.mean}};
}

double ms_between(Time a, Time b) {
    return (b - a).ms();
}

// A request's time per output token after the first (none for a single token).
bool tpot_of(const ServingRequest& q, const RequestTimes& t, double& ms) {
    if (q.output_tokens <= 1) return false;
    ms = ms_between(t.first_token, t.finish) / static_cast<double>(q.output_tokens - 1);
    return true;
}

bool meets_slo(const Scenario& s, const ServingRequest& q, const RequestTimes& t) {
    if (t.finish == Time::never()) return false;
    double tpot = 0;
    if (ms_between(q.arrival, t.first_token) > s.serving.ttft_ms) return false;
    if (tpot_of(q, t, tpot) && tpot > s.serving.tpot_ms) return false;
    return s.serving.e2e_ms <= 0 || ms_between(q.arrival, t.finish) <= s.serving.e2e_ms;
}

}  // namespace

ServingInput prepare_serving(const Scenario& s) {
    const ServingDeployment& d = s.serving.deployment;
    if (s.serving.duration_s > 0 && s.serving.duration_s / s.serving.timeline_s > 10000)
        throw s.error_at(
            "serving.timeline_s",
            fmt::format("{} s makes more than 10,000 windows of the {} s run "
                        "(expected at least {} s)",
                        s.serving.timeline_s, s.serving.duration_s, s.serving.duration_s / 10000));
    (void)serving_faults(s);  // their input errors before anything runs
    // The whole deployment on one fabric, planned once: it must fit, and its price is what
    // the throughput is per.
    const Scenario whole = serving_fabric_scenario(s);
    std::optional<FabricPlan> plan;
    std::optional<InputError> plan_error;
    try {
        plan = plan_fabric(whole, 0);
    } catch (const InputError& e) {
        plan_error = e;
    }
    check_pods(s, plan);
    check_step(s, MoePhase::Decode, "serving.deployment.decode.ep_size");
    if (d.kind == DeploymentKind::Disaggregated)
        check_step(s, MoePhase::Prefill, "serving.deployment.prefill.ep_size");
    ServingInput in;
    try {
        if (!plan) throw *plan_error;
        if (plan->endpoints < d.gpus())
            throw s.error_at("serving.deployment",
                             fmt::format("{} GPUs of instances do not fit the fabric's {} "
                                         "(expected fewer instances, or a larger fabric)",
                                         d.gpus(), plan->endpoints));
        // Priced as `topo` prices it: built whole, so in-rack cables are placed (copper), which
        // the plan's counts skip.
        in.fabric_usd = topology_cost(whole, build_topology(whole, 0)).total_usd;
        in.cluster =
            cluster_cost(in.fabric_usd, static_cast<double>(plan->fabric.inventory.endpoints),
                         s.cluster.nics_per_node, s.cost.server_usd, s.cluster.bare);
    } catch (const InputError& e) {
        if (e.key().rfind("serving", 0) == 0) throw;
        throw s.error_at("serving.deployment", e.what());
    }
    in.requests = s.serving.trace ? read_request_trace(s.serving.file, s.serving.duration_s * 1e6)
                                  : poisson_requests(s.serving.rate_per_s, s.serving.duration_s,
                                                     s.serving.prompt, s.serving.output, s.seed);
    if (in.requests.empty())
        throw s.error_at("serving.arrival.rate_per_s",
                         fmt::format("no request arrives in {} s (expected a rate or duration "
                                     "giving at least one)",
                                     s.serving.duration_s));
    return in;
}

ServingCheck check_serving(const Scenario& s) {
    ServingCheck c;
    c.requests = prepare_serving(s).requests.size();
    const ServingDeployment& d = s.serving.deployment;
    const std::uint32_t per_micro_batch =
        (d.decode_requests_per_gpu + d.micro_batches - 1) / d.micro_batches;
    c.decode = estimate_scenario(
        PacketStepTimes::step_scenario(s, MoePhase::Decode, per_micro_batch, 4096));
    if (d.kind == DeploymentKind::Disaggregated)
        c.prefill = estimate_scenario(
            PacketStepTimes::step_scenario(s, MoePhase::Prefill, d.prefill_tokens_per_gpu, 4096));
    return c;
}

std::uint64_t serving_memory_bytes(const ServingCheck& c) {
    return std::max(c.decode.run.memory_bytes(), c.prefill.run.memory_bytes());
}

std::vector<std::string> serving_result_keys() {
    return {"serving.requests.",
            "serving.ttft_ms.",
            "serving.tpot_ms.",
            "serving.e2e_ms.",
            "serving.queue_ms.",
            "serving.goodput_rps",
            "serving.slo_attainment",
            "serving.tokens_per_s_per_gpu",
            "serving.tokens_per_s_per_node",
            "serving.cost_usd.",
            "serving.tokens_per_s_per_musd",
            "serving.goodput_rps_per_musd",
            "serving.output_tokens",
            "serving.kv_transfer_ms.",
            "serving.kv_slowdown.",
            "serving.decode_batch.",
            "serving.steps.",
            "serving.in_system_mean",
            "serving.end_s",
            "serving.gpus",
            "serving.pods",
            "serving.kv_cross_pod",
            "serving.step_simulations",
            "serving.step_cache_hits",
            "sim.step_events",
            "sim.wall_s",
            "sim.step_runs_from_store"};
}

Json serving_check_json(const std::string& file, const Scenario& s, const ServingCheck& c) {
    Json j;
    j["tool"] = tool_json();
    j["file"] = file;
    j["status"] = "ok";
    j["requests"] = c.requests;
    auto step = [](const ScenarioEstimate& e) {
        return Json{{"workload", e.what},
                    {"events_estimate", e.run.events},
                    {"memory_estimate_bytes", e.run.memory_bytes()},
                    {"wall_s_estimate", wall_s_estimate(e.run)}};
    };
    j["decode_step"] = step(c.decode);
    const bool dis = s.serving.deployment.kind == DeploymentKind::Disaggregated;
    if (dis) j["prefill_step"] = step(c.prefill);
    // Steps run one at a time: the largest bounds what the run holds, and one step's events.
    j["events_estimate"] = std::max(c.decode.run.events, dis ? c.prefill.run.events : 0);
    j["memory_estimate_bytes"] =
        std::max(c.decode.run.memory_bytes(), dis ? c.prefill.run.memory_bytes() : 0);
    j["note"] =
        "a serving run simulates as many steps as the step cache needs shapes "
        "(docs/serving.md): the estimates are for its largest step of each kind";
    return j;
}

std::string serving_check_line(const std::string& file, const Scenario& s, const ServingCheck& c) {
    const ServingDeployment& d = s.serving.deployment;
    const bool dis = d.kind == DeploymentKind::Disaggregated;
    std::string out = fmt::format(
        "{}: ok (serving: {} requests; {}, {} x EP{} decode{}; the largest decode step at most "
        "about {} events, memory about {}",
        file, c.requests, kDeploymentKindNames[static_cast<std::size_t>(d.kind)],
        d.decode.instances, d.decode.ep_size,
        dis ? fmt::format(", {} x EP{} prefill", d.prefill.instances, d.prefill.ep_size)
            : std::string(),
        c.decode.run.events, format_bytes(c.decode.run.memory_bytes()));
    if (dis)
        out += fmt::format("; the largest prefill step at most about {} events, memory about {}",
                           c.prefill.run.events, format_bytes(c.prefill.run.memory_bytes()));
    return out + "; as many steps as the step cache needs shapes)\n";
}

namespace {
// What KV transfers over the fabric added to the steps they shared NICs with: per kind, the
// steps slowed, their mean slowdown, and the total added as a percentage of the steps' time
// without it.
Json kv_slowdown_json(std::span<const StepRecord> steps) {
    Json j;
    for (const bool prefill : {false, true}) {
        std::uint64_t slowed = 0;
        double added_ms = 0, alone_ms = 0;
        for (const StepRecord& st : steps) {
            if (st.prefill != prefill) continue;
            added_ms += st.kv_slowdown.ms();
            alone_ms += (st.duration - st.kv_slowdown).ms();
            slowed += st.kv_slowdown > Time::zero();
        }
        j[prefill ? "prefill" : "decode"] = {
            {"steps", slowed},
            {"mean_ms", slowed > 0 ? added_ms / static_cast<double>(slowed) : 0.0},
            {"percent", alone_ms > 0 ? 100 * added_ms / alone_ms : 0.0}};
    }
    return j;
}
}  // namespace

ServingRunOutcome execute_serving(const Scenario& s, const ServingInput& in, bool progress) {
    PacketStepTimes steps(s, progress);
    ServingRunOutcome first = execute_serving(s, in, steps);
    if (s.sim.replicates <= 1) return first;
    // Every seed its own requests, MTP draws and step runs (the gating and placements change
    // with the seed, so the step cache is not shared).
    std::vector<Json> all = {first.results};
    for (std::uint32_t i = 1; i < s.sim.replicates; ++i) {
        Scenario r = s;
        r.seed = s.seed + i;
        PacketStepTimes own(r, progress);
        all.push_back(execute_serving(r, prepare_serving(r), own).results);
    }
    summarise_serving_replicates(first.results, all);
    return first;
}

ServingRunOutcome execute_serving(const Scenario& s, const ServingInput& in,
                                  PacketStepTimes& steps) {
    const std::span<const ServingRequest> requests = in.requests;
    const auto wall_start = std::chrono::steady_clock::now();
    ServingRunOutcome o;
    // A scenario without faults (a --baseline's twin) serves with none, its steps from the
    // same cache.
    o.outcome = simulate_serving(
        s.serving.deployment, requests, steps, s.seed,
        s.faults.empty() ? std::span<const ServingFault>() : steps.faults().faults);
    o.simulations = steps.simulations();
    o.cache_hits = steps.cache_hits();
    o.runs_from_store = steps.runs_from_store();
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    const ServingOutcome& out = o.outcome;
    const ServingDeployment& d = s.serving.deployment;
    std::vector<double> ttft, tpot, e2e, kv, queue;
    std::uint64_t finished = 0, met = 0, failed = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const ServingRequest& q = requests[i];
        const RequestTimes& t = out.requests[i];
        failed += t.failed != Time::never();
        if (t.finish == Time::never()) continue;
        ++finished;
        met += meets_slo(s, q, t);
        ttft.push_back(ms_between(q.arrival, t.first_token));
        e2e.push_back(ms_between(q.arrival, t.finish));
        queue.push_back(ms_between(q.arrival, t.prefill_start));
        double x = 0;
        if (tpot_of(q, t, x)) tpot.push_back(x);
        if (d.kind == DeploymentKind::Disaggregated && t.kv_ready != Time::never())
            kv.push_back(ms_between(t.first_token, t.kv_ready));
    }
    const double end_s = out.end.ms() / 1e3;
    const double window_s = s.serving.duration_s > 0
                                ? s.serving.duration_s
                                : std::max(requests.back().arrival.ms() / 1e3, 1e-9);
    std::uint64_t decode_steps = 0, prefill_steps = 0, batch_sum = 0, batch_max = 0;
    for (const StepRecord& st : out.steps) {
        if (st.prefill) {
            ++prefill_steps;
            continue;
        }
        ++decode_steps;
        batch_sum += st.batch;
        batch_max = std::max<std::uint64_t>(batch_max, st.batch);
    }
    Json v;
    v["requests"] = {{"arrived", requests.size()},
                     {"finished", finished},
                     {"failed", failed},
                     {"in_flight", requests.size() - finished - failed}};
    v["ttft_ms"] = stats_json(ttft);
    v["tpot_ms"] = stats_json(tpot);
    v["e2e_ms"] = stats_json(e2e);
    v["queue_ms"] = stats_json(queue);
    const double goodput = static_cast<double>(met) / window_s;
    v["goodput_rps"] = goodput;
    // Of the requests that ended: a failed one did not meet its SLO.
    v["slo_attainment"] = finished + failed > 0
                              ? static_cast<double>(met) / static_cast<double>(finished + failed)
                              : 0.0;
    // Throughput while requests arrive: the tokens of the steps that ended in the arrival
    // window (the drain after it serves fewer and fewer).
    std::uint64_t window_tokens = 0;
    for (const StepRecord& st : out.steps)
        if ((st.start + st.duration).ms() / 1e3 <= window_s) window_tokens += st.tokens;
    const double per_gpu = static_cast<double>(window_tokens) / window_s / d.gpus();
    v["tokens_per_s_per_gpu"] = per_gpu;
    v["tokens_per_s_per_node"] = per_gpu * d.gpus_per_node;
    // What the deployment costs (its fabric and the servers of its GPUs, models/data/prices.yaml:
    // assumptions there), and what it delivers per million dollars.
    v["cost_usd"] = {{"fabric", in.fabric_usd}, {"cluster", in.cluster.usd}};
    v["tokens_per_s_per_musd"] =
        in.cluster.usd > 0 ? tokens_per_s_per_musd(per_gpu, d.gpus(), in.cluster.usd) : 0.0;
    v["goodput_rps_per_musd"] = in.cluster.usd > 0 ? goodput / in.cluster.usd * 1e6 : 0.0;
    v["output_tokens"] = out.output_tokens;
    if (d.kind == DeploymentKind::Disaggregated) {
        const Summary m = summarise(kv);
        Json k;
        k["p50"] = m.p50;
        k["p99"] = m.p99;
        k["via"] = std::string(kKvViaNames[static_cast<std::size_t>(d.kv_via)]);
        v["kv_transfer_ms"] = k;
        v["kv_slowdown"] = kv_slowdown_json(out.steps);
        // Pods: KV caches that went to another pod's decode instance, over the storage network.
        v["kv_cross_pod"] = out.kv_cross_pod;
    }
    v["decode_batch"] = {{"mean", decode_steps > 0 ? static_cast<double>(batch_sum) /
                                                         static_cast<double>(decode_steps)
                                                   : 0.0},
                         {"max", batch_max}};
    v["steps"] = {{"prefill", prefill_steps}, {"decode", decode_steps}};
    // Little's law over the run: time-averaged requests in the system, and what arrivals and
    // times in the system give (equal when the accounting is right and the run drained).
    v["in_system_mean"] = end_s > 0 ? out.request_seconds / end_s : 0.0;
    v["end_s"] = end_s;
    v["gpus"] = d.gpus();
    v["pods"] = d.pods;
    std::uint64_t events = 0;
    Json shapes = Json::array();
    for (const StepSimulation& r : o.simulations) {
        events += r.events;
        Json shape = {{"what", r.what},
                      {"size", r.size},
                      {"context", r.context},
                      {"time_ms", r.time_ms},
                      {"events", r.events}};
        if (r.faults.present != 0) {
            Json present = Json::array(), transient = Json::array();
            for (std::uint32_t k = 0; k < 64; ++k) {
                if (r.faults.present >> k & 1) present.push_back(k);
                if (r.faults.transient >> k & 1) transient.push_back(k);
            }
            shape["faults"] = std::move(present);
            shape["transient"] = std::move(transient);
            shape["completed"] = r.completed;
        }
        if (r.what != "kv_transfer") {
            shape["kv_bytes"] = r.kv_bytes;
            shape["dispatch_us"] = r.dispatch_us;
            shape["combine_us"] = r.combine_us;
            if (r.kv_bytes > 0) shape["kv_stream_gbps"] = r.kv_stream_gbps;
            if (r.completed) shape["instance_ms"] = r.instance_ms;
        }
        shapes.push_back(std::move(shape));
    }
    v["step_simulations"] = o.simulations.size();
    v["step_cache_hits"] = o.cache_hits;
    v["step_cache"] = s.serving.step_cache;
    if (d.pods > 1) v["step_pods"] = first_pod_steps(s) ? "first" : "all";
    v["step_shapes"] = shapes;
    if (!s.faults.empty()) v["faults"] = serving_faults_json(s, steps.faults(), out);
    v["timeline"] = serving_timeline_json(s, requests, out);
    v["simplifications"] =
        "each kind of instance steps alone on the deployment's fabric, placed from its first "
        "GPU (all instances of the kind stepping together, each taking its own EP group's time "
        "from that run); a step's shape is its requests (or "
        "prompt tokens) per GPU and their mean context, each GPU holding the same; KV "
        "transfers over the fabric take a lone transfer's packet-level time, queued first come "
        "first served at each GPU's NIC; a step with KV bytes in flight through its busiest "
        "NIC as it starts is slowed by what a KV stream through one NIC for the whole step "
        "adds to that NIC's instance (simulated), times the fraction of the step those bytes take "
        "alone; transfers "
        "that start during a step do not slow it, nor does the expert traffic slow them" +
        std::string(s.faults.empty()
                        ? ""
                        : "; faults are taken at step boundaries: a step is simulated with "
                          "those present as it starts (in their steady state, or the first "
                          "time its instance meets one, from its first packet with the "
                          "fabric's reaction at its own delay), a hang holds the step in "
                          "flight, a stop cuts it; KV transfers take the healthy fabric's "
                          "time") +
        std::string(s.serving.step_cache
                        ? "; step times between grid shapes (half octaves) interpolated"
                        : "") +
        std::string(first_pod_steps(s)
                        ? "; a step simulates the first pod's instances alone (pods share no "
                          "cable), each other pod's instance taking its counterpart's time, "
                          "gating draw included"
                        : "");

    Json j;
    j["tool"] = tool_json();
    j["resolved_scenario"] = resolved_scenario_json(s);
    j["scenario"] = s.name;
    j["seed"] = s.seed;
    j["status"] = finished + failed == requests.size() ? "completed" : "stalled";
    // What this process ran, as wall_s: a step store's runs are not rerun (the results are not
    // otherwise changed by it).
    j["sim"] = {
        {"step_events", events}, {"wall_s", wall_s}, {"step_runs_from_store", o.runs_from_store}};
    j["serving"] = v;
    o.results = std::move(j);
    return o;
}

const std::vector<std::string>& serving_output_files() {
    static const std::vector<std::string> files = {"requests.csv", "steps.csv", "results.json"};
    return files;
}

void write_serving_outputs(const std::string& dir_name, const Scenario& s,
                           std::span<const ServingRequest> requests, const ServingRunOutcome& o) {
    const std::filesystem::path dir(dir_name);
    const std::string results = json_text(o.results, 2) + "\n";
    std::error_code ec;
    std::filesystem::remove(dir / "results.json", ec);
    auto us = [](Time t) {
        return t == Time::never() ? std::string() : fmt::format("{:.3f}", t.us());
    };
    write_stream_atomically((dir / "requests.csv").string(), [&](std::ostream& out) {
        out << "request,arrival_us,prompt_tokens,output_tokens,prefill_start_us,first_token_us,"
               "kv_ready_us,decode_start_us,finish_us,failed_us,decode_instance,meets_slo,"
               "kv_cross_pod\n";
        for (std::size_t i = 0; i < requests.size(); ++i) {
            const ServingRequest& q = requests[i];
            const RequestTimes& t = o.outcome.requests[i];
            out << fmt::format(
                "{},{},{},{},{},{},{},{},{},{},{},{},{}\n", i, us(q.arrival), q.prompt_tokens,
                q.output_tokens, us(t.prefill_start), us(t.first_token), us(t.kv_ready),
                us(t.decode_start), us(t.finish), us(t.failed), t.decode_instance,
                meets_slo(s, q, t) ? "true" : "false", t.kv_cross_pod ? "true" : "false");
        }
    });
    write_stream_atomically((dir / "steps.csv").string(), [&](std::ostream& out) {
        out << "start_us,duration_us,kind,instance,batch,per_gpu,tokens,kv_bytes,kv_slowdown_us,"
               "faults,failed\n";
        for (const StepRecord& st : o.outcome.steps)
            out << fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", us(st.start), us(st.duration),
                               st.prefill ? "prefill" : "decode", st.instance, st.batch, st.shape,
                               st.tokens, st.kv_bytes, us(st.kv_slowdown), std::popcount(st.faults),
                               st.failed ? "true" : "false");
    });
    write_file_atomically((dir / "results.json").string(), results);
}

std::string serving_summary_table(const Json& j) {
    const Json& v = j["serving"];
    std::string out = fmt::format("{} (seed {}): {}\n", j["scenario"].get<std::string>(),
                                  j["seed"].get<std::uint64_t>(), j["status"].get<std::string>());
    auto row = [&](const char* name, const Json& x) {
        out += fmt::format("  {:<26}{:>12.3f}{:>12.3f}{:>12.3f}\n", name, x["p50"].get<double>(),
                           x["p90"].get<double>(), x["p99"].get<double>());
    };
    out += fmt::format("  {:<26}{:>12}{:>12}{:>12}\n", "", "p50", "p90", "p99");
    row("TTFT [ms]", v["ttft_ms"]);
    row("TPOT [ms]", v["tpot_ms"]);
    row("end to end [ms]", v["e2e_ms"]);
    row("queueing [ms]", v["queue_ms"]);
    out += fmt::format("  {:<26}{:>12}\n", "requests finished",
                       v["requests"]["finished"].get<std::uint64_t>());
    if (v["requests"]["failed"].get<std::uint64_t>() > 0)
        out += fmt::format("  {:<26}{:>12}\n", "requests failed (faults)",
                           v["requests"]["failed"].get<std::uint64_t>());
    if (j.contains("delta"))
        out += fmt::format("  {:<26}{:>+12.3f}{:>12}{:>+12.3f}\n", "TPOT vs healthy [ms]",
                           j["delta"]["serving"]["tpot_ms"]["p50"].get<double>(), "",
                           j["delta"]["serving"]["tpot_ms"]["p99"].get<double>());
    out += fmt::format("  {:<26}{:>12.3f}\n", "goodput [req/s]", v["goodput_rps"].get<double>());
    out += fmt::format("  {:<26}{:>12.3f}\n", "SLO attainment", v["slo_attainment"].get<double>());
    out += fmt::format("  {:<26}{:>12.1f}\n", "tokens/s per GPU",
                       v["tokens_per_s_per_gpu"].get<double>());
    out += fmt::format("  {:<26}{:>12} ({} reused)\n", "step simulations",
                       v["step_simulations"].get<std::uint64_t>(),
                       v["step_cache_hits"].get<std::uint64_t>());
    return out;
}

}  // namespace clustersim
