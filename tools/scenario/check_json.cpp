#include "tools/scenario/check_json.hpp"

#include <algorithm>

#include "tools/scenario/wall_estimate.hpp"

namespace clustersim {

Json scenario_check_json(const std::string& file, const ScenarioEstimate& e,
                         std::uint32_t replicates, const RanksEstimate* ranks) {
    Json j;
    j["tool"] = tool_json();
    j["file"] = file;
    j["status"] = "ok";
    j["fabric"] = {{"kind", e.fabric_kind}, {"endpoints", e.fabric_endpoints}};
    if (!e.has_workload) {
        j["workload"] = nullptr;
        return j;
    }
    const RunEstimate& r = e.run;
    j["workload"] = e.what;
    j["messages"] = r.messages;
    j["packets_estimate"] = r.packets;
    j["largest_message_packets"] = r.largest_message_packets;
    if (r.gating_scores > 0) j["gating_scores"] = r.gating_scores;
    j["events_estimate"] = r.events;
    j["memory_estimate_bytes"] = r.memory_bytes();
    j["memory_estimate_by_part"] = {{"base_bytes", RunEstimate::kBaseBytes},
                                    {"fabric_bytes", r.fabric_bytes},
                                    {"routes_bytes", r.routes_bytes},
                                    {"workload_bytes", r.workload_bytes},
                                    {"packets_bytes", r.packet_bytes}};
    // Replicates run one after another: the wall time is theirs summed.
    j["replicates"] = replicates;
    j["wall_s_estimate"] = wall_s_estimate(r) * std::max<std::uint32_t>(1, replicates);
    j["partitions"] = r.partitions;
    if (ranks) {
        j["ranks"] = ranks->per_rank.size();
        j["ranks_note"] = ranks_note(*ranks);
        Json per_rank = Json::array();
        for (std::size_t i = 0; i < ranks->per_rank.size(); ++i) {
            const RankShare& share = ranks->per_rank[i];
            per_rank.push_back({{"rank", i},
                                {"partitions", share.partitions},
                                {"events_estimate", share.events},
                                {"memory_estimate_bytes", share.memory_bytes}});
        }
        j["per_rank"] = std::move(per_rank);
    }
    return j;
}

Json sweep_check_json(const SweepSpec& spec, const SweepCheck& c, std::uint32_t threads) {
    const std::uint32_t t = std::max<std::uint32_t>(1, threads);
    Json j;
    j["tool"] = tool_json();
    j["file"] = spec.file;
    j["status"] = c.errors.empty() ? "ok" : "invalid";
    j["errors"] = c.errors.size();
    j["warnings"] = c.warnings.size();
    j["points"] = c.points;
    j["valid_points"] = c.valid_points;
    j["seeds"] = spec.seeds;
    j["runs"] = c.runs;
    j["events_estimate"] = c.events;
    j["memory_estimate_bytes"] = c.memory_bytes;  // the largest point's
    j["threads"] = t;
    j["wall_s_estimate"] = c.wall_s / t;
    j["unestimated_points"] = c.unestimated;
    return j;
}

}  // namespace clustersim
