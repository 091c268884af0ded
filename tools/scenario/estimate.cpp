#include "tools/scenario/estimate.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string_view>

#include "models/dag/dag_runtime.hpp"
#include "models/fabric/fabric.hpp"
#include "models/forwarding/forwarding.hpp"
#include "models/network/logical_processes.hpp"
#include "models/network/network.hpp"
#include "models/network/partitions.hpp"
#include "models/network/port_graph.hpp"
#include "models/network/simulation.hpp"
#include "models/network/tier_series.hpp"
#include "models/transport/rdma_transport.hpp"
#include "sim/event.hpp"
#include "sim/thread_balance.hpp"
#include "tools/scenario/process_memory.hpp"
#include "topologies/topology_kinds.hpp"
#include "traffic/moe_gating.hpp"

namespace clustersim {
namespace {

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// A PortGraph of s switches, c cables, e endpoints: its vectors, offsets included.
std::uint64_t graph_bytes(std::uint64_t s, std::uint64_t c, std::uint64_t e) {
    return s * sizeof(SwitchInfo) + c * sizeof(PortGraph::Cable) + 2 * c * sizeof(Channel) +
           (s + e + 1) * sizeof(std::uint32_t);
}

// Boost's adjacency_list<vecS, vecS, undirectedS> built for route computation: a vertex is a
// vector header, an edge a node in the edge list (two pointers and the pair) plus one
// out-edge record at each end.
constexpr std::uint64_t kBoostVertexBytes = 3 * sizeof(void*);
constexpr std::uint64_t kBoostEdgeBytes = 4 * sizeof(void*) + 2 * 2 * sizeof(void*);

// The keys that size a MoE step, most often the one to change first.
constexpr std::string_view kMoeSizeKeys[] = {"workload.tokens_per_gpu", "workload.ep_size",
                                             "workload.micro_batches", "workload.simulated_layers",
                                             "workload.ep_groups"};

// Which of `keys` to blame for a size: one set by --set (what the user just changed), else the
// first the scenario sets, else the first.
template <std::size_t N>
std::string blame(const Scenario& s, const std::string_view (&keys)[N]) {
    for (const std::string_view k : keys)
        if (auto it = s.positions.find(std::string(k));
            it != s.positions.end() && it->second.file == "--set")
            return std::string(k);
    for (const std::string_view k : keys)
        if (s.positions.count(std::string(k))) return std::string(k);
    return std::string(keys[0]);
}

}  // namespace

WorkloadSize workload_size(const Scenario& s, std::uint64_t endpoints, const Workload* built,
                           std::uint64_t& packets) {
    const std::uint64_t mtu = std::max<std::uint64_t>(1, s.network.mtu_bytes);
    auto packets_of = [mtu](std::uint64_t bytes) { return bytes == 0 ? 0 : (bytes - 1) / mtu + 1; };
    if (s.workload.kind == "moe" && !built) {
        const MoeStepSize m = moe_step_size(moe_step_shape(s), s.network.mtu_bytes);
        packets = m.packets;
        return m.workload;
    }
    const WorkloadKind* kind = find_workload_kind(s.workload.kind);
    if (kind && kind->size && !built) {
        const WorkloadSize w = kind->size(workload_request(
            s, static_cast<std::uint32_t>(std::min<std::uint64_t>(endpoints, UINT32_MAX))));
        packets = saturating_mul(w.messages, packets_of(w.message_bytes));
        return w;
    }
    WorkloadSize w;
    packets = 0;
    if (!built) return w;
    w.messages = built->messages.size();
    w.dependencies = built->dependency_count();
    w.computes = built->computes.size();
    w.joins = built->joins.size();
    for (const auto& m : built->messages) {
        packets = saturating_add(packets, packets_of(m.bytes));
        w.message_bytes = std::max(w.message_bytes, m.bytes);
    }
    return w;
}

RunEstimate estimate_run(const Scenario& s, const FabricPlan& f, const WorkloadSize& w,
                         std::uint64_t packets) {
    RunEstimate e;
    e.messages = w.messages;
    e.packets = packets;
    e.gating_scores = w.gating_scores;
    const std::uint64_t mtu = std::max<std::uint64_t>(1, s.network.mtu_bytes);
    e.largest_message_packets = w.message_bytes == 0 ? 0 : (w.message_bytes - 1) / mtu + 1;
    // Links on the longest path: the fabric's switches plus one, and inside nodes the hub,
    // PCIe and NIC hops at both ends; where cross-plane traffic is forwarded inside the source
    // node (PXN), two more there (to the NVSwitch and on to the forwarding GPU).
    const TopologyKind* kind = find_topology_kind(s.topology.kind);
    const std::uint64_t links = f.fabric.inventory.max_hops + 1 + (f.node_model ? 4 : 0) +
                                (f.node_model && kind && kind->pxn ? 2 : 0);
    // The tier series' samples too (models/network/tier_series.hpp), at most a fixed count.
    const long double events = static_cast<long double>(packets) * 2 * links +
                               2.0L * static_cast<long double>(w.messages) +
                               static_cast<long double>(TierSeries::kMaxSamples);
    e.events = events > 1.8e19L ? UINT64_MAX : static_cast<std::uint64_t>(events);

    const bool pfc = s.network.flow_control == FlowControl::Pfc;
    const std::uint64_t channels = 2 * f.cables;
    // Logical processes: fabric switches, and nodes (or bare endpoints).
    const std::uint64_t processes =
        f.fabric_switches +
        (f.node_model ? f.endpoints / std::max(1u, s.cluster.gpus_per_node) : f.endpoints);
    const NetworkParams params = network_params(s, f.fabric);
    e.single_reason = shared_state_reason(params);
    if (e.single_reason.empty() && s.sim.partitions == 1) e.single_reason = "sim.partitions is 1";
    const std::uint32_t partitions =
        e.single_reason.empty() ? partitions_for(processes, s.sim.partitions) : 1;
    e.partitions = partitions;
    // An event calendar per partition and the observer's (one in all for a model that is one
    // partition: sim/simulator.hpp runs it on a single queue), every bucket holding a chunk half
    // filled (assumption; measured: 44 MB more at 2,048 GPUs cut in 11 than in one with 4,096
    // buckets of 752 B chunks).
    e.calendar_bytes =
        (partitions > 1 ? partitions + 1 : 1) *
        EventQueue::calendar_bytes(0.5, EventQueue::kBuckets >> EventQueue::widening(partitions));
    e.fabric_bytes = graph_bytes(f.fabric_switches, f.fabric_cables, f.fabric.inventory.endpoints) +
                     (f.node_model ? graph_bytes(f.switches, f.cables, f.endpoints) : 0) +
                     channels * Fabric::bytes_per_channel(pfc, f.lanes) +
                     f.switches * Fabric::bytes_per_switch(pfc) +
                     Forwarding::memory_bytes(f.fabric_switches, f.switches, channels, f.endpoints,
                                              s.network.routing == "flowlet") +
                     (f.node_model ? f.switches * 8 + f.endpoints * 8 : 0) +  // node layout
                     // Logical processes: the map per switch and endpoint, and at most one
                     // process each (plus the observer) with the simulator's counters.
                     (f.switches + f.endpoints) * sizeof(std::uint32_t) +
                     (f.switches + f.endpoints + 1) * LogicalProcesses::kBytesPerProcess +
                     e.calendar_bytes;
    e.routes_bytes = saturating_mul(f.fabric_switches, f.edge_switches) * sizeof(std::uint32_t) +
                     f.fabric_switches * (kBoostVertexBytes + 4 * sizeof(std::uint32_t)) +
                     f.fabric.inventory.switch_links * kBoostEdgeBytes;

    const bool reliable = params.reliable();
    const bool paced = s.network.congestion_control != "none";
    // A message is 16 B; start times and labels are kept beside it only where some message has
    // its own (pattern and trace workloads: counted at most; a MoE step's have none).
    const std::uint64_t spec_bytes =
        sizeof(Message) + (s.workload.kind == "moe" ? 0 : sizeof(Time) + sizeof(std::uint64_t));
    const std::uint64_t per_message = spec_bytes +
                                      RdmaTransport::bytes_per_message(reliable, paced) +
                                      // the result keeps the transport's states, moved
                                      DagRuntime::kBytesPerMessage;
    const std::uint64_t per_compute = sizeof(ComputeSpec) + sizeof(ComputeState) + 8;
    const std::uint64_t per_join = sizeof(JoinSpec) + DagRuntime::bytes_per_join();
    // While the workload is built its lists grow by doubling (libstdc++), the pages of a list
    // resident as far as it is filled: the largest, the dependency list, is copied a last time
    // when it passes its last power of two (old and new copies resident together), the others
    // then at the same share of their size. Sealing then builds the graph (an edge per
    // dependency, a row per task) beside the lists before it frees the dependency list. The
    // larger of the two, beside the generator's tables. While it runs: the tasks, the graph and
    // the run's per-task state. The larger of building and running.
    const std::uint64_t built_bytes = saturating_mul(w.messages, spec_bytes) +
                                      saturating_mul(w.dependencies, sizeof(Dependency)) +
                                      saturating_mul(w.computes, sizeof(ComputeSpec)) +
                                      saturating_mul(w.joins, sizeof(JoinSpec));
    const std::uint64_t graph_bytes =
        saturating_mul(w.dependencies, DagRuntime::kBytesPerDependency);
    const std::uint64_t rows_bytes =
        saturating_mul(w.messages + w.computes + w.joins, sizeof(std::uint32_t));
    const std::uint64_t last_doubling = std::bit_floor(w.dependencies);
    const std::uint64_t growing =
        w.dependencies == 0 ? built_bytes
                            : static_cast<std::uint64_t>(static_cast<long double>(built_bytes) *
                                                         static_cast<long double>(last_doubling) /
                                                         static_cast<long double>(w.dependencies)) +
                                  saturating_mul(last_doubling, sizeof(Dependency));
    const std::uint64_t sealing =
        saturating_add(built_bytes, saturating_add(graph_bytes, rows_bytes));
    const std::uint64_t building = saturating_add(std::max(growing, sealing), w.other_bytes);
    const std::uint64_t running = saturating_add(
        saturating_add(saturating_mul(w.messages, per_message), graph_bytes),
        saturating_add(saturating_mul(w.computes, per_compute), saturating_mul(w.joins, per_join)));
    e.workload_bytes = std::max(building, running);

    // Packets alive at once: at most the packets of the run, and at most what every port's
    // buffer holds (a lossless fabric cannot hold more; a lossy one drops the rest).
    const std::uint64_t packet_wire =
        std::max<std::uint64_t>(1, std::uint64_t{s.network.mtu_bytes} + s.network.header_bytes);
    const std::uint64_t fabric_channels = 2 * f.fabric_cables;
    std::uint64_t buffered =
        saturating_mul(fabric_channels, s.network.port_buffer_bytes / packet_wire);
    if (f.node_model)
        buffered = saturating_add(
            buffered, saturating_mul(channels - fabric_channels,
                                     s.cluster.preset.internal_buffer_bytes / packet_wire));
    const std::uint64_t alive = std::min(packets, buffered);
    // A packet alive is queued (in a chunk of its partition's pool, given back once empty) or
    // on a link (its record in the fabric's pool, a free-list index and its arrival event);
    // counted at the larger of the two, plus a pending event. A queue holding packets has a
    // partly used chunk at its tail: half used on average (an assumption).
    using Chunk = ChunkedFifo<Packet>::Chunk;
    constexpr std::uint64_t kPerPacket =
        std::max(sizeof(Chunk) / Chunk::kItems, sizeof(InFlight) + sizeof(std::uint32_t));
    // Receivers are held while their messages arrive: about one per packet alive at most
    // (a message partly here has packets on the way), in slots made once and reused.
    e.packet_bytes =
        saturating_mul(alive, kPerPacket + sizeof(Event)) +
        std::min(alive, channels) * sizeof(Chunk) / 2 +
        channels * sizeof(Event) +  // a pending event per port at most
        saturating_mul(std::min(alive, w.messages), RdmaTransport::bytes_per_receiver());
    return e;
}

RanksEstimate estimate_ranks(const Scenario& s, const RunEstimate& e, std::uint32_t ranks) {
    RanksEstimate out;
    ranks = std::max<std::uint32_t>(1, ranks);
    // As the run decides: a model that is one partition, or has faults, runs whole on every rank.
    if (ranks > 1)
        out.whole_reason = whole_on_every_rank(e.partitions, !s.faults.empty(), e.single_reason);
    const std::uint64_t mpi = ranks > 1 ? RanksEstimate::kMpiRankBytes : 0;
    out.per_rank.resize(ranks);
    if (ranks == 1 || !out.whole_reason.empty()) {
        for (RankShare& r : out.per_rank)
            r = RankShare{e.partitions, e.events, e.memory_bytes() + mpi};
        return out;
    }
    // A rank's partitions each hold a calendar with its chunks; the others' keep only their
    // bucket index (EventQueue takes a chunk when a bucket is first used). Packets alive, and
    // events, divide as the partitions do: METIS balances expected events between them.
    const std::uint32_t p = e.partitions;
    const std::uint64_t calendar = e.calendar_bytes / (p + 1);
    const std::uint64_t index_only =
        EventQueue::calendar_bytes(1.0, EventQueue::kBuckets >> EventQueue::widening(p));
    const std::uint64_t shared = e.memory_bytes() - e.calendar_bytes - e.packet_bytes + mpi;
    std::vector<std::uint32_t> dealt(ranks, 0);
    for (const std::uint32_t r : deal_to_ranks({}, p, ranks)) ++dealt[r];
    for (std::uint32_t r = 0; r < ranks; ++r) {
        const std::uint32_t mine = dealt[r];
        const auto share = [&](std::uint64_t total) {
            return static_cast<std::uint64_t>(static_cast<long double>(total) * mine / p);
        };
        out.per_rank[r] = RankShare{
            mine, share(e.events),
            shared + (mine + 1) * calendar + (p - mine) * index_only + share(e.packet_bytes)};
    }
    return out;
}

std::string ranks_note(const RanksEstimate& r) {
    if (r.per_rank.size() < 2) return "one process runs the whole model";
    if (!r.whole_reason.empty()) return "every rank runs the whole model: " + r.whole_reason;
    return "every rank builds the whole model (fabric, routes, workload) and runs its "
           "partitions: packets, events and event calendars divide";
}

std::uint64_t memory_limit_bytes(const Scenario& s) {
    if (s.sim.max_memory_gb > 0) return static_cast<std::uint64_t>(s.sim.max_memory_gb * 1e9);
    const ProcessMemory m = process_memory_limit();
    return m.bytes == UINT64_MAX ? m.bytes : m.bytes / 4 * 3;
}

std::uint64_t peak_memory_bytes() {
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) != 0 || u.ru_maxrss <= 0) return 0;
    return static_cast<std::uint64_t>(u.ru_maxrss) * 1024;  // Linux counts kilobytes
}

std::string format_bytes(std::uint64_t bytes) {
    const auto b = static_cast<double>(bytes);
    if (bytes >= 1000000000ull) return fmt::format("{:.2f} GB", b / 1e9);
    if (bytes >= 1000000ull) return fmt::format("{:.1f} MB", b / 1e6);
    return fmt::format("{:.0f} kB", b / 1e3);
}

void check_run_limits(const Scenario& s, const RunEstimate& e) {
    // Packet sequence numbers are 32 bits, as RoCE's PSNs are 24.
    if (e.largest_message_packets > UINT32_MAX) {
        const std::string key = s.positions.count("network.mtu_bytes") ? "network.mtu_bytes"
                                : s.workload.kind == "trace"           ? "workload.file"
                                                                       : "workload.message_bytes";
        throw s.error_at(key, fmt::format("a message of {} packets of {} bytes is more than the "
                                          "2^32 - 1 packets one message may have (expected "
                                          "smaller messages or a larger MTU)",
                                          e.largest_message_packets, s.network.mtu_bytes));
    }
    if (e.gating_scores > kMaxGatingScores) {
        throw s.error_at(blame(s, kMoeSizeKeys),
                         fmt::format("the gating would draw {} expert scores (routed experts "
                                     "x tokens routed), more than the {} one run may "
                                     "(expected fewer tokens per GPU, a smaller EP group or "
                                     "fewer layers and micro-batches)",
                                     e.gating_scores, kMaxGatingScores));
    }
    if (e.messages > TaskRef::kMaxIndex)
        throw s.error_at("workload.kind",
                         fmt::format("the workload is {} messages, more than the {} one run "
                                     "holds (expected a smaller workload or topology.endpoints)",
                                     e.messages, TaskRef::kMaxIndex));
    if (s.sim.max_events > 0 && e.events > s.sim.max_events)
        throw s.error_at("sim.max_events",
                         fmt::format("the run needs about {} events for {} packets (expected at "
                                     "most {}, or a larger sim.max_events)",
                                     e.events, e.packets, s.sim.max_events));
    const std::uint64_t limit = memory_limit_bytes(s);
    if (e.memory_bytes() <= limit) return;
    // Blame what the user set that sized the larger part: the limit itself if they set it,
    // else the workload's size or the fabric's.
    const bool workload = e.workload_bytes + e.packet_bytes > e.fabric_bytes + e.routes_bytes;
    std::string key = "sim.max_memory_gb";
    if (!s.positions.count(key)) {
        static constexpr std::string_view fabric_keys[] = {
            "topology.endpoints", "topology.q", "topology.groups", "topology.switch_radix",
            "topology.kind"};
        // Messages drive the workload's part, message sizes the packets'.
        static constexpr std::string_view message_keys[] = {"workload.kind",
                                                            "workload.message_bytes"};
        static constexpr std::string_view packet_keys[] = {"workload.message_bytes",
                                                           "workload.kind"};
        if (!workload)
            key = blame(s, fabric_keys);
        else if (s.workload.kind == "moe")
            key = blame(s, kMoeSizeKeys);
        else
            key = blame(s, e.packet_bytes > e.workload_bytes ? packet_keys : message_keys);
    }
    throw s.error_at(
        key, fmt::format("the run needs about {} (fabric {}, routes {}, workload {}, packets "
                         "{}), more than the {} allowed{} (expected a smaller {}, or a larger "
                         "sim.max_memory_gb)",
                         format_bytes(e.memory_bytes()), format_bytes(e.fabric_bytes),
                         format_bytes(e.routes_bytes), format_bytes(e.workload_bytes),
                         format_bytes(e.packet_bytes), format_bytes(limit),
                         s.sim.max_memory_gb > 0 ? std::string()
                                                 : fmt::format(" (three quarters of the {})",
                                                               process_memory_limit().source),
                         workload ? "workload" : "fabric"));
}

namespace {
// `check` builds a workload of at most this many messages to run its builder's checks too.
constexpr std::uint64_t kCheckBuildMessages = 4'000'000;
}  // namespace

ScenarioEstimate estimate_scenario(const Scenario& s) {
    ScenarioEstimate out;
    if (s.workload.kind != "moe" && !s.workload.kind.empty()) (void)validate_workload(s);
    TraceInput trace = load_trace(s);
    const bool moe = s.workload.kind == "moe";
    if (s.workload.kind.empty()) {  // a fabric to price, not to run: any size counts
        const Topology t = build_topology(s, 0, true);
        out.fabric_kind = t.kind;
        out.fabric_endpoints = t.inventory.endpoints;
        return out;
    }
    out.has_workload = true;
    const FabricPlan plan = plan_fabric(s, workload_gpus(s, trace));
    const std::uint64_t endpoints = plan.endpoints;
    std::uint64_t packets = 0;
    WorkloadSize size;
    if (moe) {
        // The step's size from its formula; the limits apply before gating draws a token.
        size = workload_size(s, endpoints, nullptr, packets);
        out.run = estimate_run(s, plan, size, packets);
        check_run_limits(s, out.run);
        validate_moe_step(s, static_cast<std::uint32_t>(endpoints));
        check_groups_in_pods(s, plan.fabric);
        const std::uint64_t per_node = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
        const std::uint64_t nodes = (std::uint64_t{s.workload.ep_size} + per_node - 1) / per_node;
        out.what = fmt::format("moe: {} {}, EP {} over {} node{}, {} group(s)", s.model.preset.name,
                               phase_name(s.workload.phase), s.workload.ep_size, nodes,
                               nodes == 1 ? "" : "s", s.workload.ep_groups);
        // On a multi-plane fabric a GPU's own-node peers sit on other planes: they are
        // reached over NVLink first (PXN) whatever intranode_via says.
        if (!s.workload.normal_mode && s.workload.intranode_via_rdma &&
            find_topology_kind(s.topology.kind)->pxn)
            out.what += fmt::format(
                "; intranode_via: rdma cannot apply on {}: same-node GPUs are on other planes, "
                "reached over NVLink",
                s.topology.kind);
    } else {
        const bool from_file = !trace.workload.messages.empty();
        size = workload_size(s, endpoints, from_file ? &trace.workload : nullptr, packets);
        // Built only when small: the builders' own checks (an incast's destination, a trace's
        // endpoints) then run too; a large one is judged from its formula.
        if (size.messages <= kCheckBuildMessages) {
            const Workload w =
                build_workload(s, static_cast<std::uint32_t>(endpoints), std::move(trace));
            if (const std::string err = w.validate(static_cast<std::uint32_t>(endpoints));
                !err.empty())
                throw s.error_at("workload.kind", err);
            check_messages_in_pods(s, plan.fabric, w);
        }
        out.what = fmt::format("{} of {} NICs, {} endpoints simulated", plan.fabric.kind,
                               plan.fabric.inventory.endpoints, endpoints);
    }
    out.fabric_kind = plan.fabric.kind;
    out.fabric_endpoints = plan.fabric.inventory.endpoints;
    if (!moe) {
        out.run = estimate_run(s, plan, size, packets);
        check_run_limits(s, out.run);
    }
    return out;
}

std::optional<RunEstimate> estimate_fabric(const Scenario& s, const Topology& t) {
    if (!t.inventory.constructible) return std::nullopt;
    try {
        const FabricPlan plan = plan_fabric(s, 0);
        std::uint64_t packets = 0;
        const WorkloadKind* kind = find_workload_kind(s.workload.kind);
        const WorkloadSize w = kind && kind->size
                                   ? workload_size(s, plan.endpoints, nullptr, packets)
                                   : WorkloadSize{};
        return estimate_run(s, plan, w, packets);
    } catch (const InputError&) {
        return std::nullopt;  // not simulable as set (check says why)
    }
}

void validate_moe_step(const Scenario& s, std::uint32_t endpoints) {
    const MoeRunSpec spec = moe_run_spec(s, endpoints);
    try {
        const Gating gating(spec.model, spec.placement, spec.gating);
    } catch (const std::invalid_argument& e) {
        throw s.error_at("workload.gating", e.what());
    }
}

void check_moe_traffic_limits(const Scenario& s) {
    const MoeStepSize m = moe_step_size(moe_step_shape(s, false), s.network.mtu_bytes);
    RunEstimate e;
    e.gating_scores = m.gating_scores;
    // The tables of one all-to-all and the placement's per-GPU expert lists.
    e.workload_bytes =
        saturating_add(m.build_bytes, saturating_mul(std::uint64_t{s.workload.ep_size} +
                                                         s.model.preset.routed_experts +
                                                         s.workload.redundant_experts,
                                                     16));
    check_run_limits(s, e);
}

}  // namespace clustersim
