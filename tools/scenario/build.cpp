#include "tools/scenario/build.hpp"

#include "tools/scenario/faults.hpp"

#include "models/hardware/node_rates.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "models/routing/routing_policy.hpp"
#include "topologies/rack_placement.hpp"
#include "topologies/shortest_path_routes.hpp"
#include "topologies/topology_kinds.hpp"

#include "traffic/connection_matrix.hpp"
#include "traffic/deepep_config.hpp"
#include "traffic/expert_load.hpp"
#include "traffic/message_csv.hpp"
#include "traffic/workload_kinds.hpp"

namespace clustersim {

TraceInput load_trace(const Scenario& s) {
    TraceInput t;
    if (s.workload.kind != "trace") return t;
    if (s.workload.file.empty())
        throw s.error_at("workload.kind",
                         "a trace workload needs workload.file (expected a .cm or .csv path)");
    const std::string ext = std::filesystem::path(s.workload.file).extension().string();
    try {
        if (ext == ".cm") {
            auto cm = read_connection_matrix_file(s.workload.file);
            t.nodes = cm.nodes;
            t.workload = std::move(cm.workload);
            return t;
        }
        if (ext == ".csv") {
            auto list = read_message_csv_file(s.workload.file);
            t.nodes = list.nodes;
            t.workload = std::move(list.workload);
            return t;
        }
    } catch (const InputError& e) {
        // A file that cannot be read at all is the key's fault: point at where it is named.
        if (e.line() == 0) throw s.error_at("workload.file", "'" + e.file() + "' " + e.what());
        throw;
    }
    {
        throw s.error_at("workload.file", fmt::format("unknown trace format '{}' (expected a .cm "
                                                      "connection matrix or a .csv message list)",
                                                      ext));
    }
    return t;
}

Topology build_topology(const Scenario& s, std::uint32_t endpoints_if_unset, bool counts_only) {
    TopologyRequest r;
    r.counts_only = counts_only;
    r.kind = s.topology.kind;
    r.fabric.switch_radix = s.topology.switch_radix;
    r.fabric.link_rate = DataRate::from_gbps(s.network.link_rate_gbps);
    r.fabric.link_delay = Time::from_ns(s.network.link_delay_ns);
    r.fabric.switch_latency = Time::from_ns(s.network.switch_latency_ns);
    r.fabric.port_buffer_bytes = s.network.port_buffer_bytes;
    r.fabric.cut_through = s.network.cut_through;
    r.oversubscription = s.topology.oversubscription;
    r.endpoints = s.topology.endpoints_set ? s.topology.endpoints : endpoints_if_unset;
    r.planes = s.topology.planes;
    r.pods = s.topology.pods;
    r.nics_per_node = s.cluster.nics_per_node;
    r.nic_rate_gbps = s.cluster.nic_rate_gbps;
    if (const TopologyKind* kind = find_topology_kind(s.topology.kind); kind && kind->parse)
        kind->parse(s.values, r);  // the kind's own keys
    try {
        Topology t = clustersim::build_topology(r);
        if (!counts_only) place_topology_in_racks(t, s.cost.rack_endpoints);
        return t;
    } catch (const KeyError& e) {
        throw s.error_for(e);
    }
}

CostBreakdown topology_cost(const Scenario& s, const Topology& t) {
    PriceTable prices;
    prices.cable_usd = s.cost.cable_usd;
    if (s.cost.switch_usd >= 0) prices.switch_usd[s.topology.switch_preset] = s.cost.switch_usd;
    try {
        return fabric_cost(t.inventory, s.topology.switch_preset, prices);
    } catch (const KeyError& e) {
        throw s.error_for(e);
    }
}

NodeSpec node_spec(const Scenario& s) {
    const NodePreset& n = s.cluster.preset;
    NodeSpec spec;
    spec.gpus = n.gpus;
    spec.nics = n.nics;
    spec.pcie_rate = DataRate::from_gigabytes_per_s(pcie_gbytes_per_s(n));
    spec.pcie_latency = Time::from_ns(n.pcie_latency_ns + s.cluster.socket_crossing_ns);
    if (n.scale_up == "nvswitch") {
        spec.scale_up_rate = DataRate::from_gigabytes_per_s(nvlink_achievable_gbytes_per_s(n));
        spec.scale_up_link_latency = Time::from_ns(n.nvlink_latency_ns);
        spec.scale_up_switch_latency = Time::from_ns(n.nvswitch_latency_ns);
    } else {  // peers over the PCIe switch
        spec.scale_up_rate = spec.pcie_rate;
        spec.scale_up_link_latency = spec.pcie_latency;
        spec.scale_up_switch_latency = Time::zero();
    }
    spec.nic_latency = Time::from_ns(s.cluster.nic_latency_ns);
    spec.buffer_bytes = n.internal_buffer_bytes;
    spec.pxn = find_topology_kind(s.topology.kind)->pxn;
    spec.nic_spray = s.cluster.nic_spray;
    const bool gpu = s.workload.gpu_initiated;
    spec.rdma_message_overhead = Time::from_ns(s.cluster.message_overhead_ns);
    spec.rdma_issue = Time::from_ns(s.cluster.issue_ns);
    spec.scale_up_message_overhead =
        Time::from_ns(gpu ? n.nvlink_gpu_message_overhead_ns : n.nvlink_message_overhead_ns);
    spec.scale_up_issue = Time::from_ns(gpu ? n.nvlink_gpu_issue_ns : n.nvlink_cpu_issue_ns);
    return spec;
}

namespace {
std::uint32_t nics_for_trace(const Scenario& s, std::uint32_t trace_gpus) {
    return nics_of_gpus(s, trace_gpus);
}
}  // namespace

std::uint32_t nics_of_gpus(const Scenario& s, std::uint32_t gpus) {
    const std::uint32_t per = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
    return (gpus + per - 1) / per * s.cluster.nics_per_node;
}

std::uint32_t serving_fabric_nics(const Scenario& s) {
    return s.topology.endpoints_set ? s.topology.endpoints
                                    : nics_of_gpus(s, s.serving.deployment.gpus());
}

Scenario serving_fabric_scenario(const Scenario& s) {
    Scenario whole = s;
    whole.serving.set = false;
    whole.topology.endpoints = serving_fabric_nics(s);
    whole.topology.endpoints_set = true;
    return whole;
}

FabricPlan plan_fabric(const Scenario& s, std::uint32_t trace_gpus) {
    FabricPlan f{build_topology(s, nics_for_trace(s, trace_gpus), true)};
    const Inventory& inv = f.fabric.inventory;
    if (!inv.constructible)
        throw s.error_at("topology.q", inv.note + " (expected a constructible size to simulate)");
    f.fabric_switches = inv.switches;
    f.fabric_cables = inv.switch_links + inv.endpoint_links;
    f.edge_switches = inv.tiers.empty() ? inv.switches : inv.tiers.front().switches;
    f.endpoints = inv.endpoints;
    f.switches = f.fabric_switches;
    f.cables = f.fabric_cables;
    const std::uint32_t lanes = virtual_lanes(s, f.fabric);
    f.lanes = lanes;
    const std::uint64_t per_lane = s.network.port_buffer_bytes / lanes;
    if (per_lane < static_cast<std::uint64_t>(s.network.mtu_bytes) + s.network.header_bytes)
        throw s.error_at(
            "network.port_buffer_bytes",
            fmt::format("{} bytes split over {} virtual lanes cannot hold one packet per lane "
                        "(expected at least {})",
                        s.network.port_buffer_bytes, lanes,
                        lanes * (s.network.mtu_bytes + s.network.header_bytes)));
    const std::uint64_t packet_bytes =
        static_cast<std::uint64_t>(s.network.mtu_bytes) + s.network.header_bytes;
    if (!s.cluster.bare && s.cluster.preset.internal_buffer_bytes < packet_bytes)
        throw s.error_at(
            "network.mtu_bytes",
            fmt::format("a {}-byte packet does not fit the {} node's internal buffers of {} bytes "
                        "(expected mtu_bytes + header_bytes at most {})",
                        packet_bytes, s.cluster.node, s.cluster.preset.internal_buffer_bytes,
                        s.cluster.preset.internal_buffer_bytes));
    if (s.cluster.bare) {
        if (find_topology_kind(s.topology.kind)->needs_node_model)
            throw s.error_at(
                "cluster.node",
                fmt::format("a {} fabric needs the node model to carry traffic between "
                            "planes or ports (expected a node preset such as h800)",
                            s.topology.kind));
        return f;
    }
    const NodeSpec spec = node_spec(s);
    try {
        const std::uint64_t nodes = node_count(inv.endpoints, spec);
        f.node_model = true;
        f.endpoints = nodes * spec.gpus;
        f.switches += inv.endpoints + nodes * (node_switches(spec) - spec.nics);
        f.cables += nodes * node_cables(spec);
    } catch (const KeyError& e) {
        throw s.error_for(e);
    }
    return f;
}

SimulatedFabric build_simulated_fabric(const Scenario& s, std::uint32_t trace_gpus) {
    const FabricPlan plan = plan_fabric(s, trace_gpus);  // every check, before building
    SimulatedFabric f{build_topology(s, nics_for_trace(s, trace_gpus)), {}, std::nullopt, {}};
    f.routes = shortest_path_routes(f.fabric.graph);
    if (!plan.node_model) return f;
    try {
        f.expanded = expand_nodes(f.fabric, node_spec(s), f.layout);
    } catch (const KeyError& e) {
        throw s.error_for(e);
    }
    return f;
}

bool fabric_has_route_choice(const Scenario& s) {
    const Topology t = build_topology(s, nics_for_trace(s, workload_gpus(s, load_trace(s))));
    const ForwardingTables routes = shortest_path_routes(t.graph);
    for (std::size_t g = 0; g < routes.group_count(); ++g)
        if (routes.group(static_cast<std::uint32_t>(g)).size() > 1) return true;
    return false;
}

std::uint32_t virtual_lanes(const Scenario& s, const Topology& fabric) {
    if (s.network.virtual_lanes != 0) return s.network.virtual_lanes;
    // A detour through an intermediate switch is two minimal routes: twice the lanes.
    const bool detours =
        routing_policies()[s.network.routing_params.policy].non_minimal != NonMinimal::Never;
    return std::min(kMaxVirtualLanes, fabric.virtual_lanes * (detours ? 2 : 1));
}

NetworkParams network_params(const Scenario& s, const Topology& fabric) {
    NetworkParams p;
    p.mtu_bytes = s.network.mtu_bytes;
    p.header_bytes = s.network.header_bytes;
    p.flow_control = s.network.flow_control;
    p.seed = s.seed;
    p.extra_latency = Time::from_us(s.network.extra_latency_us);
    p.routing = s.network.routing_params;
    p.retransmission =
        s.network.go_back_n ? Retransmission::GoBackN : Retransmission::SelectiveRepeat;
    p.ack_every = s.network.ack_every;
    p.ack_timeout_exponent = s.network.ack_timeout_exponent;
    p.retry_count = s.network.retry_count;
    p.adaptive_initial_timeout =
        Time::from_ps(static_cast<std::int64_t>(s.network.adaptive_retransmission_ns) * 1000);
    p.complete_on_ack = s.sim.complete_on_ack;
    p.pfc_alpha = s.network.pfc_alpha;
    p.sample_period = Time::from_us(s.sim.sample_us);
    p.sample_rows = s.sim.sample_rows;
    const auto& n = s.network;
    p.cc = n.cc;
    p.ecn_kmin_bytes = n.ecn_kmin_bytes;
    p.ecn_kmax_bytes = n.ecn_kmax_bytes;
    p.ecn_pmax = n.ecn_pmax;
    p.virtual_lanes = virtual_lanes(s, fabric);
    // A fault that stops cables loses the packets at them: transports must retransmit.
    p.faults_drop =
        s.network.reliable || std::any_of(s.faults.begin(), s.faults.end(), [](const FaultSpec& f) {
            switch (f.kind) {
                case FaultKind::LinkDown:
                case FaultKind::SwitchDown:
                case FaultKind::NicDown:
                case FaultKind::PlaneDown:
                case FaultKind::LinkFlap:
                    return true;
                case FaultKind::LinkLossy:
                    return f.loss_rate > 0;
                default:
                    return false;
            }
        });
    return p;
}

const WorkloadKind& validate_workload(const Scenario& s) {
    const auto& w = s.workload;
    std::string names;
    for (const auto& k : workload_kinds().rows())
        names += (names.empty() ? "" : ", ") + std::string(k.name);
    if (w.kind.empty())
        throw s.error_at("workload.kind", fmt::format("missing (expected one of: {})", names));
    const WorkloadKind* kind = find_workload_kind(w.kind);
    if (!kind)
        throw s.error_at(
            "workload.kind",
            fmt::format("unsupported value '{}' (expected one of: {})", w.kind, names));
    if (kind->needs_message_bytes && w.message_bytes == 0)
        throw s.error_at(
            "workload.message_bytes",
            fmt::format("missing: workload '{}' needs a message size (expected e.g. 2MiB)",
                        w.kind));
    return *kind;
}

WorkloadRequest workload_request(const Scenario& s, std::uint32_t endpoints) {
    const auto& w = s.workload;
    WorkloadRequest r;
    r.endpoints = endpoints;
    r.message_bytes = w.message_bytes;
    r.start = Time::from_us(w.start_us);
    r.seed = s.seed;
    if (const WorkloadKind* kind = find_workload_kind(w.kind); kind && kind->parse)
        kind->parse(s.values, r);  // the kind's own keys
    return r;
}

Workload build_workload(const Scenario& s, std::uint32_t endpoints, TraceInput trace) {
    const auto& w = s.workload;
    const WorkloadKind* kind = &validate_workload(s);
    WorkloadRequest r = workload_request(s, endpoints);
    if (w.kind == "trace") {
        r.trace = &trace.workload;
        r.trace_nodes = trace.nodes;
    }
    std::optional<MoeRunSpec> moe;
    if (w.kind == "moe") {
        moe = moe_run_spec(s, endpoints);
        r.moe = &*moe;
    }
    try {
        return kind->build(r);
    } catch (const KeyError& e) {
        throw s.error_for(e);
    }
}

GatingParams moe_gating_params(const Scenario& s) {
    const auto& w = s.workload;
    GatingParams g;
    g.kind = w.gating;
    if (g.kind == GatingKind::Trace) {
        if (w.expert_load_file.empty())
            throw s.error_at("workload.gating",
                             "trace gating needs workload.expert_load_file (expected a CSV of "
                             "expert,load lines)");
        try {
            g.recorded_load = read_expert_load_file(
                w.expert_load_file, s.model.preset.routed_experts, s.model.preset.top_k);
        } catch (const InputError& e) {
            if (e.line() == 0)
                throw s.error_at("workload.expert_load_file", "'" + e.file() + "' " + e.what());
            throw;
        }
    }
    g.zipf_s = w.zipf_s;
    g.hot_experts = std::min(w.hot_experts, s.model.preset.routed_experts);
    g.hot_factor = w.hot_factor;
    g.max_nodes_per_token = w.max_nodes_per_token;
    g.affinity_groups = std::min(w.affinity_groups, s.model.preset.routed_experts);
    g.affinity_factor = w.affinity_factor;
    g.seed = s.seed;
    return g;
}

MoeTrafficParams moe_traffic_params(const Scenario& s) {
    const auto& w = s.workload;
    MoeTrafficParams t;
    t.mode = w.normal_mode ? MoeMode::Normal : MoeMode::LowLatency;
    // Decode with MTP: every request's drafts go through every layer with it.
    t.tokens_per_gpu = w.tokens_per_gpu * (1 + w.mtp_draft_tokens);
    t.shared_expert_remote = w.shared_expert_remote;
    t.intranode_via_rdma = w.intranode_via_rdma;
    t.issue_order = w.destination_sorted ? IssueOrder::DestinationSorted : IssueOrder::Library;
    return t;
}

ExpertPlacement moe_placement(const Scenario& s, const GatingParams& g) {
    const MoeModel& m = s.model.preset;
    const auto& w = s.workload;
    if (w.expert_placement == "coactivation") {
        if (m.routed_experts > kMaxCoactivationExperts)
            throw s.error_at("workload.expert_placement",
                             fmt::format("co-activation placement counts expert pairs: {} routed "
                                         "experts (expected at most {})",
                                         m.routed_experts, kMaxCoactivationExperts));
        try {
            return place_experts_by_coactivation(m, w.redundant_experts, w.ep_size,
                                                 s.cluster.gpus_per_node, g);
        } catch (const std::invalid_argument& e) {
            throw s.error_at("workload.expert_placement", e.what());
        }
    }
    const std::vector<std::uint32_t> order = w.expert_placement == "round-robin"
                                                 ? round_robin_order(m.routed_experts, w.ep_size)
                                                 : std::vector<std::uint32_t>{};
    return place_experts(m.routed_experts, w.redundant_experts, w.ep_size, s.cluster.gpus_per_node,
                         expert_weights(m.routed_experts, g), order);
}

std::uint32_t simulated_layers_to_run(const Scenario& s) {
    const std::uint32_t moe_layers = s.model.preset.moe_layers();
    if (s.workload.simulated_layers > 0) return std::min(s.workload.simulated_layers, moe_layers);
    return std::min(
        s.workload.phase == MoePhase::Decode ? kAutoLayersStart : kAutoLayersCostlyStart,
        moe_layers);
}

namespace {
// Where the step's EP groups sit (the layout fields of its spec alone).
MoeRunSpec group_layout(const Scenario& s) {
    const auto& w = s.workload;
    MoeRunSpec spec;
    spec.placement.ep_size = w.ep_size;
    spec.groups = w.ep_groups;
    spec.spread = w.ep_spread;
    spec.first_gpu = w.first_gpu;
    spec.groups_per_pod = w.groups_per_pod;
    spec.pod_stride_gpus = w.pod_stride_gpus;
    return spec;
}

}  // namespace

std::uint64_t pod_gpus(const Scenario& s, const Topology& fabric) {
    if (fabric.pod_nics == 0) return 0;
    const std::uint32_t nics = std::max<std::uint32_t>(1, s.cluster.nics_per_node);
    return s.cluster.bare ? fabric.pod_nics
                          : std::uint64_t{fabric.pod_nics} / nics * s.cluster.gpus_per_node;
}

void check_groups_in_pods(const Scenario& s, const Topology& fabric) {
    const std::uint64_t pod = pod_gpus(s, fabric);
    if (pod == 0 || s.workload.kind != "moe") return;
    const MoeRunSpec layout = group_layout(s);
    const std::uint32_t last = s.workload.ep_size - 1;
    for (std::uint32_t g = 0; g < s.workload.ep_groups; ++g) {
        const std::uint64_t a = group_gpu(layout, g, 0), b = group_gpu(layout, g, last);
        if (a / pod != b / pod)
            throw s.error_at(
                s.workload.ep_spread ? "workload.ep_placement" : "workload.ep_size",
                fmt::format("EP group {} on GPUs {}-{} spans pods {} and {}, and the {} "
                            "fabric's pods of {} GPUs are not connected (expected every group "
                            "inside one pod: packed, with ep_size dividing {})",
                            g, a, b, a / pod, b / pod, s.topology.kind, pod, pod));
    }
}

void check_messages_in_pods(const Scenario& s, const Topology& fabric, const Workload& w) {
    const std::uint64_t pod = pod_gpus(s, fabric);
    if (pod == 0) return;
    for (std::size_t i = 0; i < w.messages.size(); ++i) {
        const Message& m = w.messages[i];
        if (m.src / pod != m.dst / pod)
            throw s.error_at(
                "topology.pods",
                fmt::format("message {} from GPU {} (pod {}) to GPU {} (pod {}) has no path: "
                            "the {} fabric's pods of {} GPUs are not connected (expected the "
                            "workload's traffic inside pods, or fewer pods)",
                            i, m.src, m.src / pod, m.dst, m.dst / pod, s.topology.kind, pod));
    }
}

MoeRunSpec moe_run_spec(const Scenario& s, std::uint32_t endpoints) {
    const auto& w = s.workload;
    if (!s.model.set)
        throw s.error_at("workload.kind", "a moe workload needs a model (expected model.name)");
    const std::uint64_t gpus = std::uint64_t{w.ep_size} * w.ep_groups;
    MoeRunSpec spec = group_layout(s);
    if (const std::uint64_t need =
            std::uint64_t{group_gpu(spec, w.ep_groups - 1, w.ep_size - 1)} + 1;
        need > endpoints)
        throw s.error_at(
            s.positions.count("workload.ep_groups") ? "workload.ep_groups" : "workload.ep_size",
            fmt::format("{} EP groups of {} ranks need {} GPUs but the fabric has {} "
                        "(expected at most {}, or a larger topology.endpoints)",
                        w.ep_groups, w.ep_size, need, endpoints, endpoints));
    spec.phase = w.phase;
    spec.model = s.model.preset;
    spec.gating = moe_gating_params(s);
    spec.placement = moe_placement(s, spec.gating);
    // GPUs lost for good (faults): their experts move to the redundant copies (placement
    // counts ranks, lost_ranks GPUs).
    std::vector<std::uint32_t> lost_ranks;
    for (std::uint32_t g : ranks_lost_from_start(s))
        if (g >= w.first_gpu && g - w.first_gpu < gpus) {
            spec.lost_ranks.push_back(g);
            lost_ranks.push_back(g - w.first_gpu);
        }
    serve_from_copies(spec.placement, lost_ranks);
    spec.traffic = moe_traffic_params(s);
    const NodePreset& n = s.cluster.preset;
    spec.gpu = gpu_throughput(n);
    spec.micro_batches = w.micro_batches;
    spec.simulated_layers = simulated_layers_to_run(s);
    spec.kv_length = w.kv_length;
    spec.contexts = w.contexts;
    spec.request_balance = w.request_balance;
    spec.mtp_draft_tokens = w.mtp_draft_tokens;
    spec.schedule = w.schedule;
    spec.gpu_sms = n.sms;
    spec.comm_sms = w.comm_sms;
    // The channels DeepEP's kernels make come from the SMs they use, also when the scenario
    // does not model the SMs they take from compute (comm_sms 0).
    spec.normal = deepep_normal_config(w.ep_size, w.comm_sms > 0 ? w.comm_sms : n.comm_sms);
    spec.mtp_acceptance = w.mtp_acceptance;
    spec.seed = s.seed;
    return spec;
}

MoeStepShape moe_step_shape(const Scenario& s, bool whole_step) {
    const auto& w = s.workload;
    const MoeModel& m = s.model.preset;
    MoeStepShape shape;
    shape.ep_size = w.ep_size;
    shape.gpus_per_node = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
    shape.tokens_per_gpu = std::uint64_t{w.tokens_per_gpu} * (1 + w.mtp_draft_tokens);
    if (whole_step) {
        shape.groups = w.ep_groups;
        shape.micro_batches = w.micro_batches;
        const std::uint64_t layers = simulated_layers_to_run(s);
        // An MTP module's pass carries one token per request where a layer's carries 1 +
        // drafts: counted as a layer's, an upper bound.
        shape.passes = w.phase == MoePhase::Training ? 2 * layers : layers + w.mtp_draft_tokens;
    } else {
        shape.passes = 1;
    }
    shape.routed_experts = m.routed_experts;
    shape.top_k = m.top_k;
    shape.remote_copies = w.shared_expert_remote ? m.shared_experts : 0;
    shape.max_nodes_per_token = w.max_nodes_per_token;
    shape.expert_slots = std::uint64_t{m.routed_experts} + w.redundant_experts;
    shape.low_latency = !w.normal_mode;
    shape.hold_sms = w.normal_mode && w.comm_sms > 0;
    shape.chunked = !w.destination_sorted;
    shape.five_stage = w.schedule == StepSchedule::FiveStage;
    const NormalKernelConfig normal =
        deepep_normal_config(w.ep_size, w.comm_sms > 0 ? w.comm_sms : s.cluster.preset.comm_sms);
    shape.channels = normal.channels;
    shape.dispatch_chunk_tokens = normal.dispatch_chunk_tokens;
    shape.combine_chunk_tokens = normal.combine_chunk_tokens;
    // Training's backward all-to-alls carry BF16 both ways: the larger of the two then.
    const std::uint64_t fp8 = w.normal_mode ? normal_dispatch_record_bytes(m.hidden, m.top_k)
                                            : dispatch_payload_bytes(m.hidden) +
                                                  dispatch_scale_bytes(m.hidden) +
                                                  kLowLatencyDispatchHeaderBytes;
    const std::uint64_t bf16 = w.normal_mode ? normal_combine_record_bytes(m.hidden, m.top_k)
                                             : combine_payload_bytes(m.hidden);
    shape.dispatch_bytes_per_token = w.phase == MoePhase::Training ? std::max(fp8, bf16) : fp8;
    shape.combine_bytes_per_token = bf16;
    return shape;
}

MoeRun build_moe(const Scenario& s, std::uint32_t endpoints) {
    try {
        return build_moe_run(moe_run_spec(s, endpoints));
    } catch (const std::invalid_argument& e) {
        throw s.error_at("workload.gating", e.what());
    }
}

}  // namespace clustersim
