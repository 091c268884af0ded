#include "tools/scenario/result_keys.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "tools/scenario/availability.hpp"
#include "tools/scenario/moe_results.hpp"
#include "tools/scenario/results_json.hpp"
#include "tools/scenario/serve_search.hpp"
#include "tools/scenario/serving_run.hpp"

namespace clustersim {
namespace {

// Sections every simulated run writes (results_json.cpp), and the topology's inventory, which
// a cost-only sweep has alone. Families whose members depend on the fabric end in '.'.
constexpr std::array<std::string_view, 52> kRunKeys = {"bandwidth.algbw_GBps",
                                                       "bandwidth.busbw_GBps",
                                                       "load.hottest_nic",
                                                       "load.hottest_nic_share",
                                                       "load.hottest_node",
                                                       "load.hottest_node_share",
                                                       "load.nic_busy_us_max",
                                                       "load.nic_bytes_max",
                                                       "load.nic_bytes_mean",
                                                       "load.nic_bytes_total",
                                                       "load.node_bytes_max",
                                                       "messages.bytes",
                                                       "messages.count",
                                                       "messages.finished",
                                                       "messages.latency_us.",
                                                       "messages.makespan_us",
                                                       "network.acks",
                                                       "network.bytes_delivered",
                                                       "network.bytes_dropped",
                                                       "network.bytes_in_flight",
                                                       "network.bytes_redundant",
                                                       "network.bytes_sent",
                                                       "network.cnps",
                                                       "network.connections_failed",
                                                       "network.discarded_out_of_order",
                                                       "network.duplicate_packets",
                                                       "network.ecn_marks",
                                                       "network.max_link_util",
                                                       "network.max_queue_bytes",
                                                       "network.nacks",
                                                       "network.packets_dropped",
                                                       "network.packets_retransmitted",
                                                       "network.path_spread.",
                                                       "network.pfc_headroom_drops",
                                                       "network.pfc_paused_max_port_us",
                                                       "network.pfc_paused_us",
                                                       "network.pfc_pauses",
                                                       "network.retransmit_timeouts",
                                                       "sim.events",
                                                       "sim.packets",
                                                       "sim.packet_hops",
                                                       "sim.peak_packets_in_memory",
                                                       "sim.partitions",
                                                       "sim.lookahead_ns",
                                                       "sim.cut_channels",
                                                       "sim.windows",
                                                       "sim.thread_speedup_bound.",
                                                       "sim.sim_time_us",
                                                       "sim.memory_estimate_bytes",
                                                       "sim.wall_s",
                                                       "sim.events_per_s",
                                                       "tier_series."};
constexpr std::array<std::string_view, 21> kTopologyKeys = {"topology.bisection_gbps",
                                                            "topology.cables.",
                                                            "topology.cost_breakdown.",
                                                            "topology.cost_per_endpoint_usd",
                                                            "topology.cost_usd",
                                                            "topology.endpoint_links",
                                                            "topology.endpoints",
                                                            "topology.endpoints_per_rack",
                                                            "topology.link_rate_gbps",
                                                            "topology.links",
                                                            "topology.max_endpoints",
                                                            "topology.max_hops",
                                                            "topology.planes",
                                                            "topology.pod_endpoints",
                                                            "topology.pods",
                                                            "topology.switch_radix",
                                                            "topology.switches",
                                                            "topology.switches_by_tier.",
                                                            "topology.top_of_rack_switches",
                                                            "topology.transceivers",
                                                            "topology.virtual_lanes"};

void numeric_leaves(const Json& j, const std::string& prefix, std::vector<std::string>& out) {
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) numeric_leaves(v, prefix + "." + k, out);
    } else if (j.is_number()) {
        out.push_back(prefix);
    }
}

}  // namespace

std::vector<std::string> result_keys(const Scenario& s) {
    if (s.serving.set) {  // a run's serving section, or a serve-search's (sweeps by it)
        std::vector<std::string> keys = serving_result_keys();
        const std::vector<std::string> search = serve_search_result_keys();
        keys.insert(keys.end(), search.begin(), search.end());
        return keys;
    }
    std::vector<std::string> keys(kTopologyKeys.begin(), kTopologyKeys.end());
    if (s.workload.kind.empty()) return keys;  // cost only: the inventory
    keys.insert(keys.end(), kRunKeys.begin(), kRunKeys.end());
    if (s.workload.kind == "moe") {
        const std::string section(phase_name(s.workload.phase));
        numeric_leaves(moe_step_section(MoeStepMetrics{}, s.workload.phase, 1), section, keys);
        keys.push_back(section + ".simulated_layers_auto.");
        keys.push_back(section + ".degraded_steady_state.");  // a fault inside the window
        const auto av = availability_result_keys();  // `clustersim availability`, sweeps by it
        keys.insert(keys.end(), av.begin(), av.end());
    }
    return keys;
}

bool known_result_key(const Scenario& s, const std::string& path, std::string& hint) {
    const std::vector<std::string> keys = result_keys(s);
    for (const std::string& k : keys)
        if (k == path || (k.back() == '.' && path.size() > k.size() && path.rfind(k, 0) == 0))
            return true;
    // What it could have meant: the keys of the section it names, else the sections.
    const std::string section = path.substr(0, path.find('.'));
    std::string in_section, sections;
    std::size_t listed = 0;
    for (const std::string& k : keys) {
        const std::string ks = k.substr(0, k.find('.'));
        if (ks == section && ++listed <= 12)
            in_section.append(in_section.empty() ? "" : ", ").append(listed == 12 ? "..." : k);
        if (sections.find(ks) == std::string::npos)
            sections.append(sections.empty() ? "" : ", ").append(ks);
    }
    hint = !in_section.empty() ? "one of: " + in_section : "a key of: " + sections;
    return false;
}

}  // namespace clustersim
