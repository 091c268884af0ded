#include "tools/scenario/schema.hpp"

#include "tools/scenario/fault_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/congestion/congestion_controls.hpp"
#include "models/hardware/failure_rates.hpp"
#include "models/network/partitions.hpp"
#include "models/routing/routing_policy.hpp"
#include "models/serving/serving_deployment.hpp"
#include "sim/registry.hpp"
#include "tools/scenario/scenario.hpp"
#include "topologies/topology_kinds.hpp"
#include "traffic/moe_gating.hpp"
#include "traffic/moe_workload.hpp"
#include "traffic/request_contexts.hpp"
#include "traffic/workload_kinds.hpp"

namespace clustersim {
namespace {

using Type = KeyType;
using keys::boolean;
using keys::choice;
using keys::integer;
using keys::list;
using keys::names;
using keys::number;
using keys::section;
using keys::text;

// The names of a registry's entries (topology kinds, routing policies, ...), in table order.
template <class Entries>
std::vector<std::string> names_of(const Entries& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) out.emplace_back(e.name);
    return out;
}
template <class Entry>
std::vector<std::string> names_of(const Registry<Entry>& registry) {
    return registry.names();
}
// The names a key accepts: the contract's (shared/spec/cli.md, some reserved for later) and every
// registry entry, so that a new entry needs no edit here.
std::vector<std::string> known_names(std::vector<std::string> contract,
                                     const std::vector<std::string>& registry) {
    for (const auto& n : registry)
        if (std::find(contract.begin(), contract.end(), n) == contract.end()) contract.push_back(n);
    return contract;
}
}  // namespace

std::vector<std::string> topology_kind_names() {
    return names_of(topology_kinds());
}

// The keys a family's rows declare, after the family's own key (`network.routing`, ...).
static void insert_after(std::vector<KeySpec>& keys, const std::string& path,
                         const std::vector<KeySpec>& more) {
    auto at =
        std::find_if(keys.begin(), keys.end(), [&](const KeySpec& k) { return k.path == path; });
    keys.insert(at == keys.end() ? at : at + 1, more.begin(), more.end());
}

static std::vector<KeySpec> core_keys();

// The keys of a length drawn per request from a distribution (workload.kv_length, a serving
// request's prompt and output): its kind and the parameters each kind reads.
static std::vector<KeySpec> length_keys(const std::string& key, const std::string& what,
                                        double most, const std::string& kind_help) {
    return {choice(key + ".kind", {kKvLengthKindNames.begin() + 1, kKvLengthKindNames.end()}, {},
                   "(required)", kind_help),
            integer(key + ".min", 1, most, "1",
                    "uniform: the shortest " + what + "; lognormal: draws below are raised to it"),
            integer(key + ".max", 1, most, "(required)",
                    "uniform: the longest " + what + "; lognormal: draws above are cut to it"),
            number(key + ".mean", 1, most, "(required for lognormal)",
                   "lognormal: the mean " + what + " in tokens (before the cut)"),
            number(key + ".sigma", 0, 10, "1 (assumption)",
                   "lognormal: the standard deviation of the log of the " + what)};
}

const std::vector<KeySpec>& schema() {
    static const std::vector<KeySpec> keys = [] {
        std::vector<KeySpec> all = core_keys();
        std::vector<KeySpec> routing;
        for (const auto& row : routing_policies().rows())
            routing.insert(routing.end(), row.keys.begin(), row.keys.end());
        std::vector<KeySpec> kinds;
        for (const auto& row : topology_kinds().rows())
            kinds.insert(kinds.end(), row.keys.begin(), row.keys.end());
        insert_after(all, "topology.endpoints", kinds);
        insert_after(all, "network.routing", routing);
        std::vector<KeySpec> workloads;
        for (const auto& row : workload_kinds().rows())
            workloads.insert(workloads.end(), row.keys.begin(), row.keys.end());
        insert_after(all, "workload.start_us", workloads);
        std::vector<KeySpec> controls;
        for (const auto& row : congestion_controls().rows())
            controls.insert(controls.end(), row.keys.begin(), row.keys.end());
        insert_after(all, "network.ecn_pmax", controls);
        return all;
    }();
    return keys;
}

// clang-format off
static std::vector<KeySpec> core_keys() {
    KeySpec kv_length = integer(
        "workload.kv_length", 1, 1e8, "4096 (assumption)",
        "tokens of KV cache per request during decode (attention cost), or a distribution each "
        "request's is drawn from ({kind: uniform, min, max} or {kind: lognormal, mean, sigma, "
        "min, max}); prefill and training: the prompt length");
    kv_length.or_section = true;
    KeySpec simulated_layers = integer(
        "workload.simulated_layers", 1, 10000, "auto",
        "MoE layers simulated packet by packet, the step extrapolated from their steady state; "
        "auto: from 4 (decode) or 2 (prefill, training), more until the step moves by less than "
        "1 % with the last layer added, or 8 are simulated");
    simulated_layers.words = {"auto"};
    KeySpec partitions = integer(
        "sim.partitions", 1, kMostPartitions, "auto",
        "how many partitions the run is cut into for windows (at most one per logical process: "
        "a switch, or a node with its GPUs and NICs); results are the same, but sim.events, "
        "sim.cut_channels and sim.thread_speedup_bound follow the cut. auto: about one per 32 "
        "processes, rounded up to an even count, 2 to 64; more lets more threads share the run and costs a calendar each "
        "(docs/performance.md); 1: none");
    partitions.words = {"auto"};
    KeySpec prompt_tokens = integer("serving.prompt_tokens", 1, 1e7, "models/data/serving.yaml",
                                    "each request's prompt: a number of tokens, or a distribution");
    prompt_tokens.or_section = true;
    KeySpec output_tokens = integer("serving.output_tokens", 1, 1e7, "models/data/serving.yaml",
                                    "each request's output tokens: a number, or a distribution");
    output_tokens.or_section = true;
    std::vector<KeySpec> keys = {
        integer("seed", 0, 18446744073709551615.0, "1", "random seed: same scenario + seed = same results"),
        text("name", "file stem", "scenario name in reports"),
        section("topology"),
        choice("topology.kind", topology_kind_names(), {}, "(required)",
               "fabric construction (topologies/topology_kinds.cpp)"),
        text("topology.switch", "quantum2; tomahawk5-200g for dual-plane, tomahawk5-100g for shuffle",
             "switch preset (models/data/switches.yaml)"),
        integer("topology.switch_radix", 2, 65536, "from topology.switch", "ports per switch"),
        integer("topology.planes", 1, 64, "NICs per node (mpft, mrft); 2 (dual-plane); NIC rate / port rate (shuffle)",
                "planes or rails (mpft, mrft, dual-plane, shuffle)"),
        number("topology.oversubscription", 1, 1024, "1", "leaf down-ports : up-ports (ft2, ft3, mpft, mrft)"),
        integer("topology.endpoints", 1, 1e8, "maximum", "NICs to attach; a smaller fat tree builds only the leaves it needs"),
        integer("topology.pods", 1, 4096, "1", "dual-plane, shuffle: pods of their own plane switches with nothing between them (the pod limit is the switch radix); the NICs are split over the pods in equal shares (the last pod takes what is left) and an EP group or a KV transfer over the fabric stays in its pod"),
        section("cluster"),
        text("cluster.node", "h800", "node preset (models/data/nodes.yaml): h800, h100, h20, a100-pcie, gb200-nvl72"),
        text("cluster.nic", "the node preset's", "NIC preset (models/data/nics.yaml): cx6, cx7, cx8"),
        integer("cluster.pcie_lanes", 1, 32, "the node preset's (16)", "PCIe lanes between each GPU and its NIC (8 halves it)"),
        choice("cluster.multi_plane", {"bond", "spray"}, {}, "the NIC preset's (cx7: bond, cx8: spray)",
               "a NIC with several network ports keeps one connection on one port chosen by hash (bond) "
               "or spreads its packets over all (spray)"),
        number("cluster.socket_crossing_ns", 0, 1e6, "0", "extra latency on each GPU-NIC PCIe crossing (NIC on the other socket)"),
        number("cluster.nic_latency_ns", 0, 1e6, "link-layer preset", "NIC pipeline latency, each way"),
        number("cluster.message_overhead_ns", 0, 1e9, "link-layer preset, by workload.initiator",
               "per-message sender overhead for RDMA (its serial issue part included)"),
        section("cost"),
        number("cost.switch_usd", 0, 1e9, "models/data/prices.yaml", "price of one switch"),
        number("cost.server_usd", 0, 1e10, "models/data/prices.yaml (by cluster.node)", "price of one node (server), for the cluster cost sweeps report"),
        integer("cost.rack_endpoints", 0, 1e9, "nodes_per_rack x NICs of the node preset (32 for h800)", "NIC ports per rack; cables inside a rack are DAC (0: every cable optical)"),
        section("cost.cables"),
        number("cost.cables.endpoint-aoc", 0, 1e9, "prices.yaml", "NIC-to-leaf cable with its optics"),
        number("cost.cables.switch-optics", 0, 1e9, "prices.yaml", "switch-to-switch link: two transceivers and fibre"),
        number("cost.cables.endpoint-dac", 0, 1e9, "prices.yaml", "NIC to its top-of-rack switch, copper"),
        number("cost.cables.switch-dac", 0, 1e9, "prices.yaml", "two switches in one rack, copper"),
        number("cost.cables.endpoint-breakout-2x200g", 0, 1e9, "prices.yaml", "dual-plane NIC module with 1:2 breakout"),
        number("cost.cables.endpoint-shuffle-lanes", 0, 1e9, "prices.yaml", "shuffle NIC module and fibre through the box"),
        section("network"),
        number("network.link_rate_gbps", 1e-3, 1e6, "switch and NIC presets", "rate of every network link"),
        number("network.link_delay_ns", 0, 1e9, "link-layer preset", "propagation delay per link"),
        number("network.switch_latency_ns", 0, 1e9, "switch preset", "forwarding latency per switch"),
        integer("network.port_buffer_bytes", 1, 1e12, "switch preset",
                "buffer per switch port (credit pool per input when lossless; tail-drop limit when lossy)"),
        integer("network.mtu_bytes", 1, 1048576, "link-layer preset", "payload bytes per packet"),
        integer("network.header_bytes", 0, 65536, "link-layer preset", "bytes added to every packet on the wire"),
        choice("network.flow_control", {"credit", "lossy", "pfc"}, {"credit", "lossy", "pfc"}, "switch preset (credit for InfiniBand, pfc for Ethernet)",
               "lossless credits (InfiniBand), priority flow control from shared buffers (Ethernet), or tail drop with retransmission"),
        number("network.pfc_alpha", 1e-3, 1e3, "1 (assumption)", "pfc: an ingress pauses its upstream port when it holds more than alpha x the switch's free shared buffer (dynamic thresholds, as shared-buffer ASICs set them)"),
        choice("network.routing", known_names({"static", "ecmp", "adaptive", "spray", "flowlet", "valiant", "ugal"}, names_of(routing_policies())),
               names_of(routing_policies()), "switch preset (static for InfiniBand, ecmp for Ethernet)", "path choice among a switch's candidate outputs (models/routing/)"),
        choice("network.retransmission", {"go-back-n", "selective-repeat"}, {}, "NIC preset (cx6: go-back-n; cx7, cx8: selective-repeat)", "a packet past a gap: discarded and NACKed, the sender resending from there; or placed out of order, only the missing packet resent. Go-back-N turns on ACKs"),
        integer("network.ack_every", 1, 1e6, "NIC preset (8, assumption)", "ACK coalescing: one cumulative ACK per this many packets, and one for the last"),
        integer("network.ack_timeout_exponent", 0, 31, "NIC preset (20, as NCCL and NVSHMEM set it)", "RC local ACK timeout 4.096 us x 2^exponent from the last ACK progress (0: none)"),
        integer("network.retry_count", 0, 7, "NIC preset (7)", "retries after a timeout; one more expiry in a row fails the connection"),
        integer("network.adaptive_retransmission_ns", 0, 1e9, "NIC preset (0: off)", "ConnectX adaptive retransmission (RoCE): the timer starts here, doubles per timeout up to the queue pair's, resets on progress; fails after ack timeout x retry_count without progress"),
        choice("network.congestion_control", known_names({"none", "dcqcn", "hpcc", "timely", "swift"}, names_of(congestion_controls())),
               names_of(congestion_controls()), "none", "sender congestion control (models/congestion/); InfiniBand's own (FECN/BECN) is not modelled"),
        integer("network.ecn_kmin_bytes", 0, 1e12, "100000 (assumption, see docs/network-model.md)", "ECN (RED): no mark while the egress queue holds fewer bytes"),
        integer("network.ecn_kmax_bytes", 1, 1e12, "400000 (assumption)", "ECN: always mark from this queue depth"),
        number("network.ecn_pmax", 0, 1, "0.2 (assumption)", "ECN: marking probability at ecn_kmax_bytes, rising linearly from ecn_kmin_bytes"),
        choice("network.forwarding", {"cut-through", "store-and-forward"}, {}, "switch preset",
               "fabric switches forward once the header is in (cut-through; falls back to store-and-forward "
               "into a faster output) or once the whole packet is in; node-internal stages store and forward"),
        number("network.extra_latency_us", 0, 1e9, "0", "latency added to every inter-node message's completion (what-if)"),
        choice("workload.on_plane_loss", {"fail", "reroute"}, {}, "fail", "plane_down: the instance fails when a plane is lost (NCCL and DeepEP abort on queue-pair errors), or, as a fault-tolerant library would, the plane's traffic goes through the node to the other planes (mpft, mrft: PXN over NVLink; dual-plane, shuffle: each NIC's bond) after the bond failover time"),
        choice("workload.on_rank_loss", {"redundant", "fail"}, {}, "redundant where workload.redundant_experts > 0, else fail", "gpu_down, node_down: the lost GPUs' experts are served by their redundant copies (the instance fails if one has none), or the instance fails"),
        choice("network.reroute", {"sm", "switch"}, {}, "sm", "InfiniBand, after a fault: the subnet manager recomputes every table after network.reroute_us (sm), or the switches' own fault recovery (SHIELD) reroutes in the link layer's switch_reroute_us (switch)"),
        number("network.reroute_us", 0, 1e9, "link-layer preset (InfiniBand 10 s: subnet manager; Ethernet 0.9 s: BFD)", "a fault's global reaction: forwarding tables recomputed on the surviving fabric this long after a cable fails or returns"),
        number("network.failover_us", 0, 1e9, "link-layer preset (1 ms, assumption)", "link-down detection for ECMP: a switch drops a dead member from its groups this long after the cable fails (adaptive, spray and flowlet read the port state at once: the link layer's port_down_us; static tables wait for the reroute)"),
        integer("network.virtual_lanes", 1, 8, "what the topology needs (slimfly 2, dragonfly 3, else 1; twice that for valiant and ugal)",
                "lanes per link; lane = switch-to-switch hops so far, which keeps minimal routing deadlock-free"),
        section("sim"),
        choice("sim.completion", {"receiver", "sender-ack"}, {}, "receiver", "when a message is done: its last byte received (what DeepEP and NCCL wait for), or its last ACK back at the sender (htsim's completion time; turns on ACKs)"),
        boolean("sim.fingerprint", "false", "fold the time, kind and target of every event into sim.event_fingerprint, a digest of the event order (the goldens use it)"),
        number("sim.max_time_us", 1e-6, 1e12, "no limit", "simulated-time limit; reaching it ends the run with exit 3"),
        integer("sim.max_events", 1, 1e18, "no limit (check shows the estimate)", "events to simulate at most; reaching it ends the run with exit 3 and the unfinished messages listed"),
        number("sim.max_memory_gb", 1e-3, 1e9, "3/4 of what the process may use (machine, ulimit, cgroup)", "a run whose memory estimate (shown by check and topo) exceeds this is refused before anything is built"),
        number("sim.sample_us", 0, 1e9, "0 (off)", "every this many us, record each egress queue that holds bytes or is paused (queues.csv under --out)"),
        integer("sim.replicates", 1, 1000, "1", "seeds run (seed, seed + 1, ...): results keep the first seed's detail; each headline number K of decode, prefill, training and serving becomes the mean, with K_ci95 the half-width of its 95 % interval"),
        partitions,
        integer("sim.threads", 1, 1024, "1", "threads that simulate one run's partitions together; results are identical to one thread's (an execution setting: not in resolved_scenario)"),
        integer("sim.sample_rows", 1, 1e8, "1000000", "at most this many queue samples (results.json samples.truncated says if reached)"),
        list("faults", "none", "what breaks, and when: one entry per fault (docs/faults.md)"),
        choice("faults.kind", {kFaultKindNames.begin(), kFaultKindNames.end()}, {}, "(required)", "what fails: a cable, a switch, a GPU (slow: a straggler; hang: stops computing and sending)"),
        section("faults.target"),
        integer("faults.target.gpu", 0, 1e9, "-", "the GPU (gpu_slow, gpu_hang, gpu_down)"),
        integer("faults.target.nic", 0, 1e9, "-", "a NIC port by index, as nics.csv numbers them (nic_down, nic_slow)"),
        integer("faults.target.node", 0, 1e9, "-", "a node by index (node_down: its GPUs are lost for good)"),
        integer("faults.target.plane", 0, 64, "-", "a plane of mpft, dual-plane or shuffle, or a rail of mrft (plane_down)"),
        integer("faults.target.switch", 0, 1e9, "-", "a fabric switch by index (switch_down; `topo --json` lists them)"),
        names("faults.target.link", 2, 2, "a cable between two named elements (switch-N, nic-N), both directions"),
        integer("faults.target.index", 0, 1e6, "0", "link: which of parallel cables between the two"),
        text("faults.target.tier", "-", "cables chosen from the seed between two tiers, e.g. leaf-spine (as links.csv and topo --json name them), or fabric: any switch-to-switch cable"),
        integer("faults.target.count", 1, 1e6, "1", "tier: how many cables"),
        number("faults.at_us", 0, 1e12, "0 (from the start)", "when it starts, from the start of the simulated window"),
        number("faults.until_us", 0, 1e12, "the end", "when it ends (the element comes back)"),
        number("faults.rate_factor", 1e-6, 1, "(required for link_slow)", "link_slow: the fraction of its rate the cable keeps"),
        number("faults.add_ns", 0, 1e12, "(required for link_latency)", "link_latency: added to each direction's delay"),
        number("faults.factor", 1, 1e6, "(required for gpu_slow)", "gpu_slow: the slowdown (2: half speed)"),
        number("faults.loss_rate", 0, 1, "(required for link_lossy)", "link_lossy: the probability each packet sent over the cable is lost (drawn from the seed)"),
        number("faults.period_us", 1e-3, 1e12, "(required for link_flap)", "link_flap: a cycle, down then up, from at_us to until_us"),
        number("faults.down_us", 1e-3, 1e12, "(required for link_flap)", "link_flap: how long the cable is down in each cycle"),
        integer("faults.pcie_lanes", 1, 32, "the node's", "nic_slow: the lanes its GPU-to-NIC PCIe path trains at (a degraded link)"),
        integer("faults.pcie_gen", 3, 6, "the node's", "nic_slow: the PCIe generation it trains at"),
        section("model"),
        text("model.name", "(required for moe)", "MoE model preset (models/data/moe_models.yaml): deepseek-v3, deepseek-v2, qwen3-235b-a22b, mixtral-8x22b"),
        integer("model.hidden", 1, 1e6, "preset", "hidden size (elements per token)"),
        integer("model.layers", 1, 10000, "preset", "transformer layers (the section 2.3.2 bound counts all)"),
        integer("model.dense_layers", 0, 10000, "preset", "leading layers with a dense FFN (no experts)"),
        integer("model.routed_experts", 1, 1e6, "preset", "routed experts"),
        integer("model.top_k", 1, 1024, "preset", "routed experts per token"),
        integer("model.shared_experts", 0, 1024, "preset", "shared experts (every token)"),
        integer("model.n_group", 1, 1e6, "preset", "expert groups (group-limited routing)"),
        integer("model.topk_group", 1, 1e6, "preset", "groups one token may use"),
        section("workload"),
        choice("workload.kind", known_names({"moe", "alltoall", "allreduce", "allgather", "reducescatter", "permutation", "incast", "trace"}, names_of(workload_kinds())),
               names_of(workload_kinds()), "(required for run)", "traffic to send (traffic/workload_kinds.cpp)"),
        integer("workload.message_bytes", 1, 1e15, "(required for synthetic kinds)",
                "message size (accepts KB, MB, GB, KiB, MiB, GiB)"),
        text("workload.file", "-", "trace input: htsim connection matrix (.cm) or CSV src,dst,bytes,start_us"),
        number("workload.start_us", 0, 1e12, "0", "start time of synthetic traffic"),
        choice("workload.initiator", {"gpu", "cpu"}, {}, "gpu",
               "who issues each transfer: GPU kernels (IBGDA, NVLink stores: DeepEP, NCCL) or the CPU "
               "(verbs, copy launches: the ISCA '25 Table 5 measurements)"),
        choice("workload.phase", {kMoePhaseNames.begin(), kMoePhaseNames.end()}, {}, "decode", "MoE phase"),
        integer("workload.tokens_per_gpu", 1, 1e9, "128", "tokens each EP rank holds in one micro-batch (decode: requests, each carrying 1 + mtp_draft_tokens tokens)"),
        integer("workload.micro_batches", 1, 1024, "2", "micro-batches per step (two overlap compute and communication)"),
        kv_length,
        choice("workload.request_balance", {kRequestBalanceNames.begin(), kRequestBalanceNames.end()}, {}, "kv",
               "decode: requests over a micro-batch's attention ranks, the same count on each; kv also balances their KV tokens (largest first to the lightest rank, as DeepSeek's decode load balancer does), count deals them out in order"),
        simulated_layers,
        choice("workload.expert_placement", {"contiguous", "round-robin", "coactivation"}, {}, "contiguous",
               "routed experts over EP ranks: contiguous (a group per node), round-robin (expert e on rank e mod ep_size), or coactivation (experts often selected together on one node, measured by gating a sample)"),
        integer("workload.affinity_groups", 0, 1e6, "0", "co-activation in the gating: latent token kinds, each favouring its own seeded set of experts (0: none)"),
        number("workload.affinity_factor", 1, 1e6, "10", "how many times likelier a token's own kind of experts is (affinity_groups > 0)"),
        integer("workload.comm_sms", 0, 1e4, "node preset (24, DeepEP's example)", "normal mode: SMs DeepEP's dispatch and combine kernels hold while they run, slowing compute beside them"),
        choice("workload.schedule", {kStepScheduleNames.begin(), kStepScheduleNames.end()}, {}, "five-stage (decode with 2+ micro-batches), else two-stage",
               "how a step's compute is cut and ordered around its all-to-alls: five-stage (DeepSeek's decode: attention split before/after the core, the shared expert during the dispatch) or two-stage (attention, then shared and routed experts after the dispatch)"),
        integer("workload.mtp_draft_tokens", 0, 8, "0", "decode: multi-token prediction draft tokens per request per step, each computed and communicated through every layer, plus one MTP module run per draft (DeepSeek decodes with 1)"),
        number("workload.mtp_acceptance", 0, 1, "0", "decode: probability a draft token is accepted; output tokens per request per step are 1 + this x mtp_draft_tokens (DeepSeek-V3 reports 0.85-0.9 for its second token)"),
        integer("workload.ep_size", 1, 1e7, "the model's routed experts", "GPUs in the expert-parallel group"),
        integer("workload.redundant_experts", 0, 1e6, "0",
                "extra copies of the heaviest experts (DeepSeek's decode: 32 over 144 GPUs), one each at most"),
        integer("workload.ep_groups", 1, 1e6, "1", "EP groups (data-parallel replicas of the experts), each of ep_size GPUs"),
        choice("workload.ep_placement", {"packed", "spread"}, {}, "packed",
               "EP groups on consecutive GPUs (packed: a group shares leaves) or interleaved (spread: every group crosses spines)"),
        integer("workload.max_nodes_per_token", 0, 1e6, "the model's topk_group", "node limit M (0: unlimited)"),
        choice("workload.mode", {"normal", "low-latency"}, {}, "low-latency for decode, normal otherwise",
               "DeepEP mode: one copy per node then NVLink forwarding, or one write per (token, expert)"),
        choice("workload.gating", {kGatingNames.begin(), kGatingNames.end()}, {},
               "uniform", "token-to-expert gating (seeded; trace: in proportion to workload.expert_load_file)"),
        text("workload.expert_load_file", "-", "recorded per-expert load for gating: trace (CSV expert,load)"),
        number("workload.zipf_s", 0, 10, "1", "Zipf exponent of the expert popularity (gating: zipf)"),
        integer("workload.hot_experts", 0, 1e6, "8", "hot experts (gating: hot)"),
        number("workload.hot_factor", 1, 1e6, "10", "how many times likelier a hot expert is (gating: hot)"),
        choice("workload.intranode_via", {"nvlink", "rdma"}, {}, "nvlink", "low-latency: own-node destinations over NVLink or through the NIC"),
        choice("workload.issue_order", {"library", "destination-sorted"}, {}, "library", "how each GPU issues its all-to-all messages: DeepEP's order (low-latency token by token; normal in chunks per channel, NVLink forwarding pipelined), or grouped by destination (comparison only)"),
        boolean("workload.shared_expert_remote", "false", "count shared experts as network destinations (the ISCA '25 bound does)"),
        section("serving"),
        number("serving.duration_s", 1e-6, 1e6, "(required for poisson; a trace: all of it)", "requests arrive for this long; the run then drains (docs/serving.md)"),
        section("serving.arrival"),
        choice("serving.arrival.kind", {"poisson", "trace"}, {}, "(required)", "Poisson arrivals at rate_per_s, or a trace (file: CSV arrival_us,prompt_tokens,output_tokens)"),
        number("serving.arrival.rate_per_s", 1e-9, 1e7, "(required for poisson)", "requests per second, over the whole deployment"),
        text("serving.arrival.file", "(required for trace)", "the request trace, relative to the scenario's folder"),
        prompt_tokens,
        output_tokens,
        section("serving.deployment"),
        choice("serving.deployment.kind", {kDeploymentKindNames.begin(), kDeploymentKindNames.end()}, {}, "disaggregated", "prefill and decode in separate instances with each KV cache moved between them (DeepSeek's), or both in each instance (colocated: the decode entry's instances)"),
        section("serving.deployment.prefill"),
        integer("serving.deployment.prefill.instances", 1, 1e6, "1", "prefill instances (disaggregated)"),
        integer("serving.deployment.prefill.ep_size", 1, 1e7, "(required for disaggregated)", "GPUs per prefill instance (DeepSeek: 32)"),
        section("serving.deployment.decode"),
        integer("serving.deployment.decode.instances", 1, 1e6, "1", "decode instances (colocated: the instances)"),
        integer("serving.deployment.decode.ep_size", 1, 1e7, "(required)", "GPUs per decode instance (DeepSeek: 144)"),
        integer("serving.deployment.prefill_tokens_per_gpu", 1, 1e8, "models/data/serving.yaml", "a prefill step's prompt-token budget per GPU (chunked prefill past it)"),
        integer("serving.deployment.decode_requests_per_gpu", 1, 1e6, "models/data/serving.yaml", "requests a decode instance runs at once, per GPU over its micro-batches"),
        section("serving.kv_transfer"),
        choice("serving.kv_transfer.via", {kKvViaNames.begin(), kKvViaNames.end()}, {}, "fabric", "each finished prefill's KV cache to its decode GPU: RDMA over the fabric (packet level), or the nodes' storage NICs"),
        number("serving.kv_transfer.storage_gbps", 1e-3, 1e6, "models/data/serving.yaml", "via storage: each node's storage NIC rate, each way"),
        number("serving.kv_transfer.storage_latency_us", 0, 1e9, "models/data/serving.yaml", "via storage: added to each transfer"),
        section("serving.slo"),
        number("serving.slo.ttft_ms", 1e-6, 1e9, "(required)", "time to first token a request must meet"),
        number("serving.slo.tpot_ms", 1e-6, 1e9, "(required)", "time per output token after the first a request must meet"),
        number("serving.slo.e2e_ms", 1e-6, 1e12, "none", "end-to-end latency a request must also meet"),
        number("serving.timeline_s", 1e-3, 1e6, "1", "the width of results' serving.timeline windows: TTFT, TPOT and requests over time (docs/serving.md)"),
        choice("serving.step_pods", {"first", "all"}, {}, "first", "pods with nothing between them (topology.pods above 1, no faults): a step simulates the first pod's instances alone, each other pod's instance taking its counterpart's time, or all pods at once (docs/serving.md)"),
        boolean("serving.step_cache", "true", "reuse a step's time for every step of the same bucketed shape (docs/serving.md); false simulates each distinct exact shape"),
        section("availability"),
        integer("availability.days", 2, 1e7, "1000", "periods sampled (seeded), each with its own failures: the expected throughput is their mean, with its standard error (docs/availability.md)"),
        number("availability.hours", 1e-3, 1e6, "24", "the length of one sampled period"),
        integer("availability.max_modes", 1, 10000, "64", "distinct failure modes met at most (each a packet-level run unless decided without one); more is refused before any runs"),
        number("availability.restart_minutes", 0, 1e6, "models/data/failure_rates.yaml", "an instance a failure stops serves again on spare nodes after this long, leaving the failed parts behind"),
        number("availability.restart_below", 0, 1, "0", "also restart when a failure leaves less than this share of the healthy throughput (0: only when it stops)"),
        number("availability.amortisation_years", 1e-3, 100, "models/data/failure_rates.yaml", "cost per delivered token: the cluster's price over this many years"),
    };
    for (std::string_view c : kComponentClassNames) {
        const std::string k = "availability." + std::string(c);
        keys.push_back(section(k));
        keys.push_back(number(k + ".per_year", 0, 1e6, "models/data/failure_rates.yaml", "failures per component per year"));
        keys.push_back(number(k + ".repair_hours", 0, 1e6, "models/data/failure_rates.yaml", "how long a failed part is out while its instance runs without it"));
        if (c == "cable" || c == "switch")
            keys.push_back(names(k + ".tiers", 1, 16, std::string("only these tiers' ") + std::string(c) + "s fail (`topo --json` elements name them; default: every tier)"));
    }
    insert_after(keys, "workload.kv_length",
                 length_keys("workload.kv_length", "context", 1e8,
                             "decode: each request's context drawn from this distribution"));
    insert_after(keys, "serving.prompt_tokens",
                 length_keys("serving.prompt_tokens", "prompt", 1e7,
                             "each request's prompt drawn from this distribution"));
    insert_after(keys, "serving.output_tokens",
                 length_keys("serving.output_tokens", "output", 1e7,
                             "each request's output tokens drawn from this distribution"));
    return keys;
}
// clang-format on

const KeySpec* find_key(const std::string& path) {
    for (const auto& k : schema())
        if (k.path == path) return &k;
    return nullptr;
}

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

std::vector<std::string> children_of(const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& k : schema()) {
        const std::string& p = k.path;
        if (prefix.empty()) {
            if (p.find('.') == std::string::npos) out.push_back(p);
        } else if (p.size() > prefix.size() + 1 && p.compare(0, prefix.size(), prefix) == 0 &&
                   p[prefix.size()] == '.' && p.find('.', prefix.size() + 1) == std::string::npos) {
            out.push_back(p.substr(prefix.size() + 1));
        }
    }
    return out;
}

std::string type_name(Type t) {
    switch (t) {
        case Type::Integer:
            return "an integer";
        case Type::Number:
            return "a number";
        case Type::String:
            return "a string";
        case Type::Boolean:
            return "true or false";
        case Type::Section:
            return "a mapping";
        case Type::List:
            return "a list of mappings";
        case Type::Names:
            return "a list of names";
    }
    return "";
}

std::string format_number(double v) {
    if (v == std::floor(v) && std::abs(v) < 1e15)
        return fmt::format("{}", static_cast<long long>(v));
    return fmt::format("{}", v);
}
bool is_scenario_section(const std::string& path) {
    const KeySpec* k = find_key(path);
    return k && (k->type == Type::Section || k->type == Type::List);
}

bool is_scenario_key(const std::string& path) {
    const KeySpec* k = find_key(path);
    return k && k->type != Type::Section;
}

std::string schema_markdown() {
    std::string out = "| key | type | default | meaning |\n| --- | --- | --- | --- |\n";
    for (const auto& k : schema()) {
        if (k.type == Type::Section) continue;
        std::string type;
        switch (k.type) {
            case Type::Integer:
                type = "integer";
                break;
            case Type::Number:
                type = "number";
                break;
            case Type::String:
                type = k.choices.empty() ? "string"
                                         : join(k.supported.empty() ? k.choices : k.supported);
                break;
            case Type::Boolean:
                type = "boolean";
                break;
            case Type::List:
                type = "list";
                break;
            case Type::Names:
                type = fmt::format("list of {} names", format_number(k.max));
                break;
            case Type::Section:
                break;
        }
        std::string range;
        if ((k.type == Type::Integer || k.type == Type::Number) && std::isfinite(k.min))
            range = fmt::format(" ({} to {})", format_number(k.min), format_number(k.max));
        for (const auto& w : k.words) range += ", or " + w;
        if (k.or_section) range += ", or a mapping";
        out +=
            fmt::format("| `{}` | {}{} | {} | {} |\n", k.path, type, range, k.default_text, k.help);
    }
    return out;
}

}  // namespace clustersim
