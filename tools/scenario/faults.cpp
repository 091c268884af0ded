#include "tools/scenario/faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>

#include "models/hardware/node_rates.hpp"
#include "sim/random.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/schema.hpp"
#include "topologies/fault_routes.hpp"

namespace clustersim {
namespace {

std::string names_text(std::span<const std::string_view> names) {
    std::string out;
    for (auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

// The target keys each kind accepts.
std::vector<FaultTargetKind> targets_of(FaultKind k) {
    switch (k) {
        case FaultKind::LinkDown:
        case FaultKind::LinkSlow:
        case FaultKind::LinkLatency:
        case FaultKind::LinkLossy:
        case FaultKind::LinkFlap:
            return {FaultTargetKind::Link, FaultTargetKind::Tier};
        case FaultKind::SwitchDown:
            return {FaultTargetKind::Switch};
        case FaultKind::NicDown:
        case FaultKind::NicSlow:
            return {FaultTargetKind::Nic};
        case FaultKind::PlaneDown:
            return {FaultTargetKind::Plane};
        case FaultKind::NodeDown:
            return {FaultTargetKind::Node};
        case FaultKind::GpuSlow:
        case FaultKind::GpuHang:
        case FaultKind::GpuDown:
            return {FaultTargetKind::Gpu};
    }
    return {};
}

std::string target_example(FaultTargetKind t) {
    switch (t) {
        case FaultTargetKind::Link:
            return "{link: [switch-0, switch-40]}";
        case FaultTargetKind::Tier:
            return "{tier: leaf-spine, count: 1}";
        default:
            return fmt::format("{{{}: 0}}", kFaultTargetNames[static_cast<std::size_t>(t)]);
    }
}

}  // namespace

std::vector<FaultSpec> read_faults(const Scenario& s) {
    const KeyValues& v = s.values;
    const std::uint64_t n = v.integer_or("faults", 0);
    std::vector<FaultSpec> out;
    for (std::uint64_t i = 0; i < n; ++i) {
        FaultSpec f;
        f.key = fmt::format("faults[{}]", i);
        const std::string& k = f.key;
        const std::string kind = v.text_or(k + ".kind", "");
        if (kind.empty())
            throw s.error_at(k + ".kind", fmt::format("missing (expected one of: {})",
                                                      names_text(kFaultKindNames)));
        for (std::size_t j = 0; j < kFaultKindNames.size(); ++j)
            if (kFaultKindNames[j] == kind) f.kind = static_cast<FaultKind>(j);
        // Exactly one target, of a sort the kind takes.
        const auto allowed = targets_of(f.kind);
        std::vector<FaultTargetKind> given;
        for (std::size_t t = 0; t < kFaultTargetNames.size(); ++t)
            if (v.has(k + ".target." + std::string(kFaultTargetNames[t])))
                given.push_back(static_cast<FaultTargetKind>(t));
        std::string expected;
        for (auto t : allowed) expected += (expected.empty() ? "" : " or ") + target_example(t);
        if (given.empty())
            throw s.error_at(k + ".target", fmt::format("missing (expected {})", expected));
        if (given.size() > 1)
            throw s.error_at(
                k + ".target",
                fmt::format("names {} and {}: a fault has one target (expected {})",
                            kFaultTargetNames[static_cast<std::size_t>(given[0])],
                            kFaultTargetNames[static_cast<std::size_t>(given[1])], expected));
        f.target = given[0];
        const std::string tkey =
            k + ".target." + std::string(kFaultTargetNames[static_cast<std::size_t>(f.target)]);
        if (std::find(allowed.begin(), allowed.end(), f.target) == allowed.end())
            throw s.error_at(
                tkey, fmt::format("{} does not fail a {} (expected {})", kind,
                                  kFaultTargetNames[static_cast<std::size_t>(f.target)], expected));
        if (v.has(k + ".target.index") && f.target != FaultTargetKind::Link)
            throw s.error_at(k + ".target.index",
                             "picks one of parallel cables, so it goes with link (expected "
                             "{link: [A, B], index: k})");
        if (v.has(k + ".target.count") && f.target != FaultTargetKind::Tier)
            throw s.error_at(k + ".target.count",
                             "counts cables chosen from a tier (expected {tier: T, count: N})");
        switch (f.target) {
            case FaultTargetKind::Link: {
                const std::string both = v.text_or(tkey, "");
                const auto comma = both.find(',');
                f.a = both.substr(0, comma);
                f.b = both.substr(comma + 1);
                f.cable = static_cast<std::uint32_t>(v.integer_or(k + ".target.index", 0));
                break;
            }
            case FaultTargetKind::Tier:
                f.tier = v.text_or(tkey, "");
                f.count = static_cast<std::uint32_t>(v.integer_or(k + ".target.count", 1));
                break;
            default:
                f.index = v.integer_or(tkey, 0);
        }
        f.at_us = v.number_or(k + ".at_us", 0);
        f.until_us = v.number_or(k + ".until_us", -1);
        if (f.ends() && f.until_us <= f.at_us)
            throw s.error_at(k + ".until_us",
                             fmt::format("{} us is not after at_us ({} us) (expected a later time, "
                                         "or no until_us for a fault that lasts)",
                                         format_number(f.until_us), format_number(f.at_us)));
        // The kind's own keys, required where they are the fault, refused where they mean
        // nothing.
        struct Own {
            const char* key;
            std::vector<FaultKind> kinds;
            bool required;
            const char* example;
        };
        const Own own[] = {
            {"rate_factor",
             {FaultKind::LinkSlow, FaultKind::NicSlow},
             f.kind == FaultKind::LinkSlow,
             "0.5"},
            {"add_ns", {FaultKind::LinkLatency}, true, "1000"},
            {"factor", {FaultKind::GpuSlow}, true, "2"},
            {"loss_rate", {FaultKind::LinkLossy}, true, "0.001"},
            {"period_us", {FaultKind::LinkFlap}, true, "1000"},
            {"down_us", {FaultKind::LinkFlap}, true, "100"},
            {"pcie_lanes", {FaultKind::NicSlow}, false, "8"},
            {"pcie_gen", {FaultKind::NicSlow}, false, "4"},
        };
        for (const Own& o : own) {
            const std::string key = k + "." + o.key;
            const bool mine = std::find(o.kinds.begin(), o.kinds.end(), f.kind) != o.kinds.end();
            if (v.has(key) && !mine) {
                std::string kinds;
                for (FaultKind ok : o.kinds)
                    kinds += (kinds.empty() ? "" : " and ") +
                             std::string(kFaultKindNames[static_cast<std::size_t>(ok)]);
                throw s.error_at(key, fmt::format("applies to {} only (expected no {} for {})",
                                                  kinds, o.key, kind));
            }
            if (!v.has(key) && mine && o.required)
                throw s.error_at(k, fmt::format("{} needs {} (expected e.g. {}: {})", kind, o.key,
                                                o.key, o.example));
        }
        f.rate_factor = v.number_or(k + ".rate_factor", 1);
        f.add_ns = v.number_or(k + ".add_ns", 0);
        f.factor = v.number_or(k + ".factor", 1);
        f.loss_rate = v.number_or(k + ".loss_rate", 0);
        f.period_us = v.number_or(k + ".period_us", 0);
        f.down_us = v.number_or(k + ".down_us", 0);
        f.pcie_lanes = static_cast<std::uint32_t>(v.integer_or(k + ".pcie_lanes", 0));
        f.pcie_gen = static_cast<std::uint32_t>(v.integer_or(k + ".pcie_gen", 0));
        if (f.kind == FaultKind::NicSlow && !v.has(k + ".rate_factor") && f.pcie_lanes == 0 &&
            f.pcie_gen == 0)
            throw s.error_at(k,
                             "nic_slow needs rate_factor (its network ports) or pcie_lanes / "
                             "pcie_gen (its PCIe path) (expected e.g. pcie_lanes: 8)");
        if (f.kind == FaultKind::LinkFlap) {
            if (!f.ends())
                throw s.error_at(k,
                                 "link_flap needs until_us: it flaps from at_us to until_us "
                                 "(expected e.g. until_us: 5000)");
            if (f.down_us >= f.period_us)
                throw s.error_at(k + ".down_us",
                                 fmt::format("{} us is not shorter than period_us ({} us) "
                                             "(expected a cable that comes back each cycle)",
                                             format_number(f.down_us), format_number(f.period_us)));
            if ((f.until_us - f.at_us) / f.period_us > 10000)
                throw s.error_at(k + ".period_us",
                                 "more than 10,000 cycles between at_us and until_us (expected a "
                                 "longer period or a shorter window)");
        }
        out.push_back(std::move(f));
    }
    return out;
}

std::vector<std::uint32_t> ranks_lost_from_start(const Scenario& s) {
    std::vector<std::uint32_t> out;
    if (s.workload.rank_loss_fails) return out;
    const std::uint32_t per = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
    for (const FaultSpec& f : s.faults) {
        if (f.at_us > 0) continue;
        if (f.kind == FaultKind::GpuDown) out.push_back(static_cast<std::uint32_t>(f.index));
        if (f.kind == FaultKind::NodeDown)
            for (std::uint32_t g = 0; g < per; ++g)
                out.push_back(static_cast<std::uint32_t>(f.index) * per + g);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void serve_from_copies(ExpertPlacement& placement, std::span<const std::uint32_t> lost) {
    if (placement.second_gpu.empty()) return;
    auto is_lost = [&](std::uint32_t g) { return std::binary_search(lost.begin(), lost.end(), g); };
    for (std::size_t e = 0; e < placement.gpu_of_expert.size(); ++e) {
        std::uint32_t& copy = placement.second_gpu[e];
        if (copy != kNone && is_lost(copy)) copy = kNone;
        if (is_lost(placement.gpu_of_expert[e]) && copy != kNone) {
            placement.gpu_of_expert[e] = copy;
            copy = kNone;
        }
    }
}

namespace {

// A fabric element by name: switch-N (a fabric switch) or nic-N (a fabric endpoint).
std::optional<NodeRef> element(const std::string& name, const PortGraph& g) {
    auto number = [&](std::size_t from, std::uint32_t limit) -> std::optional<std::uint32_t> {
        std::uint32_t i = 0;
        const char* end = name.data() + name.size();
        const auto [p, ec] = std::from_chars(name.data() + from, end, i);
        if (ec != std::errc() || p != end || i >= limit) return std::nullopt;
        return i;
    };
    if (name.rfind("switch-", 0) == 0)
        if (auto i = number(7, g.switch_count())) return NodeRef{NodeKind::Switch, *i};
    if (name.rfind("nic-", 0) == 0)
        if (auto i = number(4, g.endpoint_count())) return NodeRef{NodeKind::Endpoint, *i};
    return std::nullopt;
}

std::string element_name(NodeRef n) {
    return fmt::format("{}-{}", n.kind == NodeKind::Switch ? "switch" : "nic", n.index);
}

std::string tier_of(const Topology& fabric, NodeRef n) {
    if (n.kind == NodeKind::Endpoint) return "nic";
    const std::uint32_t t = fabric.graph.switches()[n.index].tier;
    const auto& tiers = fabric.inventory.tiers;
    return t < tiers.size() ? tiers[t].name : fmt::format("tier{}", t);
}

// Per cable, its channel out of each end, in a graph's numbering (channels are laid out per
// source node in cable order: PortGraph::finalize).
struct CableChannels {
    std::vector<std::uint32_t> ab, ba;
};
CableChannels cable_channels(const PortGraph& g) {
    const auto cables = g.cables();
    CableChannels out{std::vector<std::uint32_t>(cables.size()),
                      std::vector<std::uint32_t>(cables.size())};
    std::vector<std::uint32_t> used(g.vertex_count(), 0);
    for (std::size_t k = 0; k < cables.size(); ++k) {
        out.ab[k] = g.first_channel(cables[k].a) + used[g.vertex(cables[k].a)]++;
        out.ba[k] = g.first_channel(cables[k].b) + used[g.vertex(cables[k].b)]++;
    }
    return out;
}

// The fabric switches of plane `p`: a connected fabric of its own (mpft, dual-plane, shuffle),
// or for a fabric whose planes share spines (mrft's rails) the leaves of the NICs of rail p
// (endpoint e is on rail e mod planes). Empty when p is no plane.
std::vector<std::uint32_t> plane_switches(const Topology& fabric, std::uint32_t p) {
    const PortGraph& g = fabric.graph;
    const std::uint32_t n = g.switch_count();
    std::vector<std::uint32_t> comp(n, kNone);
    std::uint32_t comps = 0;
    for (std::uint32_t s0 = 0; s0 < n; ++s0) {
        if (comp[s0] != kNone) continue;
        std::vector<std::uint32_t> stack{s0};
        comp[s0] = comps;
        while (!stack.empty()) {
            const std::uint32_t s = stack.back();
            stack.pop_back();
            const NodeRef sw{NodeKind::Switch, s};
            for (std::uint32_t c = g.first_channel(sw); c < g.first_channel(sw) + g.channels_of(sw);
                 ++c) {
                const NodeRef to = g.channels()[c].to;
                if (to.kind == NodeKind::Switch && comp[to.index] == kNone) {
                    comp[to.index] = comps;
                    stack.push_back(to.index);
                }
            }
        }
        ++comps;
    }
    std::vector<std::uint32_t> out;
    if (comps == fabric.planes) {
        for (std::uint32_t s = 0; s < n; ++s)
            if (comp[s] == p) out.push_back(s);
        return out;
    }
    std::vector<std::uint8_t> in(n, 0);
    for (std::uint32_t e = p; e < g.endpoint_count(); e += fabric.planes) {
        const NodeRef ep{NodeKind::Endpoint, e};
        for (std::uint32_t c = g.first_channel(ep); c < g.first_channel(ep) + g.channels_of(ep);
             ++c)
            if (g.channels()[c].to.kind == NodeKind::Switch) in[g.channels()[c].to.index] = 1;
    }
    for (std::uint32_t s = 0; s < n; ++s)
        if (in[s]) out.push_back(s);
    return out;
}

// Network ports per fabric NIC (endpoint): 1 on mpft or mrft, 2 on dual-plane, more on shuffle.
std::vector<std::uint32_t> ports_per_nic(const PortGraph& g) {
    std::vector<std::uint32_t> ports(g.endpoint_count(), 0);
    for (const auto& c : g.cables())
        for (const NodeRef n : {c.a, c.b})
            if (n.kind == NodeKind::Endpoint) ++ports[n.index];
    return ports;
}

struct DownInterval {
    std::uint32_t fault = 0, cable = 0;
    double at_us = 0, until_us = -1;
};

}  // namespace

ResolvedFaults build_fault_plan(const Scenario& s, const SimulatedFabric& f, const MoeRun* moe) {
    ResolvedFaults out;
    FaultPlan& plan = out.plan;
    plan.faults = static_cast<std::uint32_t>(s.faults.size());
    out.fails.assign(s.faults.size(), {});
    if (s.faults.empty()) return out;
    const Topology& fabric = f.fabric;
    const PortGraph& fg = fabric.graph;
    const PortGraph& sg = f.simulated().graph;
    const CableChannels fc = cable_channels(fg), sc = cable_channels(sg);
    const auto cables = fg.cables();
    std::vector<DownInterval> down;
    auto add = [&](const FaultSpec& spec, std::uint32_t i, FaultActionKind kind, double at_us,
                   std::uint32_t target, double factor, Time delay = Time::zero()) {
        plan.actions.push_back(FaultAction{Time::from_us(at_us), kind, i, target, factor, delay});
        (void)spec;
    };
    for (std::uint32_t i = 0; i < s.faults.size(); ++i) {
        const FaultSpec& spec = s.faults[i];
        const std::string tkey =
            spec.key + ".target." +
            std::string(kFaultTargetNames[static_cast<std::size_t>(spec.target)]);
        // The cables it hits, or its GPU.
        std::vector<std::uint32_t> hit;
        std::string what;
        // Every cable of a switch or a NIC port, said as `switch-8 (16 cables)`.
        auto cables_of = [&](NodeRef n) {
            for (std::uint32_t k = 0; k < cables.size(); ++k)
                if (cables[k].a == n || cables[k].b == n) hit.push_back(k);
            what = fmt::format("{} ({} cable{})", element_name(n), hit.size(),
                               hit.size() == 1 ? "" : "s");
        };
        switch (spec.target) {
            case FaultTargetKind::Link: {
                const auto a = element(spec.a, fg), b = element(spec.b, fg);
                for (const auto& [name, e] : {std::pair{spec.a, a}, std::pair{spec.b, b}})
                    if (!e)
                        throw s.error_at(
                            tkey,
                            fmt::format("no element '{}' in this fabric (expected "
                                        "switch-0 to switch-{} or nic-0 to nic-{})",
                                        name, fg.switch_count() - 1, fg.endpoint_count() - 1));
                std::vector<std::uint32_t> between;
                for (std::uint32_t k = 0; k < cables.size(); ++k)
                    if ((cables[k].a == *a && cables[k].b == *b) ||
                        (cables[k].a == *b && cables[k].b == *a))
                        between.push_back(k);
                if (between.empty())
                    throw s.error_at(tkey, fmt::format("no cable joins {} and {} (expected two "
                                                       "elements a cable joins: links.csv)",
                                                       spec.a, spec.b));
                if (spec.cable >= between.size())
                    throw s.error_at(
                        spec.key + ".target.index",
                        fmt::format("{} is out of range: {} cable{} join {} and {} "
                                    "(expected 0 to {})",
                                    spec.cable, between.size(), between.size() == 1 ? "" : "s",
                                    spec.a, spec.b, between.size() - 1));
                hit.push_back(between[spec.cable]);
                break;
            }
            case FaultTargetKind::Tier: {
                std::vector<std::uint32_t> pool;
                std::set<std::string> pairs;
                // `fabric`: any cable between two fabric switches, whatever their tiers (one
                // target for every kind of fabric in a sweep).
                const bool any = spec.tier == "fabric";
                for (std::uint32_t k = 0; k < cables.size(); ++k) {
                    const std::string ta = tier_of(fabric, cables[k].a),
                                      tb = tier_of(fabric, cables[k].b);
                    pairs.insert(ta + "-" + tb);
                    const bool inside = cables[k].a.kind == NodeKind::Switch &&
                                        cables[k].b.kind == NodeKind::Switch;
                    if (any ? inside : ta + "-" + tb == spec.tier || tb + "-" + ta == spec.tier)
                        pool.push_back(k);
                }
                pairs.insert("fabric");
                if (pool.empty()) {
                    std::string known;
                    for (const auto& p : pairs) known += (known.empty() ? "" : ", ") + p;
                    throw s.error_at(tkey, fmt::format("no cable joins the tiers '{}' in this "
                                                       "fabric (expected one of: {})",
                                                       spec.tier, known));
                }
                if (spec.count > pool.size())
                    throw s.error_at(spec.key + ".target.count",
                                     fmt::format("{} is more than the {} cables of {} (expected "
                                                 "at most {})",
                                                 spec.count, pool.size(), spec.tier, pool.size()));
                // A seeded choice without repeats (partial Fisher-Yates), sorted for reading.
                RandomStream rng(s.seed, "faults", i);
                for (std::uint32_t j = 0; j < spec.count; ++j)
                    std::swap(pool[j], pool[j + rng.below(pool.size() - j)]);
                hit.assign(pool.begin(), pool.begin() + spec.count);
                std::sort(hit.begin(), hit.end());
                break;
            }
            case FaultTargetKind::Switch: {
                if (spec.index >= fg.switch_count())
                    throw s.error_at(tkey, fmt::format("no switch {} in this fabric (expected 0 "
                                                       "to {})",
                                                       spec.index, fg.switch_count() - 1));
                cables_of({NodeKind::Switch, static_cast<std::uint32_t>(spec.index)});
                break;
            }
            case FaultTargetKind::Nic: {
                if (spec.index >= fg.endpoint_count())
                    throw s.error_at(
                        tkey, fmt::format("no NIC {} in this fabric (expected 0 to {})", spec.index,
                                          fg.endpoint_count() - 1));
                cables_of({NodeKind::Endpoint, static_cast<std::uint32_t>(spec.index)});
                break;
            }
            case FaultTargetKind::Plane: {
                if (fabric.planes <= 1)
                    throw s.error_at(tkey, fmt::format("a {} fabric has no planes (expected mpft, "
                                                       "mrft, dual-plane or shuffle)",
                                                       s.topology.kind));
                if (spec.index >= fabric.planes)
                    throw s.error_at(tkey,
                                     fmt::format("no plane {}: this fabric has {} (expected "
                                                 "0 to {})",
                                                 spec.index, fabric.planes, fabric.planes - 1));
                if (fabric.pod_nics != 0)
                    throw s.error_at(
                        tkey, fmt::format("each of the {} pods has its own plane {} "
                                          "(expected switch_down of one pod's plane "
                                          "switch: target {{switch: pod x {} + {}}})",
                                          s.topology.pods, spec.index, fabric.planes, spec.index));
                const auto switches =
                    plane_switches(fabric, static_cast<std::uint32_t>(spec.index));
                std::vector<std::uint8_t> in(fg.switch_count(), 0);
                for (std::uint32_t sw : switches) in[sw] = 1;
                for (std::uint32_t k = 0; k < cables.size(); ++k)
                    if ((cables[k].a.kind == NodeKind::Switch && in[cables[k].a.index]) ||
                        (cables[k].b.kind == NodeKind::Switch && in[cables[k].b.index]))
                        hit.push_back(k);
                what = fmt::format("plane {}: {} switches, {} cables", spec.index, switches.size(),
                                   hit.size());
                break;
            }
            case FaultTargetKind::Node: {
                const std::uint32_t per = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
                if (!f.node_layout() || spec.index >= sg.endpoint_count() / per)
                    throw s.error_at(
                        tkey, fmt::format("no node {} in this run (expected 0 to {})", spec.index,
                                          f.node_layout() ? sg.endpoint_count() / per - 1 : 0));
                what = fmt::format("node {} (gpu-{} to gpu-{})", spec.index, spec.index * per,
                                   spec.index * per + per - 1);
                break;
            }
            case FaultTargetKind::Gpu:
                if (spec.index >= sg.endpoint_count())
                    throw s.error_at(tkey, fmt::format("no GPU {} in this run (expected 0 to {})",
                                                       spec.index, sg.endpoint_count() - 1));
                what = fmt::format("gpu-{}", spec.index);
                break;
            default:
                throw s.error_at(tkey,
                                 "this target is not built yet (expected link, tier, switch "
                                 "or gpu)");
        }
        if (spec.target == FaultTargetKind::Link || spec.target == FaultTargetKind::Tier)
            for (std::uint32_t k : hit)
                what += fmt::format("{}{}-{}", what.empty() || what.back() == ' ' ? "" : ", ",
                                    element_name(cables[k].a), element_name(cables[k].b));
        out.hit.push_back(what);
        auto both = [&](FaultActionKind kind, double at_us, double factor, Time delay) {
            for (std::uint32_t k : hit) {
                add(spec, i, kind, at_us, sc.ab[k], factor, delay);
                add(spec, i, kind, at_us, sc.ba[k], factor, delay);
            }
        };
        const auto gpu = static_cast<std::uint32_t>(spec.index);
        switch (spec.kind) {
            case FaultKind::LinkDown:
            case FaultKind::SwitchDown:
            case FaultKind::NicDown:
            case FaultKind::PlaneDown:
                both(FaultActionKind::ChannelDown, spec.at_us, 1, Time::zero());
                if (spec.ends()) both(FaultActionKind::ChannelUp, spec.until_us, 1, Time::zero());
                for (std::uint32_t k : hit) down.push_back({i, k, spec.at_us, spec.until_us});
                plan.drops = true;
                // DeepEP and NCCL abort on a queue pair's error: losing a plane fails the
                // instance unless a fault-tolerant library reroutes (workload.on_plane_loss).
                // A NIC's loss does the same to its GPU's queue pairs (no bond failover yet).
                if (spec.kind == FaultKind::NicDown ||
                    (spec.kind == FaultKind::PlaneDown && !s.workload.plane_loss_reroutes))
                    add(spec, i, FaultActionKind::Fail, spec.at_us, 0, 1);
                // Rerouted (a fault-tolerant library): single-port NICs (mpft's planes, mrft's
                // rails) send the plane's traffic through another plane's NIC and NVLink, once
                // the host has seen the loss (as a bond would: an assumption); multi-port NICs
                // fail over by their bonds (below).
                if (spec.kind == FaultKind::PlaneDown && s.workload.plane_loss_reroutes) {
                    const NodeLayout* layout = f.node_layout();
                    const std::vector<std::uint32_t> nic_ports = ports_per_nic(fg);
                    const bool single_port = !nic_ports.empty() && nic_ports.front() == 1;
                    if (single_port && (!layout || !layout->pxn))
                        throw s.error_at("workload.on_plane_loss",
                                         "reroute forwards a lost plane's traffic through the "
                                         "node (PXN): it needs a node model with PXN (expected "
                                         "cluster.node such as h800)");
                    if (single_port) {
                        const auto plane = static_cast<std::uint32_t>(spec.index);
                        const double at =
                            spec.at_us == 0 ? 0 : spec.at_us + s.network.bond_failover_us;
                        add(spec, i, FaultActionKind::PlaneReroute, at, plane, 1);
                        // The NIC writes what it now forwards into its GPU's memory, from
                        // which NVLink takes it on: no hop-by-hop credit chain through the
                        // node, which would close a loop (in over NIC, hub, NVLink; out over
                        // NVLink, hub, NIC) and could deadlock a lossless model.
                        const auto sch = sg.channels();
                        for (std::uint32_t c = 0; c < sch.size(); ++c)
                            if (sch[c].from.kind == NodeKind::Switch &&
                                sch[c].to.kind == NodeKind::Switch &&
                                layout->role[sch[c].from.index] == SwitchRole::Nic &&
                                layout->role[sch[c].to.index] == SwitchRole::GpuHub)
                                add(spec, i, FaultActionKind::ChannelSink, at, c, 1);
                        if (spec.ends())
                            add(spec, i, FaultActionKind::PlaneReroute,
                                spec.until_us + s.network.bond_failover_us, plane, 0);
                    }
                }
                break;
            case FaultKind::LinkFlap:
                for (double t = spec.at_us; t < spec.until_us; t += spec.period_us) {
                    const double up = std::min(t + spec.down_us, spec.until_us);
                    both(FaultActionKind::ChannelDown, t, 1, Time::zero());
                    both(FaultActionKind::ChannelUp, up, 1, Time::zero());
                    for (std::uint32_t k : hit) down.push_back({i, k, t, up});
                }
                plan.drops = true;
                break;
            case FaultKind::LinkLossy:
                both(FaultActionKind::ChannelLoss, spec.at_us, spec.loss_rate, Time::zero());
                if (spec.ends()) both(FaultActionKind::ChannelLoss, spec.until_us, 0, Time::zero());
                plan.drops = spec.loss_rate > 0;
                break;
            case FaultKind::NicSlow: {
                if (spec.rate_factor != 1) {
                    both(FaultActionKind::ChannelRate, spec.at_us, spec.rate_factor, Time::zero());
                    if (spec.ends())
                        both(FaultActionKind::ChannelRate, spec.until_us, 1, Time::zero());
                }
                if (spec.pcie_lanes || spec.pcie_gen) {
                    const NodeLayout* layout = f.node_layout();
                    if (!layout)
                        throw s.error_at(spec.key,
                                         "pcie_lanes and pcie_gen slow a node's GPU-NIC "
                                         "path: cluster.node: none has none (expected "
                                         "rate_factor)");
                    NodePreset slow = s.cluster.preset;
                    if (spec.pcie_lanes) slow.pcie_lanes = spec.pcie_lanes;
                    if (spec.pcie_gen) slow.pcie_generation = spec.pcie_gen;
                    const double factor = std::min(
                        1.0, pcie_gbytes_per_s(slow) / pcie_gbytes_per_s(s.cluster.preset));
                    // The NIC's PCIe cables (hub to NIC) in the simulated graph.
                    const NodeRef nic =
                        sg.cables()[hit.front()].a.kind == NodeKind::Switch &&
                                sg.cables()[hit.front()].a.index >= layout->fabric_switches
                            ? sg.cables()[hit.front()].a
                            : sg.cables()[hit.front()].b;
                    const auto scab = sg.cables();
                    for (std::uint32_t k = 0; k < scab.size(); ++k) {
                        const NodeRef other = scab[k].a == nic ? scab[k].b : scab[k].a;
                        if ((scab[k].a == nic || scab[k].b == nic) &&
                            other.kind == NodeKind::Switch &&
                            layout->role[other.index] == SwitchRole::GpuHub)
                            for (const std::uint32_t c : {sc.ab[k], sc.ba[k]}) {
                                add(spec, i, FaultActionKind::ChannelRate, spec.at_us, c, factor);
                                if (spec.ends())
                                    add(spec, i, FaultActionKind::ChannelRate, spec.until_us, c, 1);
                            }
                    }
                    what += fmt::format(" (PCIe at {:.0f} % of its rate)", factor * 100);
                    out.hit.back() = what;
                }
                break;
            }
            case FaultKind::LinkSlow:
                both(FaultActionKind::ChannelRate, spec.at_us, spec.rate_factor, Time::zero());
                if (spec.ends()) both(FaultActionKind::ChannelRate, spec.until_us, 1, Time::zero());
                break;
            case FaultKind::LinkLatency: {
                const Time add_t = Time::from_ps(static_cast<std::int64_t>(spec.add_ns * 1000));
                both(FaultActionKind::ChannelDelay, spec.at_us, 1, add_t);
                // Taken back once what was sent with it has arrived, so packets on a link
                // never overtake each other (the fault lasts add_ns longer).
                if (spec.ends())
                    both(FaultActionKind::ChannelDelay, spec.until_us + spec.add_ns / 1000, 1,
                         Time::zero() - add_t);
                break;
            }
            case FaultKind::GpuSlow:
                add(spec, i, FaultActionKind::GpuSlowdown, spec.at_us, gpu, spec.factor);
                if (spec.ends()) add(spec, i, FaultActionKind::GpuSlowdown, spec.until_us, gpu, 1);
                break;
            case FaultKind::GpuHang:
                add(spec, i, FaultActionKind::GpuSlowdown, spec.at_us, gpu, 0);
                add(spec, i, FaultActionKind::GpuHold, spec.at_us, gpu, 1);
                if (spec.ends()) {
                    add(spec, i, FaultActionKind::GpuSlowdown, spec.until_us, gpu, 1);
                    add(spec, i, FaultActionKind::GpuHold, spec.until_us, gpu, 0);
                }
                break;
            case FaultKind::GpuDown:
            case FaultKind::NodeDown: {
                if (!moe)
                    throw s.error_at(spec.key + ".kind",
                                     "a lost GPU is modelled for moe workloads (expected "
                                     "gpu_hang, or workload.kind: moe)");
                if (s.workload.ep_groups > 1)
                    throw s.error_at(spec.key + ".kind",
                                     "a lost GPU with ep_groups > 1 is not built yet (expected "
                                     "one EP group)");
                const std::uint32_t per = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
                // Placement counts ranks, from the step's first GPU.
                const std::uint64_t first =
                    (spec.kind == FaultKind::GpuDown ? spec.index : spec.index * per) -
                    moe->spec.first_gpu;
                const std::uint64_t count = spec.kind == FaultKind::GpuDown ? 1 : per;
                // Experts still served by a lost GPU after the copies took over have none.
                std::vector<std::uint32_t> orphans;
                const ExpertPlacement& pl = moe->spec.placement;
                for (std::uint32_t e = 0; e < pl.gpu_of_expert.size(); ++e)
                    if (pl.gpu_of_expert[e] >= first && pl.gpu_of_expert[e] < first + count)
                        orphans.push_back(e);
                if (!s.workload.rank_loss_fails && spec.at_us > 0)
                    throw s.error_at(spec.key + ".at_us",
                                     "a lost GPU served from redundant copies is simulated as "
                                     "the steady state after the loss (expected at_us: 0, or "
                                     "workload.on_rank_loss: fail)");
                if (s.workload.rank_loss_fails) {
                    out.fails[i] =
                        "its experts and requests are lost, and NCCL and DeepEP abort "
                        "(workload.on_rank_loss: fail)";
                } else if (!orphans.empty()) {
                    out.fails[i] = fmt::format(
                        "{} of its experts ({}{}) have no redundant copy "
                        "(workload.redundant_experts: {})",
                        orphans.size(), orphans.front(),
                        orphans.size() > 1 ? fmt::format(" to {}", orphans.back()) : "",
                        s.workload.redundant_experts);
                }
                if (!out.fails[i].empty()) add(spec, i, FaultActionKind::Fail, spec.at_us, 0, 1);
                break;
            }
        }
        if (spec.kind == FaultKind::PlaneDown && !s.workload.plane_loss_reroutes)
            out.fails[i] =
                "NCCL and DeepEP abort on its queue pairs' errors "
                "(workload.on_plane_loss: fail)";
        if (spec.kind == FaultKind::NicDown)
            out.fails[i] =
                "NCCL and DeepEP abort on its queue pairs' errors (no NIC bond "
                "failover is modelled)";
    }
    // A NIC bond (several network ports: dual-plane, shuffle) moves its connections off a dead
    // port once its link monitor sees it; its peers stop choosing the plane it left.
    if (f.node_layout()) {
        const std::vector<std::uint32_t> ports = ports_per_nic(fg);
        for (const DownInterval& d : down) {
            const auto& c = cables[d.cable];
            const bool a_nic = c.a.kind == NodeKind::Endpoint,
                       b_nic = c.b.kind == NodeKind::Endpoint;
            if (!a_nic && !b_nic) continue;
            if (ports[a_nic ? c.a.index : c.b.index] < 2) continue;
            const std::uint32_t into_fabric = a_nic ? sc.ab[d.cable] : sc.ba[d.cable];
            const double at = d.at_us == 0 ? 0 : d.at_us + s.network.bond_failover_us;
            plan.actions.push_back(FaultAction{Time::from_us(at), FaultActionKind::BondPort,
                                               d.fault, into_fabric, 1, Time::zero()});
            if (d.until_us >= 0)
                plan.actions.push_back(
                    FaultAction{Time::from_us(d.until_us + s.network.bond_failover_us),
                                FaultActionKind::BondPort, d.fault, into_fabric, 0, Time::zero()});
        }
    }
    if (down.empty()) return out;

    // The fabric's reaction (docs/faults.md): every switch with a choice stops taking a dead
    // port -- ECMP after failover_us, adaptive policies once the port state shows it (static
    // tables cannot) -- and the control plane recomputes the tables on what survives after
    // reroute_us; both again when a cable returns.
    const bool local = s.network.routing != "static";
    const double reroute = s.network.reroute_us;
    const double failover =
        s.network.routing == "ecmp" ? s.network.failover_us : s.network.port_down_us;
    constexpr double kNever = std::numeric_limits<double>::infinity();
    // A fault present from the start (at_us 0) has long been reacted to: the window shows the
    // degraded steady state. One that starts inside it shows the transient.
    auto end_of = [&](const DownInterval& d) { return d.until_us < 0 ? kNever : d.until_us; };
    auto known_from = [&](const DownInterval& d) { return d.at_us == 0 ? 0 : d.at_us + reroute; };
    auto seen_from = [&](const DownInterval& d) { return d.at_us == 0 ? 0 : d.at_us + failover; };
    std::set<double> times;
    for (const DownInterval& d : down) {
        times.insert(known_from(d));
        if (d.until_us >= 0) times.insert(d.until_us + reroute);
        if (local) {
            times.insert(seen_from(d));
            if (d.until_us >= 0) times.insert(d.until_us + failover);
        }
    }
    std::vector<std::uint8_t> known(fg.channel_count()), seen(fg.channel_count());
    for (double t : times) {
        std::fill(known.begin(), known.end(), 0);
        std::fill(seen.begin(), seen.end(), 0);
        bool any_known = false, any_seen = false;
        for (const DownInterval& d : down) {
            if (known_from(d) <= t && t < end_of(d) + reroute) {
                known[fc.ab[d.cable]] = known[fc.ba[d.cable]] = 1;
                any_known = true;
            }
            if (local && seen_from(d) <= t && t < end_of(d) + failover) {
                seen[fc.ab[d.cable]] = seen[fc.ba[d.cable]] = 1;
                any_seen = true;
            }
        }
        ForwardingTables tables = any_known ? rerouted(fg, f.routes, known) : f.routes;
        if (any_seen) tables = without_dead_ports(fg, tables, seen);
        const auto index = static_cast<std::uint32_t>(plan.tables.size());
        plan.tables.push_back(std::move(tables));
        // One action per fault whose reroute this is (its recovery), else one for the first
        // fault the moment belongs to.
        bool placed = false;
        for (const DownInterval& d : down)
            if (known_from(d) == t &&
                std::none_of(plan.actions.begin(), plan.actions.end(), [&](const FaultAction& a) {
                    return a.kind == FaultActionKind::Routes && a.target == index &&
                           a.fault == d.fault;
                })) {
                plan.actions.push_back(FaultAction{Time::from_us(t), FaultActionKind::Routes,
                                                   d.fault, index, 1, Time::zero()});
                placed = true;
            }
        if (!placed)
            plan.actions.push_back(FaultAction{Time::from_us(t), FaultActionKind::Routes,
                                               down.front().fault, index, 0, Time::zero()});
    }
    return out;
}

void check_faults_in_window(const Scenario& s, const SimulationResult& r) {
    for (const FaultSpec& f : s.faults)
        if (f.at_us > r.end_time.us())
            throw s.error_at(f.key + ".at_us",
                             fmt::format("{} us is after the simulated window, which ends at "
                                         "{:.3f} us (expected at most that)",
                                         format_number(f.at_us), r.end_time.us()));
}

Json elements_json(const Topology& fabric) {
    const PortGraph& g = fabric.graph;
    Json out = Json::object();
    Json switches = Json::array();
    for (std::uint32_t i = 0; i < g.switch_count(); ++i)
        switches.push_back({{"name", element_name({NodeKind::Switch, i})},
                            {"tier", tier_of(fabric, {NodeKind::Switch, i})}});
    out["switches"] = std::move(switches);
    out["nics"] = g.endpoint_count();  // nic-0 .. nic-(n-1)
    // Cables: the two ends, and which of the parallel cables between them (target.index).
    Json cables = Json::array();
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint32_t> seen;
    auto key = [&](NodeRef n) {
        return (n.kind == NodeKind::Switch ? 0 : std::uint64_t{1} << 32) | n.index;
    };
    for (const auto& c : g.cables()) {
        const std::uint64_t ka = key(c.a), kb = key(c.b);
        cables.push_back({{"a", element_name(c.a)},
                          {"b", element_name(c.b)},
                          {"index", seen[{std::min(ka, kb), std::max(ka, kb)}]++},
                          {"tiers", tier_of(fabric, c.a) + "-" + tier_of(fabric, c.b)}});
    }
    out["cables"] = std::move(cables);
    return out;
}

Json faults_json(const Scenario& s, const ResolvedFaults& faults, const SimulationResult& r) {
    Json out = Json::array();
    for (std::size_t i = 0; i < s.faults.size(); ++i) {
        const FaultSpec& f = s.faults[i];
        Json j;
        j["kind"] = std::string(kFaultKindNames[static_cast<std::size_t>(f.kind)]);
        j["target"] = i < faults.hit.size() ? faults.hit[i] : std::string();
        j["at_us"] = f.at_us;
        j["until_us"] = f.ends() ? Json(f.until_us) : Json(nullptr);
        const FaultOutcome o = i < r.faults.size() ? r.faults[i] : FaultOutcome{};
        j["packets_lost"] = o.packets_lost;
        j["bytes_rerouted"] = o.bytes_rerouted;
        j["recovered_at_us"] =
            o.recovered_at == Time::never() ? Json(nullptr) : Json(o.recovered_at.us());
        out.push_back(std::move(j));
    }
    return out;
}

}  // namespace clustersim
