#include "tools/scenario/scenario.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "models/congestion/congestion_controls.hpp"
#include "models/hardware/hardware_catalog.hpp"
#include "models/routing/routing_policy.hpp"
#include "sim/input/input_file.hpp"
#include "sim/input/key_spec.hpp"
#include "sim/registry.hpp"
#include "topologies/topology_kinds.hpp"
#include "traffic/workload_kinds.hpp"

namespace clustersim {
namespace {

using Type = KeyType;
using keys::boolean;
using keys::choice;
using keys::integer;
using keys::number;
using keys::section;
using keys::text;
constexpr double kInf = std::numeric_limits<double>::infinity();

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
std::vector<std::string> topology_kind_names() {
    return names_of(topology_kinds());
}

// The keys a family's rows declare, after the family's own key (`network.routing`, ...).
void insert_after(std::vector<KeySpec>& keys, const std::string& path,
                  const std::vector<KeySpec>& more) {
    auto at =
        std::find_if(keys.begin(), keys.end(), [&](const KeySpec& k) { return k.path == path; });
    keys.insert(at == keys.end() ? at : at + 1, more.begin(), more.end());
}

std::vector<KeySpec> core_keys();

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
        std::vector<KeySpec> controls;
        for (const auto& row : congestion_controls().rows())
            controls.insert(controls.end(), row.keys.begin(), row.keys.end());
        insert_after(all, "network.ecn_pmax", controls);
        return all;
    }();
    return keys;
}

// clang-format off
std::vector<KeySpec> core_keys() {
    return {
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
        number("network.retransmit_timeout_us", 1e-3, 1e9, "NIC preset (100, IRN's RTO)", "retransmission timer, from the last ACK progress; 7 expiries in a row fail the connection"),
        choice("network.congestion_control", known_names({"none", "dcqcn", "hpcc", "timely", "swift"}, names_of(congestion_controls())),
               names_of(congestion_controls()), "none", "sender congestion control (models/congestion/); InfiniBand's own (FECN/BECN) is not modelled"),
        integer("network.ecn_kmin_bytes", 0, 1e12, "100000 (assumption, see docs/network-model.md)", "ECN (RED): no mark while the egress queue holds fewer bytes"),
        integer("network.ecn_kmax_bytes", 1, 1e12, "400000 (assumption)", "ECN: always mark from this queue depth"),
        number("network.ecn_pmax", 0, 1, "0.2 (assumption)", "ECN: marking probability at ecn_kmax_bytes, rising linearly from ecn_kmin_bytes"),
        choice("network.forwarding", {"cut-through", "store-and-forward"}, {}, "switch preset",
               "fabric switches forward once the header is in (cut-through; falls back to store-and-forward "
               "into a faster output) or once the whole packet is in; node-internal stages store and forward"),
        number("network.extra_latency_us", 0, 1e9, "0", "latency added to every inter-node message's completion (what-if)"),
        integer("network.virtual_lanes", 1, 8, "what the topology needs (slimfly 2, dragonfly 3, else 1; twice that for valiant and ugal)",
                "lanes per link; lane = switch-to-switch hops so far, which keeps minimal routing deadlock-free"),
        section("sim"),
        choice("sim.completion", {"receiver", "sender-ack"}, {}, "receiver", "when a message is done: its last byte received (what DeepEP and NCCL wait for), or its last ACK back at the sender (htsim's completion time; turns on ACKs)"),
        boolean("sim.fingerprint", "false", "fold the time, kind and target of every event into sim.event_fingerprint, a digest of the event order (the goldens use it)"),
        number("sim.max_time_us", 1e-6, 1e12, "no limit", "simulated-time limit; reaching it ends the run with exit 3"),
        integer("sim.max_events", 1, 1e18, "no limit (check shows the estimate)", "events to simulate at most; reaching it ends the run with exit 3 and the unfinished messages listed"),
        number("sim.max_memory_gb", 1e-3, 1e9, "3/4 of this machine's memory", "a run whose memory estimate (shown by check and topo) exceeds this is refused before anything is built"),
        number("sim.sample_us", 0, 1e9, "0 (off)", "every this many us, record each egress queue that holds bytes or is paused (queues.csv under --out)"),
        integer("sim.sample_rows", 1, 1e8, "1000000", "at most this many queue samples (results.json samples.truncated says if reached)"),
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
        integer("workload.destination", 0, 1e8, "0", "incast receiver"),
        choice("workload.algorithm", {"ring", "tree"}, {}, "ring", "all-reduce algorithm (NCCL's two)"),
        choice("workload.initiator", {"gpu", "cpu"}, {}, "gpu",
               "who issues each transfer: GPU kernels (IBGDA, NVLink stores: DeepEP, NCCL) or the CPU "
               "(verbs, copy launches: the ISCA '25 Table 5 measurements)"),
        integer("workload.senders", 1, 1e8, "all others", "incast senders"),
        choice("workload.phase", {"decode", "prefill", "training"}, {}, "decode", "MoE phase"),
        integer("workload.tokens_per_gpu", 1, 1e9, "128", "tokens each EP rank holds in one micro-batch"),
        integer("workload.micro_batches", 1, 1024, "2", "micro-batches per step (two overlap compute and communication)"),
        integer("workload.kv_length", 1, 1e8, "4096 (assumption)", "tokens of KV cache per request during decode (attention cost)"),
        integer("workload.simulated_layers", 1, 10000, "2", "MoE layers simulated packet by packet; the step extrapolates from their steady state"),
        choice("workload.expert_placement", {"contiguous", "round-robin", "coactivation"}, {}, "contiguous",
               "routed experts over EP ranks: contiguous (a group per node), round-robin (expert e on rank e mod ep_size), or coactivation (experts often selected together on one node, measured by gating a sample)"),
        integer("workload.affinity_groups", 0, 1e6, "0", "co-activation in the gating: latent token kinds, each favouring its own seeded set of experts (0: none)"),
        number("workload.affinity_factor", 1, 1e6, "10", "how many times likelier a token's own kind of experts is (affinity_groups > 0)"),
        integer("workload.comm_sms", 0, 1e4, "node preset (24, DeepEP's example)", "normal mode: SMs DeepEP's dispatch and combine kernels hold while they run, slowing compute beside them"),
        number("workload.mtp_acceptance", 0, 1, "0", "multi-token prediction: acceptance rate of the extra token (0: no MTP; DeepSeek-V3 reports 0.8-0.9)"),
        integer("workload.ep_size", 1, 1e7, "the model's routed experts", "GPUs in the expert-parallel group"),
        integer("workload.redundant_experts", 0, 1e6, "0",
                "extra copies of the heaviest experts (DeepSeek's decode: 32 over 144 GPUs), one each at most"),
        integer("workload.ep_groups", 1, 1e6, "1", "EP groups (data-parallel replicas of the experts), each of ep_size GPUs"),
        choice("workload.ep_placement", {"packed", "spread"}, {}, "packed",
               "EP groups on consecutive GPUs (packed: a group shares leaves) or interleaved (spread: every group crosses spines)"),
        integer("workload.max_nodes_per_token", 0, 1e6, "the model's topk_group", "node limit M (0: unlimited)"),
        choice("workload.mode", {"normal", "low-latency"}, {}, "low-latency for decode, normal otherwise",
               "DeepEP mode: one copy per node then NVLink forwarding, or one write per (token, expert)"),
        choice("workload.gating", {"uniform", "zipf", "hot", "trace", "worst-case"}, {},
               "uniform", "token-to-expert gating (seeded; trace: in proportion to workload.expert_load_file)"),
        text("workload.expert_load_file", "-", "recorded per-expert load for gating: trace (CSV expert,load)"),
        number("workload.zipf_s", 0, 10, "1", "Zipf exponent of the expert popularity (gating: zipf)"),
        integer("workload.hot_experts", 0, 1e6, "8", "hot experts (gating: hot)"),
        number("workload.hot_factor", 1, 1e6, "10", "how many times likelier a hot expert is (gating: hot)"),
        choice("workload.intranode_via", {"nvlink", "rdma"}, {}, "nvlink", "low-latency: own-node destinations over NVLink or through the NIC"),
        boolean("workload.shared_expert_remote", "false", "count shared experts as network destinations (the ISCA '25 bound does)"),
    };
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
    }
    return "";
}

// An integer read exactly (64 bits, never through a double), with an optional unit suffix for
// byte counts. Decimal or exponent forms ("1e6", "1.5MiB") are accepted when their value is an
// integer that a double holds exactly (at most 2^53). Negative values come back as nullopt
// with `negative` set, so the caller can say "out of range" rather than "not an integer".
std::optional<std::uint64_t> parse_integer_text(const std::string& text, bool allow_units,
                                                bool& negative) {
    static const std::vector<std::pair<std::string, std::uint64_t>> units = {
        {"KiB", 1024},      {"MiB", 1048576}, {"GiB", 1073741824}, {"KB", 1000}, {"MB", 1000000},
        {"GB", 1000000000}, {"B", 1}};
    negative = false;
    std::string number = text;
    std::uint64_t scale = 1;
    if (allow_units) {
        for (const auto& [suffix, s] : units) {
            if (number.size() > suffix.size() &&
                number.compare(number.size() - suffix.size(), suffix.size(), suffix) == 0) {
                number = number.substr(0, number.size() - suffix.size());
                while (!number.empty() && number.back() == ' ') number.pop_back();
                scale = s;
                break;
            }
        }
    }
    std::uint64_t exact = 0;
    const char* end = number.data() + number.size();
    if (auto [p, ec] = std::from_chars(number.data(), end, exact); ec == std::errc() && p == end) {
        if (exact > std::numeric_limits<std::uint64_t>::max() / scale) return std::nullopt;
        return exact * scale;
    } else if (ec == std::errc::result_out_of_range && p == end) {
        return std::nullopt;
    }
    double v = 0;
    const auto [p, ec] = std::from_chars(number.data(), end, v);
    if (ec != std::errc() || p != end || !std::isfinite(v)) return std::nullopt;
    v *= static_cast<double>(scale);
    if (v != std::floor(v)) return std::nullopt;
    if (v < 0) {
        negative = true;
        return std::nullopt;
    }
    if (v > 9007199254740992.0) return std::nullopt;  // 2^53: beyond it a double is not exact
    return static_cast<std::uint64_t>(v);
}

// The largest integer a key accepts, from its schema maximum (2^64 - 1 for the seed).
std::uint64_t integer_max(double max) {
    return max >= 18446744073709551615.0 ? std::numeric_limits<std::uint64_t>::max()
                                         : static_cast<std::uint64_t>(max);
}

std::optional<double> parse_number_text(const std::string& text) {
    double v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::string format_number(double v) {
    if (v == std::floor(v) && std::abs(v) < 1e15)
        return fmt::format("{}", static_cast<long long>(v));
    return fmt::format("{}", v);
}

class Loader {
  public:
    Loader(std::string path) : path_(std::move(path)) {}

    Scenario load(const std::vector<Override>& overrides) {
        std::ifstream in =
            open_input_file(path_, "the scenario file", "a readable YAML file", 16u << 20);
        std::stringstream ss;
        ss << in.rdbuf();
        return load_text(ss.str(), overrides);
    }

    Scenario load_text(const std::string& text, const std::vector<Override>& overrides) {
        parse(text);
        for (const auto& o : overrides) apply(o);
        scenario_.file = path_;
        validate(root_, "");
        fill();
        scenario_.values = values_;
        return std::move(scenario_);
    }

  private:
    [[noreturn]] void fail_at(const std::string& key, const YAML::Mark& mark,
                              const std::string& msg) const {
        if (overridden_.count(key) || overridden_prefix(key))
            throw InputError("--set", 0, 0, key, msg);
        if (mark.is_null()) throw InputError(path_, 0, 0, key, msg);
        throw InputError(path_, static_cast<std::uint32_t>(mark.line + 1),
                         static_cast<std::uint32_t>(mark.column + 1), key, msg);
    }
    bool overridden_prefix(const std::string& key) const {
        for (const auto& o : overridden_)
            if (key.size() > o.size() && key.compare(0, o.size(), o) == 0 && key[o.size()] == '.')
                return true;
        return false;
    }

    // YAML parsers keep one of two equal keys silently; a scenario with two `topology:` maps
    // would take keys from both. Each map's keys must be distinct.
    void reject_duplicate_keys(const YAML::Node& node, const std::string& prefix) const {
        if (node.IsSequence()) {
            for (const auto& item : node) reject_duplicate_keys(item, prefix);
            return;
        }
        if (!node.IsMap()) return;
        std::map<std::string, YAML::Mark> seen;
        for (const auto& kv : node) {
            if (!kv.first.IsScalar()) continue;
            const std::string key = kv.first.Scalar();
            const std::string path = prefix.empty() ? key : prefix + "." + key;
            const auto [it, fresh] = seen.emplace(key, kv.first.Mark());
            if (!fresh)
                throw InputError(path_, static_cast<std::uint32_t>(kv.first.Mark().line + 1),
                                 static_cast<std::uint32_t>(kv.first.Mark().column + 1), path,
                                 fmt::format("duplicate key, first given on line {} (expected "
                                             "each key once per map)",
                                             it->second.line + 1));
            reject_duplicate_keys(kv.second, path);
        }
    }

    void parse(const std::string& text) {
        try {
            root_ = YAML::Load(text);
        } catch (const YAML::ParserException& e) {
            throw InputError(path_, static_cast<std::uint32_t>(e.mark.line + 1),
                             static_cast<std::uint32_t>(e.mark.column + 1), {},
                             "YAML syntax error: " + e.msg);
        }
        if (root_.IsNull()) root_ = YAML::Node(YAML::NodeType::Map);
        reject_duplicate_keys(root_, "");
        if (!root_.IsMap())
            throw InputError(path_, static_cast<std::uint32_t>(root_.Mark().line + 1),
                             static_cast<std::uint32_t>(root_.Mark().column + 1), {},
                             "a scenario is a mapping of keys (expected key: value lines)");
    }

    void apply(const Override& o) {
        const KeySpec* spec = find_key(o.path);
        if (!spec) {
            const auto dot = o.path.rfind('.');
            const std::string parent = dot == std::string::npos ? "" : o.path.substr(0, dot);
            const auto siblings = children_of(parent);
            throw InputError("--set", 0, 0, o.path,
                             fmt::format("unknown key (expected one of: {})", join(siblings)));
        }
        YAML::Node value;
        try {
            value = YAML::Load(o.value);
        } catch (const YAML::ParserException& e) {
            throw InputError("--set", 0, 0, o.path, "the value is not valid YAML: " + e.msg);
        }
        std::vector<std::string> parts;
        std::stringstream ss(o.path);
        for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
        set_path(root_, parts, 0, value);
        overridden_.insert(o.path);
    }

    static void set_path(YAML::Node node, const std::vector<std::string>& parts, std::size_t i,
                         const YAML::Node& value) {
        if (i + 1 == parts.size()) {
            node[parts[i]] = value;
            return;
        }
        YAML::Node child = node[parts[i]];
        if (!child.IsMap()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
        set_path(node[parts[i]], parts, i + 1, value);
    }

    void validate(const YAML::Node& map, const std::string& prefix) {
        for (auto it = map.begin(); it != map.end(); ++it) {
            const YAML::Node key_node = it->first;
            const YAML::Node value = it->second;
            const std::string key = key_node.IsScalar() ? key_node.Scalar() : "?";
            const std::string path = prefix.empty() ? key : prefix + "." + key;
            const KeySpec* spec = find_key(path);
            if (!spec)
                fail_at(
                    path, key_node.Mark(),
                    fmt::format("unknown key (expected one of: {})", join(children_of(prefix))));
            if (spec->type == Type::Section) {
                positions_[path] = key_node.Mark();  // where a missing key of it is blamed
                if (value.IsNull()) continue;
                if (!value.IsMap())
                    fail_at(path, value.Mark(), "expected a mapping of keys (e.g. kind: ...)");
                validate(value, path);
                continue;
            }
            positions_[path] = value.Mark();
            check_value(*spec, value);
        }
    }

    void check_value(const KeySpec& spec, const YAML::Node& v) {
        const std::string& path = spec.path;
        if (!v.IsScalar() || (v.IsNull()))
            fail_at(path, v.Mark(), fmt::format("expected {}", type_name(spec.type)));
        const std::string text = v.Scalar();
        double num = 0;
        switch (spec.type) {
            case Type::Integer: {
                const bool bytes =
                    path.size() > 6 && path.compare(path.size() - 6, 6, "_bytes") == 0;
                bool negative = false;
                const auto parsed = parse_integer_text(text, bytes, negative);
                const std::uint64_t lo = static_cast<std::uint64_t>(spec.min),
                                    hi = integer_max(spec.max);
                if (!parsed && !negative &&
                    text.find_first_not_of("0123456789") == std::string::npos && !text.empty())
                    negative = true;  // all digits but beyond 64 bits: out of range too
                if (negative || (parsed && (*parsed < lo || *parsed > hi)))
                    fail_at(path, v.Mark(),
                            fmt::format("{} is out of range (expected {} to {})", text,
                                        format_number(spec.min), hi));
                if (!parsed)
                    fail_at(path, v.Mark(),
                            fmt::format("'{}' is not {}{}", text, type_name(spec.type),
                                        bytes ? " (units KB, MB, GB, KiB, MiB, GiB allowed)" : ""));
                values_.integers[path] = *parsed;
                return;
            }
            case Type::Number: {
                auto parsed = parse_number_text(text);
                if (!parsed)
                    fail_at(path, v.Mark(),
                            fmt::format("'{}' is not {}", text, type_name(spec.type)));
                num = *parsed;
                break;
            }
            case Type::Boolean:
                if (text != "true" && text != "false")
                    fail_at(path, v.Mark(), fmt::format("'{}' is not true or false", text));
                values_.texts[path] = text;
                return;
            case Type::String:
                if (!spec.choices.empty()) {
                    if (std::find(spec.choices.begin(), spec.choices.end(), text) ==
                        spec.choices.end())
                        fail_at(path, v.Mark(),
                                fmt::format("unknown value '{}' (expected one of: {})", text,
                                            join(spec.choices)));
                    if (!spec.supported.empty() &&
                        std::find(spec.supported.begin(), spec.supported.end(), text) ==
                            spec.supported.end())
                        fail_at(
                            path, v.Mark(),
                            fmt::format("unsupported value '{}': not implemented in this build yet "
                                        "(expected one of: {})",
                                        text, join(spec.supported)));
                }
                values_.texts[path] = text;
                return;
            case Type::Section:
                return;
        }
        if (num < spec.min || num > spec.max)
            fail_at(path, v.Mark(),
                    fmt::format("{} is out of range (expected {} to {})", text,
                                format_number(spec.min), format_number(spec.max)));
        values_.numbers[path] = num;
    }

    bool has(const std::string& p) const { return values_.has(p); }
    std::uint64_t integer_or(const std::string& p, std::uint64_t dflt) const {
        return values_.integer_or(p, dflt);
    }
    std::uint32_t u32_or(const std::string& p, std::uint64_t dflt) const {
        return static_cast<std::uint32_t>(integer_or(p, dflt));  // schema ranges fit 32 bits
    }
    double number_or(const std::string& p, double dflt) const { return values_.number_or(p, dflt); }
    std::string text_or(const std::string& p, const std::string& dflt) const {
        return values_.text_or(p, dflt);
    }

    void fill() {
        Scenario& s = scenario_;
        for (const auto& [key, mark] : positions_) {
            SourcePosition pos;
            if (overridden_.count(key) || overridden_prefix(key)) {
                pos.file = "--set";
            } else {
                pos.file = path_;
                if (!mark.is_null()) {
                    pos.line = static_cast<std::uint32_t>(mark.line + 1);
                    pos.column = static_cast<std::uint32_t>(mark.column + 1);
                }
            }
            s.positions[key] = pos;
        }
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
        n.retransmit_timeout_us =
            number_or("network.retransmit_timeout_us", nic->retransmit_timeout_us);
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
        w.destination = u32_or("workload.destination", 0);
        w.senders = u32_or("workload.senders", 0);
        w.algorithm = text_or("workload.algorithm", "ring");
        s.sim.max_time_us = number_or("sim.max_time_us", 0);
        s.sim.sample_us = number_or("sim.sample_us", 0);
        s.sim.max_events = integer_or("sim.max_events", 0);
        s.sim.max_memory_gb = number_or("sim.max_memory_gb", 0);
        s.sim.sample_rows = integer_or("sim.sample_rows", 1000000);
        s.sim.complete_on_ack = text_or("sim.completion", "receiver") == "sender-ack";
        s.sim.fingerprint = text_or("sim.fingerprint", "false") == "true";
        fill_moe(s);
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
        w.phase = text_or("workload.phase", "decode");
        w.tokens_per_gpu = u32_or("workload.tokens_per_gpu", 128);
        w.micro_batches = u32_or("workload.micro_batches", 2);
        w.ep_size = u32_or("workload.ep_size", s.model.set ? s.model.preset.routed_experts : 0);
        w.max_nodes_per_token =
            u32_or("workload.max_nodes_per_token", s.model.set ? s.model.preset.topk_group : 0);
        w.normal_mode =
            text_or("workload.mode", w.phase == "decode" ? "low-latency" : "normal") == "normal";
        w.gating = text_or("workload.gating", "uniform");
        w.zipf_s = number_or("workload.zipf_s", 1.0);
        w.hot_experts = u32_or("workload.hot_experts", 8);
        w.hot_factor = number_or("workload.hot_factor", 10.0);
        w.intranode_via_rdma = text_or("workload.intranode_via", "nvlink") == "rdma";
        w.shared_expert_remote = text_or("workload.shared_expert_remote", "false") == "true";
        w.kv_length = u32_or("workload.kv_length", 4096);
        w.redundant_experts = u32_or("workload.redundant_experts", 0);
        w.ep_groups = u32_or("workload.ep_groups", 1);
        w.ep_spread = text_or("workload.ep_placement", "packed") == "spread";
        if (s.model.set && w.redundant_experts > s.model.preset.routed_experts)
            throw s.error_at("workload.redundant_experts",
                             fmt::format("{} copies of {} experts (expected at most one copy each)",
                                         w.redundant_experts, s.model.preset.routed_experts));
        w.simulated_layers = u32_or("workload.simulated_layers", 2);
        w.mtp_acceptance = number_or("workload.mtp_acceptance", 0);
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

    std::string path_;
    YAML::Node root_;
    std::set<std::string> overridden_;
    std::map<std::string, YAML::Mark> positions_;
    KeyValues values_;
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

Override parse_override(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw InputError(
            "--set",
            fmt::format("'{}' is not PATH=VALUE (expected e.g. network.mtu_bytes=4096)", text));
    return Override{text.substr(0, eq), text.substr(eq + 1)};
}

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides) {
    return Loader(path).load(overrides);
}

Scenario load_scenario_text(const std::string& text, const std::string& path,
                            const std::vector<Override>& overrides) {
    return Loader(path).load_text(text, overrides);
}

bool is_scenario_section(const std::string& path) {
    const KeySpec* k = find_key(path);
    return k && k->type == Type::Section;
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
            case Type::Section:
                break;
        }
        std::string range;
        if ((k.type == Type::Integer || k.type == Type::Number) && std::isfinite(k.min))
            range = fmt::format(" ({} to {})", format_number(k.min), format_number(k.max));
        out +=
            fmt::format("| `{}` | {}{} | {} | {} |\n", k.path, type, range, k.default_text, k.help);
    }
    return out;
}

}  // namespace clustersim
