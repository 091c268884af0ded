#include "tools/scenario/availability.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <set>

#include "sim/random.hpp"
#include "tools/scenario/availability_days.hpp"
#include "tools/scenario/faults.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/schema.hpp"
#include "tools/scenario/settle_layers.hpp"
#include "topologies/cost_model.hpp"

namespace clustersim {
namespace {

constexpr double kHoursPerYear = 365.0 * 24.0;

// The fabric's parts by group, each group's members in a seeded order, those serving instance 0
// first: a mode with k parts of a group out loses its first k (so a mode's parts include those of
// every smaller mode, and are parts an instance can have out at once).
struct Plan {
    std::vector<ComponentGroup> groups;
    std::vector<std::vector<FaultSpec>> members;
    // Per member: its loss cuts a NIC off (the NIC, its only cable, the switch all its cables
    // reach), which the faults machinery fails or stalls: DeepEP and NCCL abort.
    std::vector<std::vector<std::uint8_t>> cuts_off;
    std::uint32_t gpus_per_node = 1;
    std::uint32_t instances = 1;
};

// The instances (EP groups) each part serves. A GPU serves its own group, a NIC (and its cables)
// the groups of the GPUs that use it, a node the groups of its GPUs. A switch whose only other
// switches are of another tier, with NICs, carries only its NICs' traffic (a fat tree's leaf),
// and so do its cables; every other switch and cable (spines; routers of direct networks, which
// carry others' traffic) serves every instance, but for a router that cuts NICs off (below).
struct Scopes {
    std::vector<std::vector<std::uint32_t>> gpu, node, nic, cable, sw;
    std::vector<std::uint8_t> cable_cuts, sw_cuts;  // cuts a NIC off
};

Scopes scopes_of(const Scenario& s, const SimulatedFabric& f, std::uint32_t gpus_per_node) {
    const auto& w = s.workload;
    const std::uint32_t instances = std::max<std::uint32_t>(1, w.ep_groups);
    std::vector<std::uint32_t> every(instances);
    for (std::uint32_t i = 0; i < instances; ++i) every[i] = i;
    auto instance_of = [&](std::uint64_t gpu) -> std::vector<std::uint32_t> {
        if (gpu < w.first_gpu) return {};
        const std::uint64_t rank = gpu - w.first_gpu;
        if (rank >= std::uint64_t{w.ep_size} * instances) return {};  // idle: serves none
        return {static_cast<std::uint32_t>(w.ep_spread ? rank % instances : rank / w.ep_size)};
    };
    auto merge = [](std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& add) {
        std::vector<std::uint32_t> out;
        std::set_union(into.begin(), into.end(), add.begin(), add.end(), std::back_inserter(out));
        into = std::move(out);
    };
    const PortGraph& g = f.fabric.graph;
    const std::uint64_t gpus = f.node_layout() ? f.endpoints() : 0;
    Scopes out;
    for (std::uint64_t i = 0; i < gpus; ++i) out.gpu.push_back(instance_of(i));
    out.node.resize(gpus / gpus_per_node);
    for (std::uint64_t i = 0; i < out.node.size() * gpus_per_node; ++i)
        merge(out.node[i / gpus_per_node], out.gpu[i]);
    // A NIC serves the GPUs of its node that use it (NIC n of a node is plane n); without a node
    // model the endpoints are the ranks.
    out.nic.assign(g.endpoint_count(), {});
    if (const NodeLayout* layout = f.node_layout()) {
        for (std::uint32_t i = 0; i < gpus; ++i) {
            const std::uint64_t nic =
                std::uint64_t{layout->node_of_gpu(i)} * layout->nics_per_node +
                layout->plane_of_gpu(i);
            if (nic < out.nic.size()) merge(out.nic[nic], out.gpu[i]);
        }
    } else {
        for (std::uint32_t i = 0; i < g.endpoint_count(); ++i) out.nic[i] = instance_of(i);
    }
    // Leaves: switches with NICs and no cable to a switch of their own tier.
    const auto switches = g.switches();
    std::vector<std::uint8_t> has_nic(g.switch_count(), 0), transit(g.switch_count(), 0);
    out.sw.assign(g.switch_count(), {});
    // A NIC is cut off by its only cable, or by the one switch all its cables reach.
    constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    constexpr std::uint32_t kSeveral = kNone - 1;
    std::vector<std::uint32_t> nic_cables(g.endpoint_count(), 0),
        nic_switch(g.endpoint_count(), kNone);
    for (const auto& c : g.cables()) {
        const bool a_sw = c.a.kind == NodeKind::Switch, b_sw = c.b.kind == NodeKind::Switch;
        if (a_sw && b_sw && switches[c.a.index].tier == switches[c.b.index].tier)
            transit[c.a.index] = transit[c.b.index] = 1;
        if (a_sw != b_sw) {
            const NodeRef sw = a_sw ? c.a : c.b, nic = a_sw ? c.b : c.a;
            has_nic[sw.index] = 1;
            merge(out.sw[sw.index], out.nic[nic.index]);
            ++nic_cables[nic.index];
            std::uint32_t& only = nic_switch[nic.index];
            only = only == kNone || only == sw.index ? sw.index : kSeveral;
        }
    }
    out.sw_cuts.assign(g.switch_count(), 0);
    for (std::uint32_t n = 0; n < g.endpoint_count(); ++n)
        if (nic_switch[n] < kSeveral) out.sw_cuts[nic_switch[n]] = 1;
    // A router that also carries others' traffic but cuts its NICs off is taken as serving its
    // NICs' instances: it stops them, and what the others lose of its transit is not counted.
    for (std::uint32_t i = 0; i < g.switch_count(); ++i)
        if (!has_nic[i] || (transit[i] && !out.sw_cuts[i])) out.sw[i] = every;
    auto local = [&](NodeRef n) {
        return n.kind == NodeKind::Switch && has_nic[n.index] && !transit[n.index];
    };
    for (const auto& c : g.cables()) {
        const bool to_nic = c.a.kind == NodeKind::Endpoint || c.b.kind == NodeKind::Endpoint;
        const std::uint32_t nic = c.a.kind == NodeKind::Endpoint ? c.a.index : c.b.index;
        out.cable_cuts.push_back(to_nic && nic_cables[nic] == 1);
        if (to_nic)
            out.cable.push_back(out.nic[nic]);
        else if (local(c.a) || local(c.b))
            out.cable.push_back(local(c.a) ? out.sw[c.a.index] : out.sw[c.b.index]);
        else
            out.cable.push_back(every);
    }
    return out;
}

Plan plan_of(const Scenario& s, const SimulatedFabric& f) {
    Plan plan;
    plan.gpus_per_node = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
    plan.instances = std::max<std::uint32_t>(1, s.workload.ep_groups);
    const Scopes scopes = scopes_of(s, f, plan.gpus_per_node);
    const auto& a = s.availability;
    auto add = [&](ComponentClass c, const std::string& tier) -> std::size_t {
        for (std::size_t g = 0; g < plan.groups.size(); ++g)
            if (plan.groups[g].cls == c && plan.groups[g].tier == tier) return g;
        const ComponentFailure& r = a.rates[static_cast<std::size_t>(c)];
        plan.groups.push_back({c, tier, 0, r.per_year / kHoursPerYear, r.repair_hours, {}});
        plan.members.emplace_back();
        plan.cuts_off.emplace_back();
        return plan.groups.size() - 1;
    };
    // Each group's members as listed, then ordered (below) and split into the plan's arrays.
    struct Member {
        FaultSpec spec;
        std::vector<std::uint32_t> serves;
        bool cuts_off = false;
    };
    std::vector<std::vector<Member>> listed;
    auto member = [&](std::size_t g, FaultSpec spec, const std::vector<std::uint32_t>& serves,
                      bool cuts_off) {
        if (listed.size() <= g) listed.resize(g + 1);
        listed[g].push_back({std::move(spec), serves, cuts_off});
    };
    const Json elements = elements_json(f.fabric);
    // Tiers as the fabric names them, and the ones each class's `tiers` key keeps.
    std::map<ComponentClass, std::set<std::string>> known;
    auto canonical_cable_tier = [&](const std::string& t) {
        const auto dash = t.find('-');
        const std::string flipped =
            dash == std::string::npos ? t
                                      : fmt::format("{}-{}", t.substr(dash + 1), t.substr(0, dash));
        return known[ComponentClass::Cable].count(flipped) ? flipped : t;
    };
    for (const auto& c : elements["cables"])
        known[ComponentClass::Cable].insert(canonical_cable_tier(c["tiers"].get<std::string>()));
    for (const auto& sw : elements["switches"])
        known[ComponentClass::Switch].insert(sw["tier"].get<std::string>());
    // Each class's `tiers` key, checked and in the fabric's own names (a cable's tiers either
    // way round); empty: every tier.
    std::map<ComponentClass, std::set<std::string>> keep;
    for (ComponentClass c : {ComponentClass::Cable, ComponentClass::Switch}) {
        const std::size_t ci = static_cast<std::size_t>(c);
        for (const std::string& t : a.tiers[ci]) {
            const std::string named = c == ComponentClass::Cable ? canonical_cable_tier(t) : t;
            if (!known[c].count(named)) {
                std::string list;
                for (const auto& k : known[c]) list.append(list.empty() ? "" : ", ").append(k);
                throw s.error_at(
                    fmt::format("availability.{}.tiers", kComponentClassNames[ci]),
                    fmt::format("no {} tier '{}' in this {} fabric (expected one of: {})",
                                kComponentClassNames[ci], t, s.topology.kind, list));
            }
            keep[c].insert(named);
        }
    }
    auto kept_named = [&](ComponentClass c, const std::string& tier) {
        return keep[c].empty() || keep[c].count(tier) > 0;
    };
    for (std::size_t k = 0; k < elements["cables"].size(); ++k) {
        const auto& c = elements["cables"][k];
        const std::string tier = canonical_cable_tier(c["tiers"].get<std::string>());
        if (!kept_named(ComponentClass::Cable, tier)) continue;
        FaultSpec spec;
        spec.kind = FaultKind::LinkDown;
        spec.target = FaultTargetKind::Link;
        spec.a = c["a"].get<std::string>();
        spec.b = c["b"].get<std::string>();
        spec.cable = c["index"].get<std::uint32_t>();
        member(add(ComponentClass::Cable, tier), spec, scopes.cable[k], scopes.cable_cuts[k]);
    }
    for (std::uint32_t i = 0; i < elements["switches"].size(); ++i) {
        const std::string tier = elements["switches"][i]["tier"].get<std::string>();
        if (!kept_named(ComponentClass::Switch, tier)) continue;
        FaultSpec spec;
        spec.kind = FaultKind::SwitchDown;
        spec.target = FaultTargetKind::Switch;
        spec.index = i;
        member(add(ComponentClass::Switch, tier), spec, scopes.sw[i], scopes.sw_cuts[i]);
    }
    auto numbered = [&](ComponentClass c, FaultKind kind, FaultTargetKind target,
                        const std::vector<std::vector<std::uint32_t>>& serves) {
        if (serves.empty()) return;
        const std::size_t g = add(c, "");
        for (std::uint64_t i = 0; i < serves.size(); ++i) {
            FaultSpec spec;
            spec.kind = kind;
            spec.target = target;
            spec.index = i;
            member(g, spec, serves[i], kind == FaultKind::NicDown);
        }
    };
    numbered(ComponentClass::Nic, FaultKind::NicDown, FaultTargetKind::Nic, scopes.nic);
    numbered(ComponentClass::Gpu, FaultKind::GpuDown, FaultTargetKind::Gpu, scopes.gpu);
    numbered(ComponentClass::Node, FaultKind::NodeDown, FaultTargetKind::Node, scopes.node);
    listed.resize(plan.groups.size());
    for (std::size_t g = 0; g < plan.groups.size(); ++g) {
        auto& m = listed[g];
        plan.groups[g].count = m.size();
        RandomStream rng(s.seed, "availability-representatives", g);
        for (std::size_t j = 0; j + 1 < m.size(); ++j)
            std::swap(m[j], m[j + rng.below(m.size() - j)]);
        // Representatives of an instance's modes: instance 0's parts first, in that order.
        std::stable_partition(m.begin(), m.end(), [](const Member& x) {
            return !x.serves.empty() && x.serves.front() == 0;
        });
        for (Member& x : m) {
            plan.members[g].push_back(std::move(x.spec));
            plan.groups[g].member_instances.push_back(std::move(x.serves));
            plan.cuts_off[g].push_back(x.cuts_off ? 1 : 0);
        }
    }
    return plan;
}

// The faults that stand for a mode: each group's first parts, lost from the start. A GPU
// representative inside a node that is out is passed over (the node already loses it).
std::vector<FaultSpec> faults_of(const Plan& plan, const FailureMode& mode) {
    std::set<std::uint64_t> nodes_out;
    for (std::size_t g = 0; g < plan.groups.size(); ++g)
        if (plan.groups[g].cls == ComponentClass::Node)
            for (std::uint32_t j = 0; j < mode[g]; ++j) nodes_out.insert(plan.members[g][j].index);
    std::vector<FaultSpec> out;
    for (std::size_t g = 0; g < plan.groups.size(); ++g) {
        std::uint32_t taken = 0;
        for (const FaultSpec& m : plan.members[g]) {
            if (taken == mode[g]) break;
            if (plan.groups[g].cls == ComponentClass::Gpu &&
                nodes_out.count(m.index / plan.gpus_per_node))
                continue;
            out.push_back(m);
            ++taken;
        }
    }
    for (std::size_t i = 0; i < out.size(); ++i) out[i].key = fmt::format("faults[{}]", i);
    return out;
}

std::string target_text(const FaultSpec& f) {
    const std::string_view kind = kFaultKindNames[static_cast<std::size_t>(f.kind)];
    if (f.target == FaultTargetKind::Link)
        return fmt::format("{} {}-{}#{}", kind, f.a, f.b, f.cable);
    return fmt::format("{} {}-{}", kind, kFaultTargetNames[static_cast<std::size_t>(f.target)],
                       f.index);
}

// With several instances a lost GPU or node stops its instances without a run (the faults
// machinery loses GPUs of one EP group only): what on_rank_loss: fail gives. So does a part that
// cuts a NIC off, whose run the faults fail or stall (DeepEP and NCCL abort): there the run
// would be the whole cluster's step, to learn that 0.
bool stops_without_run(const Plan& plan, const FailureMode& mode) {
    if (plan.instances < 2) return false;
    for (std::size_t g = 0; g < plan.groups.size(); ++g) {
        if (mode[g] == 0) continue;
        const ComponentClass c = plan.groups[g].cls;
        if (c == ComponentClass::Gpu || c == ComponentClass::Node) return true;
        for (std::uint32_t j = 0; j < mode[g] && j < plan.cuts_off[g].size(); ++j)
            if (plan.cuts_off[g][j]) return true;
    }
    return false;
}

struct ModeRun {
    std::string status;
    bool simulated = true;
    double tokens_per_s_per_gpu = 0;
    double step_ms = 0;
    std::vector<std::string> faults;
    double wall_s = 0;
};

}  // namespace

Json run_availability(const Scenario& s, bool progress) {
    if (s.serving.set)
        throw s.error_at("serving",
                         "availability of a serving run is not built (expected a MoE step "
                         "scenario: workload.kind: moe without serving:)");
    if (s.workload.kind != "moe")
        throw s.error_at("workload.kind",
                         "availability measures a MoE step's tokens/s (expected workload.kind: "
                         "moe)");
    if (!s.faults.empty())
        throw s.error_at("faults",
                         "availability draws its own failures (expected no faults: list; "
                         "docs/availability.md)");
    // Several EP groups are several instances, each stopped and restarted on its own. A lost
    // GPU in one of them is not simulated from its copies (the faults machinery serves one
    // group's); it stops its instance, as DeepEP and NCCL do without copies.
    if (s.workload.ep_groups > 1 && !s.workload.rank_loss_fails)
        throw s.error_at(s.positions.count("workload.on_rank_loss") ? "workload.on_rank_loss"
                                                                    : "workload.redundant_experts",
                         "with several EP groups a lost GPU stops its instance: serving its "
                         "experts from their copies is not built for several groups (expected "
                         "workload.on_rank_loss: fail)");
    if (s.sim.replicates > 1)
        throw s.error_at("sim.replicates",
                         "availability's sampled days are its replicates (expected 1)");
    const auto& a = s.availability;
    Scenario healthy = s;
    // Where cables, switches or NICs can fail, every mode runs with the transport a lost cable
    // needs (ACKs and timers), the healthy one too, so that a mode's difference is its
    // failures'. Without them the healthy mode is the plain run.
    for (ComponentClass c : {ComponentClass::Cable, ComponentClass::Switch, ComponentClass::Nic})
        if (a.rates[static_cast<std::size_t>(c)].per_year > 0) healthy.network.reliable = true;
    const std::string phase(phase_name(s.workload.phase));

    const auto started = std::chrono::steady_clock::now();
    PreparedRun prepared = prepare_run(healthy);
    const Plan plan = plan_of(healthy, prepared.fabric);
    DayOptions days;
    days.hours = a.hours;
    days.days = a.days;
    days.restart_hours = a.restart_minutes / 60.0;
    days.restart_below = a.restart_below;
    days.max_modes = a.max_modes;
    days.instances = plan.instances;
    days.seed = s.seed;
    // Before anything runs: how many distinct modes the days meet (each a run).
    const std::size_t met = sampled_modes(plan.groups, days).size();
    if (met > a.max_modes)
        throw s.error_at("availability.max_modes",
                         fmt::format("the {} sampled days meet {} distinct failure modes, each a "
                                     "packet-level run (expected at most {}: raise max_modes, "
                                     "or sample fewer days)",
                                     a.days, met, a.max_modes));
    if (progress)
        fmt::print(stderr,
                   "clustersim: availability: {} sampled days of {} h meet {} distinct failure "
                   "modes (the healthy one included): a run each, unless decided without one\n",
                   a.days, format_number(a.hours), met);

    RunOutcome base = execute_settled(healthy, prepared, false);
    const double healthy_wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    Json results = std::move(base.results);
    if (results.value("status", "") != "completed")
        throw s.error_at("workload",
                         fmt::format("the healthy step did not complete ({}): there is nothing "
                                     "to degrade (expected a scenario that runs; clustersim run "
                                     "says why)",
                                     results.value("status", "")));
    // Every mode runs the layers the healthy run settled on: a mode's difference is then its
    // failures', not a different extrapolation.
    if (const Json* layers = json_at(results, phase + ".simulated_layers");
        layers && layers->is_number_unsigned())
        healthy.workload.simulated_layers = layers->get<std::uint32_t>();
    {
        PreparedRun drop = std::move(prepared);  // its memory back before the modes run
    }
    std::vector<ModeRun> runs;
    auto per_gpu = [&](const Json& r) {
        const Json* v = json_at(r, phase + ".tokens_per_s_per_gpu");
        return r.value("status", "") == "completed" && v && v->is_number() ? v->get<double>() : 0.0;
    };
    const ModeThroughput throughput = [&](const FailureMode& mode) {
        ModeRun run;
        if (runs.empty()) {  // the healthy mode: the run above
            run.status = results.value("status", "");
            run.tokens_per_s_per_gpu = per_gpu(results);
            if (const Json* v = json_at(results, phase + ".step_ms"); v && v->is_number())
                run.step_ms = v->get<double>();
            run.wall_s = healthy_wall_s;
        } else if (stops_without_run(plan, mode)) {
            run.status = "failed";
            run.simulated = false;
            for (const FaultSpec& f : faults_of(plan, mode)) run.faults.push_back(target_text(f));
            if (progress)
                fmt::print(stderr,
                           "clustersim: availability: mode {} ({}): stops its instance, without "
                           "a run\n",
                           runs.size() + 1, mode_label(plan.groups, mode));
        } else {
            const auto t0 = std::chrono::steady_clock::now();
            Scenario m = healthy;
            m.faults = faults_of(plan, mode);
            for (const FaultSpec& f : m.faults) run.faults.push_back(target_text(f));
            PreparedRun p = prepare_run(m);
            const RunOutcome o = execute_settled(m, p, false);
            run.status = o.results.value("status", "");
            // A run stopped by a limit says nothing about the mode: the limit is wrong.
            if (run.status == "time_limit" || run.status == "event_limit")
                throw s.error_at(run.status == "time_limit" ? "sim.max_time_us" : "sim.max_events",
                                 fmt::format("the run of failure mode {} stopped at this limit "
                                             "(expected a limit every mode's run fits in)",
                                             mode_label(plan.groups, mode)));
            run.tokens_per_s_per_gpu = per_gpu(o.results);
            if (const Json* v = json_at(o.results, phase + ".step_ms"); v && v->is_number())
                run.step_ms = v->get<double>();
            run.wall_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (progress)
                fmt::print(stderr,
                           "clustersim: availability: mode {} ({}): {}, {:.4g} tokens/s "
                           "per GPU, {:.1f} s\n",
                           runs.size() + 1, mode_label(plan.groups, mode), run.status,
                           run.tokens_per_s_per_gpu, run.wall_s);
        }
        runs.push_back(run);
        return run.tokens_per_s_per_gpu;
    };
    AvailabilityEstimate est;
    try {
        est = estimate_availability(plan.groups, days, throughput);
    } catch (const TooManyModes& e) {
        throw s.error_at("availability.max_modes",
                         std::string(e.what()) + " (expected at most max_modes: raise it)");
    }

    // The cluster's price, as a sweep prices it: the fabric and its servers.
    const ClusterCost cluster = cluster_cost_of(s, results);
    // The step's GPUs deliver the tokens (its tokens/s are per GPU of the step); the whole
    // cluster is paid for.
    const double gpus = static_cast<double>(s.workload.ep_size) * s.workload.ep_groups;
    const double per_day = 24.0 / a.hours;  // a period's hours and counts, per 24 h
    const double seconds = a.amortisation_years * kHoursPerYear * 3600.0;
    auto usd_per_mtok = [&](double per_gpu_rate) -> Json {
        const double tokens = per_gpu_rate * gpus * seconds;
        return tokens > 0 ? Json(cluster.usd / tokens * 1e6) : Json(nullptr);
    };

    Json av;
    av["days"] = a.days;
    av["hours_per_day"] = a.hours;
    av["restart_minutes"] = a.restart_minutes;
    av["restart_below"] = a.restart_below;
    av["amortisation_years"] = a.amortisation_years;
    Json groups = Json::array();
    for (const auto& g : plan.groups) {
        // How local a failure of the group is: the instances its parts serve, on average, and
        // the parts each instance depends on.
        double served = 0;
        std::vector<std::uint64_t> per_instance(plan.instances, 0);
        for (const auto& m : g.member_instances) {
            served += static_cast<double>(m.size());
            for (std::uint32_t i : m) ++per_instance[i];
        }
        groups.push_back(
            {{"class", std::string(kComponentClassNames[static_cast<std::size_t>(g.cls)])},
             {"tier", g.tier},
             {"count", g.count},
             {"instances_per_part", g.count > 0 ? served / static_cast<double>(g.count) : 0.0},
             {"parts_per_instance", per_instance},
             {"per_year", g.per_hour * kHoursPerYear},
             {"repair_hours", g.repair_hours},
             {"failures_per_day", static_cast<double>(g.count) * g.per_hour * 24.0}});
    }
    av["groups"] = std::move(groups);
    av["gpus"] = gpus;
    av["instances"] = plan.instances;
    av["healthy_tokens_per_s_per_gpu"] = est.healthy_tokens_per_s;
    av["tokens_per_s_per_gpu"] = est.mean_tokens_per_s;
    av["tokens_per_s_per_gpu_se"] = est.se_tokens_per_s;
    av["healthy_tokens_per_s"] = est.healthy_tokens_per_s * gpus;
    av["tokens_per_s"] = est.mean_tokens_per_s * gpus;
    av["tokens_per_s_se"] = est.se_tokens_per_s * gpus;
    av["tokens_per_day"] = est.mean_tokens_per_s * gpus * 24.0 * 3600.0;
    av["delivered_fraction"] = est.healthy_tokens_per_s > 0
                                   ? Json(est.mean_tokens_per_s / est.healthy_tokens_per_s)
                                   : Json(nullptr);
    av["degraded_hours_per_day"] = est.degraded_hours * per_day;
    av["down_hours_per_day"] = est.down_hours * per_day;
    av["restart_hours_per_day"] = est.restart_hours * per_day;
    av["restarts_per_day"] = est.restarts * per_day;
    av["cluster_cost_usd"] = cluster.usd;
    av["usd_per_million_tokens"] = usd_per_mtok(est.mean_tokens_per_s);
    av["healthy_usd_per_million_tokens"] = usd_per_mtok(est.healthy_tokens_per_s);
    av["tokens_per_s_per_musd"] =
        cluster.usd > 0 ? tokens_per_s_per_musd(est.mean_tokens_per_s, gpus, cluster.usd) : 0.0;
    av["healthy_tokens_per_s_per_musd"] =
        cluster.usd > 0 ? tokens_per_s_per_musd(est.healthy_tokens_per_s, gpus, cluster.usd) : 0.0;
    av["modes_met"] = est.modes.size();
    av["mode_simulations"] =
        std::count_if(runs.begin(), runs.end(), [](const ModeRun& m) { return m.simulated; });
    // The modes, worst first: tokens lost per day against healthy.
    std::vector<std::size_t> order(est.modes.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto lost = [&](std::size_t i) {
        const ModeTally& t = est.modes[i];
        return ((est.healthy_tokens_per_s - t.tokens_per_s) * t.hours +
                est.healthy_tokens_per_s * t.restart_hours) *
               gpus / a.days * per_day * 3600.0;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return lost(x) > lost(y); });
    Json modes = Json::array();
    for (std::size_t i : order) {
        const ModeTally& t = est.modes[i];
        Json m;
        m["mode"] = mode_label(plan.groups, t.mode);
        Json parts = Json::object();
        for (std::size_t g = 0; g < plan.groups.size(); ++g)
            if (t.mode[g] > 0) parts[plan.groups[g].label()] = t.mode[g];
        m["parts_out"] = std::move(parts);
        m["faults"] = runs[i].faults;
        m["status"] = runs[i].status;
        m["simulated"] = runs[i].simulated;
        m["tokens_per_s_per_gpu"] = t.tokens_per_s;
        m["step_ms"] = runs[i].step_ms;
        m["share_of_healthy"] = est.healthy_tokens_per_s > 0
                                    ? Json(t.tokens_per_s / est.healthy_tokens_per_s)
                                    : Json(nullptr);
        m["hours_per_day"] = t.hours / a.days * per_day;
        m["restart_hours_per_day"] = t.restart_hours / a.days * per_day;
        m["occurrences_per_day"] =
            static_cast<double>(t.occurrences + t.restarts) / a.days * per_day;
        m["restarts_per_day"] = static_cast<double>(t.restarts) / a.days * per_day;
        m["tokens_lost_per_day"] = lost(i);
        m["wall_s"] = runs[i].wall_s;
        modes.push_back(std::move(m));
    }
    av["modes"] = std::move(modes);
    results["availability"] = std::move(av);
    return results;
}

std::vector<std::string> availability_result_keys() {
    return {"availability.healthy_tokens_per_s_per_gpu",
            "availability.tokens_per_s_per_gpu",
            "availability.tokens_per_s_per_gpu_se",
            "availability.healthy_tokens_per_s",
            "availability.tokens_per_s",
            "availability.tokens_per_s_se",
            "availability.tokens_per_day",
            "availability.delivered_fraction",
            "availability.degraded_hours_per_day",
            "availability.down_hours_per_day",
            "availability.restart_hours_per_day",
            "availability.restarts_per_day",
            "availability.cluster_cost_usd",
            "availability.usd_per_million_tokens",
            "availability.healthy_usd_per_million_tokens",
            "availability.tokens_per_s_per_musd",
            "availability.healthy_tokens_per_s_per_musd",
            "availability.mode_simulations",
            "availability.modes_met",
            "availability.instances"};
}

std::string availability_table(const Json& r) {
    const Json& a = r["availability"];
    auto num = [](const Json& v) { return v.is_number() ? v.get<double>() : 0.0; };
    std::string out =
        fmt::format("{} (seed {}): availability over {} sampled periods of {} h\n",
                    r.value("scenario", std::string()), r.value("seed", std::uint64_t{0}),
                    a["days"].get<std::uint64_t>(), format_number(num(a["hours_per_day"])));
    out += "parts (count, failures per part-year, repair hours, failures per day):\n";
    for (const auto& g : a["groups"])
        out += fmt::format(
            "  {:<22} {:>7} {:>9.4g} {:>6.3g} {:>9.3g}\n",
            fmt::format("{} {}", g["class"].get<std::string>(), g["tier"].get<std::string>()),
            g["count"].get<std::uint64_t>(), num(g["per_year"]), num(g["repair_hours"]),
            num(g["failures_per_day"]));
    out += fmt::format(
        "delivered {:.6g} tokens/s (standard error {:.3g}), {:.4f} % of healthy {:.6g}\n",
        num(a["tokens_per_s"]), num(a["tokens_per_s_se"]), 100.0 * num(a["delivered_fraction"]),
        num(a["healthy_tokens_per_s"]));
    out += fmt::format(
        "per day: degraded {:.4g} h, down {:.4g} h (restarting {:.4g} h), {:.4g} restarts\n",
        num(a["degraded_hours_per_day"]), num(a["down_hours_per_day"]),
        num(a["restart_hours_per_day"]), num(a["restarts_per_day"]));
    out += fmt::format(
        "cost: ${:.4g} per million delivered tokens (healthy ${:.4g}), the cluster's ${:.4g} M "
        "over {} years\n",
        num(a["usd_per_million_tokens"]), num(a["healthy_usd_per_million_tokens"]),
        num(a["cluster_cost_usd"]) / 1e6, format_number(num(a["amortisation_years"])));
    out += fmt::format(
        "{} failure modes met, {} of them simulated; worst first (tokens lost per "
        "day):\n",
        a["modes_met"].get<std::uint64_t>(), a["mode_simulations"].get<std::uint64_t>());
    out += fmt::format("  {:<40} {:>10} {:>8} {:>10} {:>9} {:>12}\n", "mode", "status", "share",
                       "h/day", "times/day", "lost/day");
    std::size_t shown = 0;
    for (const auto& m : a["modes"]) {
        if (++shown > 12) break;
        std::string label = m["mode"].get<std::string>();
        if (label.size() > 40) label = label.substr(0, 37) + "...";
        out += fmt::format("  {:<40} {:>10} {:>7.2f}% {:>10.4g} {:>9.3g} {:>12.4g}\n", label,
                           m["status"].get<std::string>(), 100.0 * num(m["share_of_healthy"]),
                           num(m["hours_per_day"]) + num(m["restart_hours_per_day"]),
                           num(m["occurrences_per_day"]), num(m["tokens_lost_per_day"]));
    }
    return out;
}

}  // namespace clustersim
