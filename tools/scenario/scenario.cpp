// The typed scenario from its validated keys: presets looked up, defaults filled in, the
// families' rows parsing their own keys (routing, congestion control), cross-key checks.
#include "tools/scenario/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "models/congestion/congestion_controls.hpp"
#include "models/hardware/hardware_catalog.hpp"
#include "models/hardware/moe_compute.hpp"
#include "models/routing/routing_policy.hpp"
#include "sim/registry.hpp"
#include "tools/scenario/faults.hpp"
#include "tools/scenario/loader.hpp"
#include "tools/scenario/schema.hpp"
#include "topologies/topology_kinds.hpp"
#include "traffic/serving_defaults.hpp"
#include "traffic/workload_kinds.hpp"

namespace clustersim {
namespace {

// The enum value whose name is `text` (the schema has checked it is one of them).
template <class E, std::size_t N>
E enum_of(const std::array<std::string_view, N>& names, const std::string& text, E fallback) {
    for (std::size_t i = 0; i < N; ++i)
        if (names[i] == text) return static_cast<E>(i);
    return fallback;
}

class Filler {
  public:
    explicit Filler(LoadedKeys keys)
        : path_(std::move(keys.path)),
          values_(std::move(keys.values)),
          overridden_(std::move(keys.overridden)) {
        scenario_.file = path_;
        scenario_.positions = std::move(keys.positions);
    }

    Scenario fill() {
        fill_keys();
        scenario_.values = values_;
        scenario_.faults = read_faults(scenario_);
        resolve_rows();
        scenario_.resolved = std::move(resolved_);
        return std::move(scenario_);
    }

  private:
    // Every value read here is the one the run uses (set, a preset's, a default): recorded as
    // read, it is results.json's resolved_scenario (the last read of a key wins).
    bool has(const std::string& p) const { return values_.has(p); }
    std::uint64_t integer_or(const std::string& p, std::uint64_t dflt) {
        const std::uint64_t v = values_.integer_or(p, dflt);
        if (writable(p, static_cast<double>(v))) resolved_[p] = v;
        return v;
    }
    // A default that the key's range does not admit (0 for `auto`, `what the topology needs`)
    // is a placeholder, not a value: the build decides, and the results say what it chose.
    bool writable(const std::string& p, double v) const {
        if (has(p)) return true;
        const KeySpec* k = find_key(p);
        return !k || (v >= k->min && v <= k->max);
    }
    std::uint32_t u32_or(const std::string& p, std::uint64_t dflt) {
        return static_cast<std::uint32_t>(integer_or(p, dflt));  // schema ranges fit 32 bits
    }
    double number_or(const std::string& p, double dflt) {
        const double v = values_.number_or(p, dflt);
        if (writable(p, v)) resolved_[p] = v;
        return v;
    }
    std::string text_or(const std::string& p, const std::string& dflt) {
        std::string v = values_.text_or(p, dflt);
        if (v.empty() && !has(p)) return v;  // unset and nothing in its place
        const KeySpec* k = find_key(p);
        if (!has(p) && k && !k->choices.empty() &&
            std::find(k->choices.begin(), k->choices.end(), v) == k->choices.end())
            return v;  // a placeholder, as above
        if (k && k->type == KeyType::Boolean)
            resolved_[p] = v == "true";
        else
            resolved_[p] = v;
        return v;
    }
    // The chosen rows' own keys (routing policy, congestion control, topology and workload
    // kind), as set or at their fixed defaults; a key a kind derives from the fabric's size has
    // no fixed default and shows in results' topology section instead.
    void resolve_rows() {
        const Scenario& s = scenario_;
        auto add = [&](const std::vector<KeySpec>& keys) {
            for (const KeySpec& k : keys) {
                if (k.type == KeyType::Integer && (has(k.path) || k.default_number))
                    resolved_[k.path] = values_.integer(k);
                else if (k.type == KeyType::Number && (has(k.path) || k.default_number))
                    resolved_[k.path] = values_.number(k);
                else if (k.type == KeyType::Boolean && (has(k.path) || k.default_text_value))
                    resolved_[k.path] = values_.text(k) == "true";
                else if (k.type == KeyType::String && (has(k.path) || k.default_text_value))
                    resolved_[k.path] = values_.text(k);
            }
        };
        add(routing_policies()[s.network.routing_params.policy].keys);
        if (const auto cc = congestion_controls().index_of(s.network.congestion_control);
            cc != kNoEntry)
            add(congestion_controls()[cc].keys);
        if (const TopologyKind* t = find_topology_kind(s.topology.kind)) add(t->keys);
        if (const WorkloadKind* w = find_workload_kind(s.workload.kind)) add(w->keys);
        resolved_["topology.kind"] = s.topology.kind;  // a moe workload alone stands on mpft
        resolved_.erase("workload.kind");
        if (!s.workload.kind.empty()) resolved_["workload.kind"] = s.workload.kind;
        // The faults as given, each entry's keys under faults[i].
        for (const auto& [p, v] : values_.integers)
            if (p.rfind("faults[", 0) == 0) resolved_[p] = v;
        for (const auto& [p, v] : values_.numbers)
            if (p.rfind("faults[", 0) == 0) resolved_[p] = v;
        for (const auto& [p, v] : values_.texts)
            if (p.rfind("faults[", 0) == 0) resolved_[p] = v;
    }

    void fill_keys() {
        Scenario& s = scenario_;
        s.seed = integer_or("seed", 1);
        s.name = text_or("name", std::filesystem::path(path_).stem().string());

        s.topology.kind = text_or("topology.kind", "");
        // A moe workload alone (for `traffic`) stands on an MPFT of its EP group's size.
        if (s.topology.kind.empty() && text_or("workload.kind", "") == "moe")
            s.topology.kind = "mpft";
        if (s.topology.kind.empty())
            throw InputError(
                path_, 0, 0, "topology.kind",
                fmt::format("missing (expected one of: {})", join(topology_kind_names())));
        const auto& catalog = HardwareCatalog::builtin();
        s.topology.switch_preset = text_or(
            "topology.switch", std::string(find_topology_kind(s.topology.kind)->default_switch));
        const SwitchPreset* sw = catalog.find_switch(s.topology.switch_preset);
        if (!sw) {
            throw s.error_at("topology.switch",
                             fmt::format("unknown switch preset '{}' (expected one of: {})",
                                         s.topology.switch_preset, join(catalog.switch_names())));
        }
        const LinkLayerPreset* ll = catalog.find_link_layer(sw->link_layer);
        s.cluster.node = text_or("cluster.node", "h800");
        const NodePreset* node =
            catalog.find_node(s.cluster.node == "none" ? "h800" : s.cluster.node);
        if (!node)
            throw s.error_at("cluster.node",
                             fmt::format("unknown node preset '{}' (expected one of: {})",
                                         s.cluster.node, join(catalog.node_names())));
        const std::string nic_name = text_or("cluster.nic", node->nic);
        const NicPreset* nic = catalog.find_nic(nic_name);
        if (!nic)
            throw s.error_at(
                "cluster.nic",
                fmt::format("unknown NIC preset '{}' (expected cx6, cx7 or cx8)", nic_name));
        s.cluster.bare = s.cluster.node == "none";
        s.cluster.gpus_per_node = s.cluster.bare ? 1 : node->gpus;
        s.cluster.nics_per_node = s.cluster.bare ? 1 : node->nics;
        s.cluster.nic_rate_gbps = nic->port_rate_gbps;
        s.cluster.nic_spray =
            text_or("cluster.multi_plane", nic->multi_plane_spray ? "spray" : "bond") == "spray";
        s.cluster.preset = *node;
        s.cluster.preset.pcie_lanes = u32_or("cluster.pcie_lanes", node->pcie_lanes);
        s.cluster.socket_crossing_ns = number_or("cluster.socket_crossing_ns", 0);
        s.cluster.nic_latency_ns = number_or("cluster.nic_latency_ns", ll->nic_latency_ns);
        const bool gpu = text_or("workload.initiator", "gpu") == "gpu";
        s.workload.gpu_initiated = gpu;
        s.cluster.message_overhead_ns =
            number_or("cluster.message_overhead_ns",
                      gpu ? ll->gpu_message_overhead_ns : ll->message_overhead_ns);
        s.cluster.issue_ns =
            std::min(s.cluster.message_overhead_ns, gpu ? ll->gpu_issue_ns : ll->cpu_issue_ns);
        s.topology.switch_radix = u32_or("topology.switch_radix", sw->radix);
        s.topology.oversubscription = number_or("topology.oversubscription", 1.0);
        s.topology.endpoints_set = has("topology.endpoints");
        s.topology.endpoints = u32_or("topology.endpoints", 0);
        s.topology.planes = u32_or("topology.planes", 0);
        // Recorded for the kinds that have pods; any other is one connected fabric.
        const bool has_pods = find_topology_kind(s.topology.kind)->pods;
        s.topology.pods = has_pods || has("topology.pods") ? u32_or("topology.pods", 1) : 1;
        if (s.topology.pods > 1 && !has_pods)
            throw s.error_at("topology.pods",
                             fmt::format("a {} fabric is one connected fabric (expected no "
                                         "pods, or kind dual-plane or shuffle)",
                                         s.topology.kind));
        const auto price = catalog.prices().switch_usd.find(s.topology.switch_preset);
        s.cost.switch_usd = number_or(
            "cost.switch_usd", price == catalog.prices().switch_usd.end() ? -1.0 : price->second);
        s.cost.cable_usd = catalog.prices().cable_usd;
        const auto server = catalog.prices().server_usd.find(s.cluster.node);
        s.cost.server_usd = number_or(
            "cost.server_usd", server == catalog.prices().server_usd.end() ? 0.0 : server->second);
        for (auto& [kind, usd] : s.cost.cable_usd) usd = number_or("cost.cables." + kind, usd);
        s.cost.rack_endpoints = u32_or("cost.rack_endpoints", node->nodes_per_rack * node->nics);

        auto& n = s.network;
        n.link_rate_gbps =
            number_or("network.link_rate_gbps", std::min(sw->port_rate_gbps, nic->port_rate_gbps));
        n.link_delay_ns = number_or("network.link_delay_ns", ll->link_delay_ns);
        n.switch_latency_ns = number_or("network.switch_latency_ns", sw->latency_ns);
        n.port_buffer_bytes = integer_or("network.port_buffer_bytes", sw->port_buffer_bytes);
        n.mtu_bytes = u32_or("network.mtu_bytes", ll->mtu_bytes);
        n.header_bytes = u32_or("network.header_bytes", ll->header_bytes);
        const std::string fc = text_or("network.flow_control", sw->flow_control);
        n.flow_control = fc == "lossy" ? FlowControl::Lossy
                         : fc == "pfc" ? FlowControl::Pfc
                                       : FlowControl::Credit;
        n.pfc_alpha = number_or("network.pfc_alpha", 1.0);
        n.cut_through =
            text_or("network.forwarding", sw->cut_through ? "cut-through" : "store-and-forward") ==
            "cut-through";
        n.routing = text_or("network.routing", sw->routing);
        n.routing_params.policy = routing_policies().index_of(n.routing);
        if (n.routing_params.policy == kNoEntry)  // a preset naming a policy this build lacks
            throw s.error_at("network.routing",
                             fmt::format("'{}' is not available in this build (expected "
                                         "network.routing set to one of `check --schema`)",
                                         n.routing));
        if (const auto& row = routing_policies()[n.routing_params.policy]; row.parse)
            row.parse(values_, n.routing_params);
        n.go_back_n = text_or("network.retransmission",
                              nic->go_back_n ? "go-back-n" : "selective-repeat") == "go-back-n";
        n.ack_every = u32_or("network.ack_every", nic->ack_every);
        n.ack_timeout_exponent = u32_or("network.ack_timeout_exponent", nic->ack_timeout_exponent);
        n.retry_count = u32_or("network.retry_count", nic->retry_count);
        n.adaptive_retransmission_ns =
            integer_or("network.adaptive_retransmission_ns", nic->adaptive_retransmission_ns);
        n.congestion_control = text_or("network.congestion_control", "none");
        n.ecn_kmin_bytes = integer_or("network.ecn_kmin_bytes", 100000);
        n.ecn_kmax_bytes = integer_or("network.ecn_kmax_bytes", 400000);
        if (n.ecn_kmax_bytes <= n.ecn_kmin_bytes)
            throw s.error_at(
                has("network.ecn_kmax_bytes") ? "network.ecn_kmax_bytes" : "network.ecn_kmin_bytes",
                fmt::format("kmax {} must exceed kmin {} (expected ecn_kmin_bytes < "
                            "ecn_kmax_bytes)",
                            n.ecn_kmax_bytes, n.ecn_kmin_bytes));
        n.ecn_pmax = number_or("network.ecn_pmax", 0.2);
        n.cc = CongestionControlList::parse(congestion_controls().index_of(n.congestion_control),
                                            values_);
        n.extra_latency_us = number_or("network.extra_latency_us", 0);
        n.switch_reroute = text_or("network.reroute", "sm") == "switch";
        if (n.switch_reroute && ll->switch_reroute_us <= 0)
            throw s.error_at("network.reroute",
                             fmt::format("switch is InfiniBand's own fault recovery; a {} fabric "
                                         "reroutes through its routing protocol (expected sm)",
                                         sw->link_layer));
        n.reroute_us = number_or("network.reroute_us",
                                 n.switch_reroute ? ll->switch_reroute_us : ll->reroute_us);
        n.failover_us = number_or("network.failover_us", ll->failover_us);
        n.port_down_us = ll->port_down_us;
        n.bond_failover_us = number_or("network.failover_us", nic->bond_failover_us);
        if (n.port_buffer_bytes < static_cast<std::uint64_t>(n.mtu_bytes) + n.header_bytes)
            throw s.error_at(
                "network.port_buffer_bytes",
                fmt::format("{} bytes cannot hold one packet (expected at least mtu_bytes + "
                            "header_bytes = {})",
                            n.port_buffer_bytes, n.mtu_bytes + n.header_bytes));

        auto& w = s.workload;
        w.kind = text_or("workload.kind", "");
        w.message_bytes = integer_or("workload.message_bytes", 0);
        w.file = text_or("workload.file", "");
        if (!w.file.empty() && !std::filesystem::path(w.file).is_absolute() &&
            !overridden_.count("workload.file")) {
            const auto base = std::filesystem::path(path_).parent_path();
            w.file = (base / w.file).lexically_normal().string();
        }
        w.start_us = number_or("workload.start_us", 0);
        w.expert_load_file = text_or("workload.expert_load_file", "");
        if (!w.expert_load_file.empty() &&
            !std::filesystem::path(w.expert_load_file).is_absolute() &&
            !overridden_.count("workload.expert_load_file"))
            w.expert_load_file = (std::filesystem::path(path_).parent_path() / w.expert_load_file)
                                     .lexically_normal()
                                     .string();
        s.sim.max_time_us = number_or("sim.max_time_us", 0);
        s.sim.sample_us = number_or("sim.sample_us", 0);
        s.sim.max_events = integer_or("sim.max_events", 0);
        s.sim.max_memory_gb = number_or("sim.max_memory_gb", 0);
        s.sim.sample_rows = integer_or("sim.sample_rows", 1000000);
        s.sim.replicates = u32_or("sim.replicates", 1);
        s.sim.partitions =
            text_or("sim.partitions", "") == "auto" ? 0 : u32_or("sim.partitions", 0);
        // Not recorded as resolved: how a run is executed is not what it simulates.
        s.sim.threads = static_cast<std::uint32_t>(values_.integer_or("sim.threads", 1));
        s.sim.complete_on_ack = text_or("sim.completion", "receiver") == "sender-ack";
        s.sim.fingerprint = text_or("sim.fingerprint", "false") == "true";
        fill_moe(s);
        fill_serving(s);
        fill_availability(s);
        s.network.virtual_lanes = u32_or("network.virtual_lanes", 0);
    }

    void fill_moe(Scenario& s) {
        const std::string name = text_or("model.name", "");
        if (!name.empty()) {
            const MoeModel* m = find_moe_model(name);
            if (!m)
                throw s.error_at("model.name",
                                 fmt::format("unknown model preset '{}' (expected one of: {})",
                                             name, join(moe_model_names())));
            s.model.set = true;
            MoeModel& p = s.model.preset;
            p = *m;
            p.hidden = u32_or("model.hidden", p.hidden);
            p.layers = u32_or("model.layers", p.layers);
            p.dense_layers = u32_or("model.dense_layers", p.dense_layers);
            p.routed_experts = u32_or("model.routed_experts", p.routed_experts);
            p.top_k = u32_or("model.top_k", p.top_k);
            p.shared_experts = u32_or("model.shared_experts", p.shared_experts);
            p.n_group = u32_or("model.n_group", p.n_group);
            p.topk_group = u32_or("model.topk_group", p.topk_group);
            if (p.dense_layers >= p.layers)
                throw s.error_at("model.dense_layers",
                                 fmt::format("{} dense layers leave no MoE layer of {} (expected "
                                             "fewer than model.layers)",
                                             p.dense_layers, p.layers));
            if (p.top_k > p.routed_experts)
                throw s.error_at("model.top_k",
                                 fmt::format("{} experts per token of {} routed (expected at "
                                             "most model.routed_experts)",
                                             p.top_k, p.routed_experts));
            if (p.topk_group > p.n_group || p.routed_experts % p.n_group != 0)
                throw s.error_at(has("model.topk_group") ? "model.topk_group" : "model.n_group",
                                 fmt::format("{} of {} groups over {} experts (expected groups "
                                             "that divide the experts, topk_group <= n_group)",
                                             p.topk_group, p.n_group, p.routed_experts));
        } else {
            for (const char* k :
                 {"model.hidden", "model.layers", "model.dense_layers", "model.routed_experts",
                  "model.top_k", "model.shared_experts", "model.n_group", "model.topk_group"})
                if (has(k))
                    throw s.error_at(k,
                                     "overrides a model preset, but model.name is missing "
                                     "(expected model.name, e.g. deepseek-v3)");
        }
        auto& w = s.workload;
        w.phase = enum_of(kMoePhaseNames, text_or("workload.phase", "decode"), MoePhase::Decode);
        w.tokens_per_gpu = u32_or("workload.tokens_per_gpu", 128);
        w.micro_batches = u32_or("workload.micro_batches", 2);
        w.ep_size = u32_or("workload.ep_size", s.model.set ? s.model.preset.routed_experts : 0);
        w.max_nodes_per_token =
            u32_or("workload.max_nodes_per_token", s.model.set ? s.model.preset.topk_group : 0);
        w.normal_mode = text_or("workload.mode",
                                w.phase == MoePhase::Decode ? "low-latency" : "normal") == "normal";
        w.gating =
            enum_of(kGatingNames, text_or("workload.gating", "uniform"), GatingKind::Uniform);
        w.zipf_s = number_or("workload.zipf_s", 1.0);
        w.hot_experts = u32_or("workload.hot_experts", 8);
        w.hot_factor = number_or("workload.hot_factor", 10.0);
        w.intranode_via_rdma = text_or("workload.intranode_via", "nvlink") == "rdma";
        w.destination_sorted = text_or("workload.issue_order", "library") == "destination-sorted";
        w.shared_expert_remote = text_or("workload.shared_expert_remote", "false") == "true";
        w.kv_length = u32_or("workload.kv_length", 4096);
        fill_contexts(s);
        w.redundant_experts = u32_or("workload.redundant_experts", 0);
        w.plane_loss_reroutes = text_or("workload.on_plane_loss", "fail") == "reroute";
        w.rank_loss_fails = text_or("workload.on_rank_loss",
                                    w.redundant_experts > 0 ? "redundant" : "fail") == "fail";
        w.ep_groups = u32_or("workload.ep_groups", 1);
        w.ep_spread = text_or("workload.ep_placement", "packed") == "spread";
        if (s.model.set && w.redundant_experts > s.model.preset.routed_experts)
            throw s.error_at("workload.redundant_experts",
                             fmt::format("{} copies of {} experts (expected at most one copy each)",
                                         w.redundant_experts, s.model.preset.routed_experts));
        w.simulated_layers = text_or("workload.simulated_layers", "") == "auto"
                                 ? 0
                                 : u32_or("workload.simulated_layers", 0);
        // DeepSeek's decode overlaps two micro-batches in five stages; with one there is
        // nothing to overlap.
        const bool five_by_default = w.phase == MoePhase::Decode && w.micro_batches >= 2;
        w.schedule =
            enum_of(kStepScheduleNames,
                    text_or("workload.schedule", five_by_default ? "five-stage" : "two-stage"),
                    StepSchedule::TwoStage);
        if (w.schedule == StepSchedule::FiveStage && w.phase != MoePhase::Decode)
            throw s.error_at("workload.schedule",
                             fmt::format("five-stage is DeepSeek's decode schedule (expected "
                                         "two-stage with phase {})",
                                         phase_name(w.phase)));
        if (w.schedule == StepSchedule::FiveStage && w.micro_batches < 2)
            throw s.error_at("workload.schedule",
                             "five-stage overlaps two or more micro-batches (expected "
                             "workload.micro_batches of 2, or schedule: two-stage)");
        w.mtp_draft_tokens = u32_or("workload.mtp_draft_tokens", 0);
        w.mtp_acceptance = number_or("workload.mtp_acceptance", 0);
        if (w.mtp_draft_tokens > 0 && w.phase != MoePhase::Decode)
            throw s.error_at(
                "workload.mtp_draft_tokens",
                fmt::format("{} drafts tokens only in decode (expected 0 with phase {})",
                            w.mtp_draft_tokens, phase_name(w.phase)));
        if (w.mtp_draft_tokens > 0 && s.model.set && s.model.preset.mtp_modules == 0)
            throw s.error_at("workload.mtp_draft_tokens",
                             fmt::format("model {} has no MTP module to draft with (expected 0, or "
                                         "a model with mtp_modules such as deepseek-v3)",
                                         s.model.preset.name));
        if (w.mtp_acceptance > 0 && w.mtp_draft_tokens == 0)
            throw s.error_at("workload.mtp_acceptance",
                             "accepts draft tokens, but none are drafted (expected "
                             "workload.mtp_draft_tokens of 1 or more, or no acceptance)");
        w.comm_sms = u32_or("workload.comm_sms", s.cluster.preset.comm_sms);
        w.expert_placement = text_or("workload.expert_placement", "contiguous");
        w.affinity_groups = u32_or("workload.affinity_groups", 0);
        w.affinity_factor = number_or("workload.affinity_factor", 10.0);
        if (w.comm_sms >= s.cluster.preset.sms && s.cluster.preset.sms > 0)
            throw s.error_at("workload.comm_sms",
                             fmt::format("{} of the GPU's {} SMs leave none to compute (expected "
                                         "fewer than {})",
                                         w.comm_sms, s.cluster.preset.sms, s.cluster.preset.sms));
        if (w.kind == "moe" && !s.model.set)
            throw s.error_at(
                "workload.kind",
                "a moe workload needs a model (expected model.name, e.g. deepseek-v3)");
    }

    // availability: the built-in failure figures, each overridable; recorded as resolved only
    // where the section is there (a run without it reads none of them).
    void fill_availability(Scenario& s) {
        auto& a = s.availability;
        const FailureRates& dflt = builtin_failure_rates();
        a.rates = dflt.by_class;
        a.restart_minutes = dflt.restart_minutes;
        a.amortisation_years = dflt.amortisation_years;
        for (const auto& [p, pos] : s.positions) a.set = a.set || p.rfind("availability", 0) == 0;
        if (!a.set) return;
        a.days = u32_or("availability.days", 1000);
        a.hours = number_or("availability.hours", 24);
        a.max_modes = u32_or("availability.max_modes", 64);
        a.restart_minutes = number_or("availability.restart_minutes", dflt.restart_minutes);
        a.restart_below = number_or("availability.restart_below", 0);
        a.amortisation_years =
            number_or("availability.amortisation_years", dflt.amortisation_years);
        for (std::size_t c = 0; c < kComponentClassNames.size(); ++c) {
            const std::string k = "availability." + std::string(kComponentClassNames[c]);
            a.rates[c].per_year = number_or(k + ".per_year", dflt.by_class[c].per_year);
            a.rates[c].repair_hours = number_or(k + ".repair_hours", dflt.by_class[c].repair_hours);
            if (has(k + ".tiers")) {
                const std::string list = text_or(k + ".tiers", "");
                for (std::size_t b = 0; b <= list.size();) {
                    const std::size_t e = std::min(list.find(',', b), list.size());
                    a.tiers[c].push_back(list.substr(b, e - b));
                    b = e + 1;
                }
            }
        }
    }

    // serving: the requests, the deployment serving them and the targets they are held to.
    void fill_serving(Scenario& s) {
        bool any = false;
        for (const auto& [p, pos] : s.positions) any = any || p.rfind("serving", 0) == 0;
        if (!any) return;
        auto& v = s.serving;
        v.set = true;
        const ServingDefaults& dflt = serving_defaults();
        if (s.workload.kind != "moe")
            throw s.error_at("serving",
                             "serves a model's steps (expected workload.kind: moe and "
                             "a model.name)");
        // The steps' shapes are the serving run's to choose, request by request.
        for (const char* k : {"workload.phase", "workload.tokens_per_gpu", "workload.kv_length",
                              "workload.ep_size", "workload.ep_groups", "workload.request_balance"})
            if (s.positions.count(k))
                throw s.error_at(k,
                                 "is set by serving for each step (expected it left out "
                                 "with a serving: section; docs/serving.md)");
        // Each instance is one EP group on consecutive GPUs, as the deployment lays them out:
        // its faults and its step time are its group's.
        if (text_or("workload.ep_placement", "packed") == "spread")
            throw s.error_at("workload.ep_placement",
                             "spread: a serving deployment puts each instance on consecutive "
                             "GPUs (expected packed, or left out, with a serving: section)");
        // A serving run is many packet runs: their bounds and probes are not its own.
        for (const char* k :
             {"sim.max_time_us", "sim.max_events", "sim.sample_us", "sim.fingerprint"})
            if (s.positions.count(k))
                throw s.error_at(k,
                                 "bounds or records one packet-level run, not a serving run "
                                 "(expected it left out with a serving: section; "
                                 "serving.duration_s bounds the arrivals)");
        const bool poisson = text_or("serving.arrival.kind", "") == "poisson";
        if (!has("serving.arrival.kind"))
            throw s.error_at("serving.arrival.kind",
                             "missing (expected poisson with rate_per_s, or trace with file)");
        v.trace = !poisson;
        if (poisson) {
            if (!has("serving.arrival.rate_per_s"))
                throw s.error_at("serving.arrival.rate_per_s",
                                 "missing (expected requests per second above 0)");
            if (has("serving.arrival.file"))
                throw s.error_at("serving.arrival.file",
                                 "is a trace's (expected kind: trace, or no file)");
            v.rate_per_s = number_or("serving.arrival.rate_per_s", 0);
            if (!has("serving.duration_s"))
                throw s.error_at("serving.duration_s",
                                 "missing (expected how long requests arrive, in seconds)");
        } else {
            if (has("serving.arrival.rate_per_s"))
                throw s.error_at("serving.arrival.rate_per_s",
                                 "is Poisson's (expected kind: poisson, or no rate)");
            v.file = text_or("serving.arrival.file", "");
            if (v.file.empty())
                throw s.error_at("serving.arrival.file",
                                 "missing (expected a CSV of arrival_us,prompt_tokens,"
                                 "output_tokens lines)");
            if (!std::filesystem::path(v.file).is_absolute() &&
                !overridden_.count("serving.arrival.file"))
                v.file = (std::filesystem::path(path_).parent_path() / v.file)
                             .lexically_normal()
                             .string();
        }
        v.duration_s = number_or("serving.duration_s", 0);
        v.prompt = read_lengths(s, "serving.prompt_tokens", "prompt", dflt.prompt, v.trace);
        v.output = read_lengths(s, "serving.output_tokens", "output", dflt.output, v.trace);

        ServingDeployment& d = v.deployment;
        d.kind = enum_of(kDeploymentKindNames, text_or("serving.deployment.kind", "disaggregated"),
                         DeploymentKind::Disaggregated);
        const bool dis = d.kind == DeploymentKind::Disaggregated;
        if (!has("serving.deployment.decode.ep_size"))
            throw s.error_at("serving.deployment.decode.ep_size",
                             "missing (expected the GPUs of each decode instance, e.g. 144)");
        d.decode.instances = u32_or("serving.deployment.decode.instances", 1);
        d.decode.ep_size = u32_or("serving.deployment.decode.ep_size", 1);
        if (dis) {
            if (!has("serving.deployment.prefill.ep_size"))
                throw s.error_at("serving.deployment.prefill.ep_size",
                                 "missing (expected the GPUs of each prefill instance, e.g. 32)");
            d.prefill.instances = u32_or("serving.deployment.prefill.instances", 1);
            d.prefill.ep_size = u32_or("serving.deployment.prefill.ep_size", 1);
        } else {
            for (const char* k :
                 {"serving.deployment.prefill.instances", "serving.deployment.prefill.ep_size"})
                if (has(k))
                    throw s.error_at(k,
                                     "colocated instances prefill and decode both (expected "
                                     "only decode: instances and ep_size)");
            if (has("serving.kv_transfer.via"))
                throw s.error_at("serving.kv_transfer.via",
                                 "colocated instances keep each KV cache where it was made "
                                 "(expected no kv_transfer, or kind: disaggregated)");
        }
        d.gpus_per_node = s.cluster.gpus_per_node;
        d.prefill_tokens_per_gpu =
            u32_or("serving.deployment.prefill_tokens_per_gpu", dflt.prefill_tokens_per_gpu);
        d.decode_requests_per_gpu =
            u32_or("serving.deployment.decode_requests_per_gpu", dflt.decode_requests_per_gpu);
        d.micro_batches = s.workload.micro_batches;
        d.mtp_draft_tokens = s.workload.mtp_draft_tokens;
        d.mtp_acceptance = s.workload.mtp_acceptance;
        d.kv_bytes_per_token = static_cast<std::uint64_t>(
            std::llround(kv_bytes_per_token_layer(s.model.preset) * s.model.preset.layers));
        // Pods (topology.pods): each holds the same share of the instances.
        d.pods = s.topology.pods;
        if (d.pods > 1) {
            auto whole_share = [&](const char* key, std::uint32_t instances, const char* kind) {
                if (instances % d.pods != 0)
                    throw s.error_at(
                        key, fmt::format("{} {} instances over {} pods (expected a multiple of "
                                         "{}: every pod holds the same share of the instances, "
                                         "as the vendor's pods keep prefill and decode pairs "
                                         "in one pod)",
                                         instances, kind, d.pods, d.pods));
            };
            whole_share("serving.deployment.decode.instances", d.decode.instances, "decode");
            if (dis)
                whole_share("serving.deployment.prefill.instances", d.prefill.instances, "prefill");
            // A pod's decode instances start after its prefill GPUs, and a step's first GPU
            // must start a node (the step model counts nodes from it).
            const std::uint32_t per = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
            if (const std::uint32_t here = d.prefill_per_pod() * d.prefill.ep_size; here % per != 0)
                throw s.error_at("serving.deployment.prefill.ep_size",
                                 fmt::format("a pod's {} prefill GPUs must fill whole nodes of "
                                             "{} (expected instances / pods x ep_size a "
                                             "multiple of {})",
                                             here, per, per));
        }
        // The deployment (each pod's share) fills whole nodes: its fabric is its nodes'.
        if (const std::uint32_t per = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
            d.pod_gpus() % per != 0)
            throw s.error_at(
                "serving.deployment.decode.ep_size",
                fmt::format("{} {} GPUs of instances do not fill whole nodes of {} (expected "
                            "instances x ep_size of prefill and decode{} a multiple of {})",
                            d.pods > 1 ? "a pod's" : "the deployment's", d.pod_gpus(), per,
                            d.pods > 1 ? " over the pods" : "", per));
        if (dis) {
            d.kv_via =
                enum_of(kKvViaNames, text_or("serving.kv_transfer.via", "fabric"), KvVia::Fabric);
            // Between pods, which nothing connects, a KV cache takes the storage network.
            if (d.kv_via == KvVia::Storage || d.pods > 1) {
                d.storage_rate = DataRate::from_gbps(
                    number_or("serving.kv_transfer.storage_gbps", dflt.storage_gbps));
                d.storage_latency = Time::from_us(
                    number_or("serving.kv_transfer.storage_latency_us", dflt.storage_latency_us));
            } else {
                for (const char* k :
                     {"serving.kv_transfer.storage_gbps", "serving.kv_transfer.storage_latency_us"})
                    if (has(k))
                        throw s.error_at(k,
                                         "is the storage network's (expected via: storage, "
                                         "topology.pods above 1, or no storage keys)");
            }
        }
        const std::uint64_t gpus = d.gpus();
        if (s.topology.endpoints_set && gpus > s.topology.endpoints)
            throw s.error_at("serving.deployment",
                             fmt::format("{} GPUs of instances do not fit the fabric's {} "
                                         "(expected at most topology.endpoints)",
                                         gpus, s.topology.endpoints));
        for (const char* k : {"serving.slo.ttft_ms", "serving.slo.tpot_ms"})
            if (!has(k))
                throw s.error_at(k, "missing (expected the target in milliseconds, above 0)");
        v.ttft_ms = number_or("serving.slo.ttft_ms", 0);
        v.tpot_ms = number_or("serving.slo.tpot_ms", 0);
        v.e2e_ms = number_or("serving.slo.e2e_ms", 0);
        v.step_cache = text_or("serving.step_cache", "true") == "true";
        v.step_first_pod = text_or("serving.step_pods", "first") == "first";
        v.timeline_s = number_or("serving.timeline_s", 1);
    }

    // A length key of serving: a number, a distribution ({kind, min, max, mean, sigma}), or,
    // unset, the data file's distribution (a trace brings its own lengths: none is read).
    KvLengthDistribution read_lengths(Scenario& s, const std::string& key, const std::string& what,
                                      const KvLengthDistribution& dflt, bool trace) {
        const bool mapping = s.positions.count(key) && !has(key);
        if (trace && s.positions.count(key))
            throw s.error_at(key, "a trace gives each request's lengths (expected no " + key +
                                      " with arrival kind: trace)");
        KvLengthDistribution d;
        if (!has(key + ".kind")) {
            if (mapping)
                throw s.error_at(key,
                                 "a distribution needs its kind (expected kind: uniform or "
                                 "kind: lognormal, or a number of tokens)");
            if (has(key)) {
                d.kind = KvLengthKind::Fixed;
                d.tokens = integer_or(key, 1);
                d.min_tokens = d.max_tokens = d.tokens;
                return d;
            }
            if (trace) return dflt;
            resolved_[key + ".kind"] = std::string("lognormal");
            resolved_[key + ".mean"] = dflt.mean_tokens;
            resolved_[key + ".sigma"] = dflt.sigma;
            resolved_[key + ".min"] = dflt.min_tokens;
            resolved_[key + ".max"] = dflt.max_tokens;
            return dflt;
        }
        return read_distribution(s, key, what);
    }

    // A length distribution under `key` ({kind, min, max, mean, sigma}), its values named
    // `what` in errors.
    KvLengthDistribution read_distribution(Scenario& s, const std::string& key,
                                           const std::string& what) {
        KvLengthDistribution d;
        d.kind =
            enum_of(kKvLengthKindNames, text_or(key + ".kind", "uniform"), KvLengthKind::Uniform);
        d.min_tokens = u32_or(key + ".min", 1);
        if (!has(key + ".max"))
            throw s.error_at(key + ".max",
                             fmt::format("a {} distribution needs its longest {} (expected max: "
                                         "tokens, e.g. 131072)",
                                         what, what));
        d.max_tokens = u32_or(key + ".max", 1);
        if (d.min_tokens > d.max_tokens)
            throw s.error_at(key + ".min", fmt::format("{} is above max {} (expected min <= max)",
                                                       d.min_tokens, d.max_tokens));
        if (d.kind == KvLengthKind::Lognormal) {
            if (!has(key + ".mean"))
                throw s.error_at(key + ".mean",
                                 fmt::format("a lognormal {} needs its mean (expected mean: "
                                             "tokens)",
                                             what));
            d.mean_tokens = number_or(key + ".mean", 1);
            d.sigma = number_or(key + ".sigma", 1.0);
        } else {
            for (const std::string& k : {key + ".mean", key + ".sigma"})
                if (has(k))
                    throw s.error_at(k, "is a lognormal's (expected min and max for uniform)");
        }
        d.tokens = static_cast<std::uint64_t>(std::llround(d.mean()));
        return d;
    }

    // workload.kv_length: one context for every request, or a distribution to draw each from.
    void fill_contexts(Scenario& s) {
        auto& w = s.workload;
        KvLengthDistribution& d = w.contexts;
        w.request_balance = enum_of(kRequestBalanceNames, text_or("workload.request_balance", "kv"),
                                    RequestBalance::Kv);
        d.tokens = w.kv_length;
        const bool mapping = s.positions.count("workload.kv_length") && !has("workload.kv_length");
        if (mapping && !has("workload.kv_length.kind"))
            throw s.error_at("workload.kv_length",
                             "a distribution needs its kind (expected kind: uniform or kind: "
                             "lognormal, or a number of tokens)");
        if (mapping && w.phase != MoePhase::Decode)
            throw s.error_at("workload.kv_length",
                             fmt::format("a distribution of contexts is decode's; {} takes one "
                                         "prompt length (expected a number of tokens)",
                                         phase_name(w.phase)));
        if (!has("workload.kv_length.kind")) {
            for (const char* k : {"workload.kv_length.min", "workload.kv_length.max",
                                  "workload.kv_length.mean", "workload.kv_length.sigma"})
                if (has(k))
                    throw s.error_at("workload.kv_length.kind",
                                     "a distribution needs its kind (expected kind: uniform or "
                                     "kind: lognormal)");
            return;
        }
        resolved_.erase("workload.kv_length");  // a distribution, its keys below
        d = read_distribution(s, "workload.kv_length", "context");
        w.kv_length = static_cast<std::uint32_t>(std::llround(d.mean()));
    }

    std::string path_;
    KeyValues values_;
    std::map<std::string, ResolvedValue> resolved_;
    std::set<std::string> overridden_;
    Scenario scenario_;
};

}  // namespace

InputError Scenario::error_for(const KeyError& e) const {
    // Blame the key the user changed: one given on the command line first, then the one the
    // builder named if the file sets it, then any other key in the conflict the file sets.
    std::vector<std::string> keys{e.key()};
    keys.insert(keys.end(), e.also().begin(), e.also().end());
    for (const auto& k : keys)
        if (auto it = positions.find(k); it != positions.end() && it->second.file == "--set")
            return error_at(k, e.what());
    for (const auto& k : keys)
        if (positions.count(k)) return error_at(k, e.what());
    return error_at(e.key(), e.what());
}

InputError Scenario::error_at(const std::string& key, const std::string& message) const {
    // A key that is not there is blamed on its parent map where the file has one, else on the
    // file's first line.
    for (std::string k = key;;) {
        if (auto it = positions.find(k); it != positions.end())
            return InputError(it->second.file, it->second.line, it->second.column, key, message);
        const auto dot = k.rfind('.');
        if (dot == std::string::npos) break;
        k.resize(dot);
    }
    return InputError(file, 1, 1, key, message);
}

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides) {
    return load_scenario_text(read_scenario_file(path), path, overrides);
}

Scenario load_scenario_text(const std::string& text, const std::string& path,
                            const std::vector<Override>& overrides) {
    return Filler(load_keys(text, path, overrides)).fill();
}

}  // namespace clustersim
