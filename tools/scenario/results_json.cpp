#include "tools/scenario/results_json.hpp"

#include <map>

#include "traffic/collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <variant>

#include "sim/percentiles.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/build_info.hpp"
#include "tools/scenario/csv_writer.hpp"
#include "tools/scenario/results_csv.hpp"

namespace clustersim {
namespace {

const char* status_name(SimulationResult::Status s) {
    switch (s) {
        case SimulationResult::Status::Completed:
            return "completed";
        case SimulationResult::Status::Stalled:
            return "stalled";
        case SimulationResult::Status::TimeLimit:
            return "time_limit";
        case SimulationResult::Status::EventLimit:
            return "event_limit";
        case SimulationResult::Status::Failed:
            return "failed";
    }
    return "";
}

// Collectives: nccl-tests' algbw and busbw (nccl_bandwidth). An incast: the receiver's goodput.
// Others: bytes per sending endpoint / T.
std::pair<double, double> bandwidth_GBps(const Scenario& s, const Workload& w, double makespan_s,
                                         std::uint32_t endpoints) {
    if (makespan_s <= 0 || w.messages.empty()) return {0.0, 0.0};
    const double total = static_cast<double>(w.total_bytes());
    static const std::map<std::string, CollectiveKind> collectives = {
        {"alltoall", CollectiveKind::AllToAll},
        {"allreduce", CollectiveKind::AllReduce},
        {"allgather", CollectiveKind::AllGather},
        {"reducescatter", CollectiveKind::ReduceScatter}};
    if (const auto c = collectives.find(s.workload.kind); c != collectives.end()) {
        const BusBandwidth b =
            nccl_bandwidth(c->second, endpoints, s.workload.message_bytes, makespan_s);
        return {b.algbw_GBps, b.busbw_GBps};
    }
    if (s.workload.kind == "incast") {
        const double bw = total / makespan_s / 1e9;
        return {bw, bw};
    }
    std::set<std::uint32_t> senders;
    for (const auto& m : w.messages) senders.insert(m.src);
    const double bw = total / static_cast<double>(senders.size()) / makespan_s / 1e9;
    return {bw, bw};
}

double round_to(double v, double quantum) {
    return std::round(v / quantum) * quantum;
}

}  // namespace

ClusterCost cluster_cost_of(const Scenario& s, const Json& results) {
    auto number = [&](std::string_view path) {
        const Json* v = json_at(results, path);
        return v && v->is_number() ? v->get<double>() : 0.0;
    };
    return cluster_cost(number("topology.cost_usd"), number("topology.endpoints"),
                        s.cluster.nics_per_node, s.cost.server_usd, s.cluster.bare);
}

Json inventory_json(const Scenario& s, const Topology& t, const CostBreakdown& cost) {
    const Inventory& inv = t.inventory;
    Json j;
    j["topology"] = t.kind;
    j["endpoints"] = inv.endpoints;
    j["switches"] = inv.switches;
    j["links"] = inv.switch_links;
    j["cost_usd"] = cost.total_usd;
    j["cost_per_endpoint_usd"] = cost.per_endpoint_usd;
    j["max_hops"] = inv.max_hops;
    j["constructible"] = inv.constructible;
    j["endpoint_links"] = inv.endpoint_links;
    Json tiers = Json::object();
    for (const auto& tier : inv.tiers) tiers[tier.name] = tier.switches;
    j["switches_by_tier"] = tiers;
    j["max_endpoints"] = inv.max_endpoints;
    j["virtual_lanes"] = t.virtual_lanes;
    if (t.planes > 1) j["planes"] = t.planes;
    if (t.pod_nics > 0) {  // pods with nothing between them
        j["pods"] = s.topology.pods;
        j["pod_endpoints"] = t.pod_nics;
    }
    j["switch"] = s.topology.switch_preset;
    j["switch_radix"] = s.topology.switch_radix;
    j["link_rate_gbps"] = s.network.link_rate_gbps;
    j["bisection_gbps"] = inv.bisection_gbps;
    j["bisection"] = inv.bisection_exact ? "exact" : "bound";
    Json cables = Json::object();
    for (const auto& c : inv.cables) cables[c.kind] = c.count;
    j["cables"] = cables;
    j["transceivers"] = inv.transceivers;
    j["endpoints_per_rack"] = inv.endpoints_per_rack;
    j["top_of_rack_switches"] = inv.top_of_rack_switches;
    Json cost_parts = Json::object();
    cost_parts["switches_usd"] = cost.switches_usd;
    for (const auto& [kind, usd] : cost.cables_usd) cost_parts[kind + "_usd"] = usd;
    j["cost_breakdown"] = cost_parts;
    if (!inv.note.empty()) j["note"] = inv.note;
    return j;
}

Json load_json(const Scenario& s, const Topology& t, const Topology& simulated,
               const SimulationResult& r) {
    const std::uint32_t nics = t.graph.endpoint_count();
    const NicLoad load = nic_load(t, simulated, r);
    const auto& sent = load.sent;
    const auto& received = load.received;
    const auto& rate_bps = load.rate_bps;
    const std::uint32_t per_node = std::max<std::uint32_t>(1, s.cluster.nics_per_node);
    std::vector<std::uint64_t> node((nics + per_node - 1) / per_node, 0);
    std::uint64_t total = 0, hot = 0;
    std::uint32_t hot_nic = 0;
    double busy_max_us = 0;
    for (std::uint32_t n = 0; n < nics; ++n) {
        const std::uint64_t b = sent[n] + received[n];
        total += b;
        node[n / per_node] += b;
        if (b > hot) {
            hot = b;
            hot_nic = n;
        }
        // Busy: the larger direction's wire bytes at the NIC's rate (all its ports).
        if (rate_bps[n] > 0)
            busy_max_us =
                std::max(busy_max_us, static_cast<double>(std::max(sent[n], received[n])) * 8 /
                                          rate_bps[n] * 1e6);
    }
    const auto hot_node =
        static_cast<std::uint32_t>(std::max_element(node.begin(), node.end()) - node.begin());
    auto share = [&](std::uint64_t b) {
        return total ? static_cast<double>(b) / static_cast<double>(total) : 0.0;
    };
    Json l;
    l["nic_bytes_total"] = total;  // wire bytes, sent + received, over every NIC
    l["nic_bytes_max"] = hot;
    l["nic_bytes_mean"] = nics ? static_cast<double>(total) / nics : 0.0;
    l["hottest_nic"] = hot_nic;
    l["hottest_nic_share"] = share(hot);
    l["nic_busy_us_max"] = busy_max_us;
    l["node_bytes_max"] = node.empty() ? 0 : node[hot_node];
    l["hottest_node"] = hot_node;
    l["hottest_node_share"] = node.empty() ? 0.0 : share(node[hot_node]);
    return l;
}

const Json* json_at(const Json& j, std::string_view path) {
    const Json* cur = &j;
    std::size_t from = 0;
    while (from <= path.size()) {
        const std::size_t dot = std::min(path.find('.', from), path.size());
        const std::string part(path.substr(from, dot - from));
        if (!cur->is_object() || !cur->contains(part)) return nullptr;
        cur = &(*cur)[part];
        from = dot + 1;
    }
    return cur;
}

Json resolved_scenario_json(const Scenario& s) {
    Json out = Json::object();
    for (const auto& [path, value] : s.resolved) {
        Json* at = &out;
        std::size_t from = 0;
        while (true) {
            const std::size_t dot = path.find('.', from);
            std::string part = path.substr(from, dot == std::string::npos ? dot : dot - from);
            // `faults[2]`: element 2 of the list `faults`.
            std::size_t index = 0;
            bool element = false;
            if (const auto b = part.find('['); b != std::string::npos && part.back() == ']') {
                index = std::stoul(part.substr(b + 1, part.size() - b - 2));
                part = part.substr(0, b);
                element = true;
            }
            if (!at->is_object() && !at->is_null()) break;  // a value where a section would be
            Json* next = &(*at)[part];
            if (element) {
                if (!next->is_array()) *next = Json::array();
                while (next->size() <= index) next->push_back(Json::object());
                next = &(*next)[index];
            }
            if (dot == std::string::npos) {
                std::visit([&](const auto& v) { *next = v; }, value);
                break;
            }
            at = next;
            from = dot + 1;
        }
    }
    return out;
}

Json tool_json() {
    const BuildInfo& b = build_info();
    return {{"version", b.version}, {"commit", b.commit}, {"build", b.build}};
}

Json run_results_json(const Scenario& s, const Topology& t, const Topology& simulated,
                      std::uint32_t endpoints, const Workload& w, const SimulationResult& r) {
    Json j;
    j["tool"] = tool_json();
    j["resolved_scenario"] = resolved_scenario_json(s);
    j["scenario"] = s.name;
    j["seed"] = s.seed;
    j["status"] = status_name(r.status);

    Json sim;
    sim["events"] = r.events;
    sim["packets"] = r.counters.packets_sent;
    sim["packet_hops"] = r.counters.packet_hops;
    sim["peak_packets_in_memory"] = r.peak_packets;
    // How the run is cut for windows (docs/architecture.md, "Windows"): the same for any
    // thread count; one partition says why.
    sim["partitions"] = r.partitions;
    // Null on one partition, or on partitions no channel joins (no lookahead bounds them).
    sim["lookahead_ns"] =
        r.partitions > 1 && r.lookahead != Time::never() ? Json(r.lookahead.ns()) : Json(nullptr);
    sim["cut_channels"] = r.cut_channels;
    sim["windows"] = r.windows;
    // What partition balance allows N threads (sim/thread_balance.hpp): windowed events over
    // the busiest thread's, before caches and synchronisation; the same whatever threads ran.
    if (r.partitions > 1 && r.busiest_thread_events[0] > 0) {
        Json bound = Json::object();
        for (std::size_t n = 1; n < ThreadBalance::kThreads.size(); ++n)
            bound[std::to_string(ThreadBalance::kThreads[n])] =
                static_cast<double>(r.busiest_thread_events[0]) /
                static_cast<double>(r.busiest_thread_events[n]);
        sim["thread_speedup_bound"] = bound;
    }
    if (!r.single_partition_reason.empty())
        sim["single_partition_reason"] = r.single_partition_reason;
    if (r.fingerprint) sim["event_fingerprint"] = fmt::format("{:016x}", *r.fingerprint);
    sim["sim_time_us"] = r.end_time.us();
    sim["wall_s"] = r.wall_s;
    sim["events_per_s"] = r.wall_s > 0 ? static_cast<double>(r.events) / r.wall_s : 0.0;
    j["sim"] = sim;

    std::vector<double> latencies;
    latencies.reserve(r.messages.size());
    Time first_start = Time::never(), last_end = Time::zero();
    for (const auto& m : r.messages) {
        if (m.started != Time::never()) first_start = std::min(first_start, m.started);
        if (m.finished == Time::never()) continue;
        latencies.push_back((m.finished - m.started).us());
        last_end = std::max(last_end, m.finished);
    }
    const Summary lat = summarise(latencies);
    Json msgs;
    msgs["count"] = w.messages.size();
    msgs["finished"] = lat.count;
    msgs["bytes"] = w.total_bytes();
    msgs["latency_us"] = {{"min", lat.min}, {"mean", lat.mean}, {"p50", lat.p50},
                          {"p90", lat.p90}, {"p99", lat.p99},   {"max", lat.max}};
    const double makespan_s = first_start == Time::never() || last_end < first_start
                                  ? 0.0
                                  : (last_end - first_start).seconds();
    msgs["makespan_us"] = makespan_s * 1e6;
    j["messages"] = msgs;

    const auto [algbw, busbw] = bandwidth_GBps(s, w, makespan_s, endpoints);
    j["bandwidth"] = {{"algbw_GBps", algbw}, {"busbw_GBps", busbw}};

    Json net;
    net["bytes_sent"] = r.counters.payload_sent;
    net["bytes_delivered"] = r.counters.payload_delivered;
    net["bytes_dropped"] = r.counters.payload_dropped;
    net["bytes_in_flight"] = r.payload_in_flight;
    net["packets_dropped"] = r.counters.packets_dropped;
    net["pfc_pauses"] = r.counters.pfc_pauses;
    net["pfc_paused_us"] = r.pfc_paused.us();
    net["pfc_paused_max_port_us"] = r.pfc_paused_max.us();
    net["pfc_headroom_drops"] = r.counters.pfc_headroom_drops;
    net["ecn_marks"] = r.counters.ecn_marks;
    if (s.sim.sample_us > 0)
        j["samples"] = {{"period_us", s.sim.sample_us},
                        {"rows", r.queue_samples.size()},
                        {"truncated", r.samples_truncated},
                        {"file", "queues.csv"}};
    // Per tier over time (tiers.csv): the period the run ended at, after doublings.
    j["tier_series"] = {{"period_us", r.tiers.period().us()},
                        {"points", r.tiers.points()},
                        {"tiers", r.tiers.tiers().size()},
                        {"file", "tiers.csv"}};
    net["cnps"] = r.counters.cnps;
    net["bytes_redundant"] = r.counters.payload_redundant;
    net["packets_retransmitted"] = r.counters.retransmitted_packets;
    net["duplicate_packets"] = r.counters.duplicate_packets;
    net["discarded_out_of_order"] = r.counters.discarded_out_of_order;
    net["acks"] = r.counters.acks;
    net["nacks"] = r.counters.nacks;
    net["retransmit_timeouts"] = r.counters.timeouts;
    net["connections_failed"] = r.counters.connections_failed;
    net["max_link_util"] = round_to(r.max_link_util, 1e-9);
    net["max_queue_bytes"] = r.max_queue_bytes;
    // Path spread over a sample of flows (the first 4,096 messages), where they had a choice.
    const PathSpread& ps = r.path_spread;
    Json spread;
    spread["flows_sampled"] = ps.flows;
    spread["mean_paths"] =
        ps.flows ? round_to(static_cast<double>(ps.paths_sum) / static_cast<double>(ps.flows), 1e-6)
                 : 0.0;
    spread["max_paths"] = ps.max_paths;
    spread["mean_candidates"] =
        ps.flows
            ? round_to(static_cast<double>(ps.candidates_sum) / static_cast<double>(ps.flows), 1e-6)
            : 0.0;
    net["path_spread"] = spread;
    j["network"] = net;

    j["load"] = load_json(s, t, simulated, r);
    j["topology"] = inventory_json(s, t, topology_cost(s, t));
    return j;
}

std::string run_summary_table(const Json& j) {
    const auto& m = j["messages"];
    const auto& lat = m["latency_us"];
    const auto& net = j["network"];
    const auto& sim = j["sim"];
    std::string out;
    out += fmt::format("scenario {}  (seed {}, {} on {} endpoints)  status: {}\n",
                       j["scenario"].get<std::string>(), j["seed"].get<std::uint64_t>(),
                       j["topology"]["topology"].get<std::string>(),
                       j["topology"]["endpoints"].get<std::uint64_t>(),
                       j["status"].get<std::string>());
    out += fmt::format("  {:<26}{:>16}\n", "messages",
                       fmt::format("{} / {}", m["finished"].get<std::uint64_t>(),
                                   m["count"].get<std::uint64_t>()));
    out += fmt::format("  {:<26}{:>16}\n", "bytes", m["bytes"].get<std::uint64_t>());
    out += fmt::format("  {:<26}{:>16.3f}\n", "makespan [us]", m["makespan_us"].get<double>());
    out +=
        fmt::format("  {:<26}{:>16.3f}{:>12.3f}{:>12.3f}\n", "latency p50/p99/max [us]",
                    lat["p50"].get<double>(), lat["p99"].get<double>(), lat["max"].get<double>());
    out += fmt::format("  {:<26}{:>16.2f}{:>12.2f}\n", "algbw / busbw [GB/s]",
                       j["bandwidth"]["algbw_GBps"].get<double>(),
                       j["bandwidth"]["busbw_GBps"].get<double>());
    out +=
        fmt::format("  {:<26}{:>16}\n", "bytes dropped", net["bytes_dropped"].get<std::uint64_t>());
    if (net["pfc_pauses"].get<std::uint64_t>() > 0)
        out +=
            fmt::format("  {:<26}{:>16}{:>12.1f}{:>12.1f}\n", "PFC pauses / us / max port",
                        net["pfc_pauses"].get<std::uint64_t>(), net["pfc_paused_us"].get<double>(),
                        net["pfc_paused_max_port_us"].get<double>());
    if (const auto& ps = net["path_spread"]; ps["flows_sampled"].get<std::uint64_t>() > 0)
        out += fmt::format("  {:<26}{:>16.2f}{:>12.2f}\n", "paths per flow / choices",
                           ps["mean_paths"].get<double>(), ps["mean_candidates"].get<double>());
    if (net["ecn_marks"].get<std::uint64_t>() + net["cnps"].get<std::uint64_t>() > 0)
        out += fmt::format("  {:<26}{:>16}{:>12}\n", "ECN marks / CNPs",
                           net["ecn_marks"].get<std::uint64_t>(), net["cnps"].get<std::uint64_t>());
    if (net["acks"].get<std::uint64_t>() + net["nacks"].get<std::uint64_t>() > 0)
        out += fmt::format("  {:<26}{:>16}{:>12}{:>12}\n", "resent pkts / NACKs / RTOs",
                           net["packets_retransmitted"].get<std::uint64_t>(),
                           net["nacks"].get<std::uint64_t>(),
                           net["retransmit_timeouts"].get<std::uint64_t>());
    out += fmt::format("  {:<26}{:>15.1f}%\n", "max link utilisation",
                       100.0 * net["max_link_util"].get<double>());
    out +=
        fmt::format("  {:<26}{:>16.3f}\n", "simulated time [us]", sim["sim_time_us"].get<double>());
    if (j.contains("load")) {
        const auto& l = j["load"];
        out += fmt::format(
            "  {:<26}{:>15.1f}%   (NIC {}; node {}: {:.1f}%)\n", "hottest NIC, share",
            100.0 * l["hottest_nic_share"].get<double>(), l["hottest_nic"].get<std::uint32_t>(),
            l["hottest_node"].get<std::uint32_t>(), 100.0 * l["hottest_node_share"].get<double>());
    }
    for (const char* phase : {"decode", "prefill", "training"}) {
        if (!j.contains(phase)) continue;
        const auto& d = j[phase];
        const bool decode = std::string(phase) == "decode";
        auto ci = [&](const char* key) {
            const std::string k = std::string(key) + "_ci95";
            return d.contains(k) ? fmt::format(" +- {:.3f}", d[k].get<double>()) : std::string();
        };
        if (decode)
            out += fmt::format("  {:<26}{:>16.3f}{}\n", "TPOT [ms]", d["tpot_ms"].get<double>(),
                               ci("tpot_ms"));
        out += fmt::format("  {:<26}{:>16.3f}{}\n", "step [ms]", d["step_ms"].get<double>(),
                           ci("step_ms"));
        if (decode)
            out += fmt::format("  {:<26}{:>16.1f}{:>12.1f}{:>12.2f}\n", "tokens/s GPU/node/user",
                               d["tokens_per_s_per_gpu"].get<double>(),
                               d["tokens_per_s_per_node"].get<double>(),
                               d["tokens_per_s_per_user"].get<double>());
        else
            out += fmt::format("  {:<26}{:>16.1f}{:>12.1f}\n", "tokens/s GPU/node",
                               d["tokens_per_s_per_gpu"].get<double>(),
                               d["tokens_per_s_per_node"].get<double>());
        out += fmt::format("  {:<26}{:>16.1f}{:>12.1f}\n", "dispatch / combine [us]",
                           d["dispatch_us"].get<double>(), d["combine_us"].get<double>());
        if (d.contains("backward_layer_us"))
            out += fmt::format("  {:<26}{:>16.1f}{:>12.1f}\n", "layer fwd / bwd [us]",
                               d["forward_layer_us"].get<double>(),
                               d["backward_layer_us"].get<double>());
        out += fmt::format("  {:<26}{:>16.2f}{:>12.2f}{:>12.2f}\n", "compute/SM loss/comm [ms]",
                           d["compute_ms"].get<double>(), d["compute_slowdown_ms"].get<double>(),
                           d["exposed_comm_ms"].get<double>());
    }
    out += fmt::format("  {:<26}{:>16}\n", "events", sim["events"].get<std::uint64_t>());
    out += fmt::format("  {:<26}{:>16.3g}   ({:.2f} s wall)\n", "events/s",
                       sim["events_per_s"].get<double>(), sim["wall_s"].get<double>());
    return out;
}

std::string queues_csv(const PortGraph& graph, const SimulationResult& r) {
    CsvWriter csv(
        {"time_us", "channel", "from", "to", "queued_bytes", "paused", "drops", "ecn_marks"});
    const auto channels = graph.channels();
    auto node = [](NodeRef n) {
        return fmt::format("{}{}", n.kind == NodeKind::Switch ? "switch:" : "endpoint:", n.index);
    };
    for (const QueueSample& q : r.queue_samples)
        csv.fixed(q.at.us())
            .integer(q.channel)
            .text(node(channels[q.channel].from))
            .text(node(channels[q.channel].to))
            .integer(q.queued_bytes)
            .integer(q.paused ? 1 : 0)
            .integer(q.drops)
            .integer(q.ecn_marks)
            .end_row();
    return csv.str();
}

std::string unfinished_report(const Workload& w, const SimulationResult& r, std::size_t limit) {
    std::string out;
    std::size_t shown = 0, total = 0;
    for (std::uint32_t i = 0; i < w.messages.size(); ++i) {
        const auto& st = r.messages[i];
        if (st.finished != Time::never()) continue;
        ++total;
        if (shown++ >= limit) continue;
        const auto& m = w.messages[i];
        // Why it never started: its own start time lies past the end, or it waits for inputs.
        std::string state = "started";
        const Time own_start = w.start_of(i);
        if (st.started == Time::never())
            state = own_start != Time::never() && own_start > r.end_time
                        ? fmt::format(
                              "not started: its start time {:.3f} us is after the run "
                              "ended",
                              own_start.us())
                        : "never started (waiting for what it depends on)";
        out += fmt::format("  message {} {}->{}: {} of {} bytes received, {}\n", w.label_of(i),
                           m.src, m.dst, r.bytes_received(i, m.bytes), m.bytes, state);
    }
    if (total > limit) out += fmt::format("  ... and {} more\n", total - limit);
    return out;
}

}  // namespace clustersim
