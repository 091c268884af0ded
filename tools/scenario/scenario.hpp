#pragma once
// A validated scenario: every key checked against the schema, defaults filled in from the
// hardware presets, and the source position of every key kept for later error messages.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "models/hardware/failure_rates.hpp"
#include "models/hardware/hardware_catalog.hpp"
#include "models/hardware/moe_model.hpp"
#include "models/network/network.hpp"
#include "models/serving/serving_deployment.hpp"
#include "sim/input/input_error.hpp"
#include "sim/input/key_error.hpp"
#include "sim/input/key_spec.hpp"
#include "tools/scenario/fault_spec.hpp"
#include "traffic/moe_gating.hpp"
#include "traffic/moe_workload.hpp"
#include "traffic/request_contexts.hpp"

namespace clustersim {

struct SourcePosition {
    std::string file;  // scenario file, or "--set"
    std::uint32_t line = 0, column = 0;
};

/// A key's value as the run uses it (results.json's resolved_scenario).
using ResolvedValue = std::variant<std::uint64_t, double, bool, std::string>;

struct Scenario {
    std::string file;  // path as given
    std::string name;  // `name`, else the file's stem
    std::uint64_t seed = 1;

    struct Topology {
        std::string kind;
        std::string switch_preset;
        std::uint32_t switch_radix = 0;
        double oversubscription = 1.0;
        std::uint32_t endpoints = 0;  // 0 = the maximum the topology supports
        bool endpoints_set = false;
        std::uint32_t planes = 0;  // 0 = the kind's default
        std::uint32_t pods = 1;    // dual-plane, shuffle: pods with nothing between them
    } topology;

    struct Cluster {
        std::string node = "h800";
        std::uint32_t gpus_per_node = 8;
        std::uint32_t nics_per_node = 8;
        double nic_rate_gbps = 400;
        bool bare = false;  // cluster.node: none -- endpoints are bare NICs, no node model
        NodePreset preset;
        double socket_crossing_ns = 0;
        double nic_latency_ns = 0;
        double message_overhead_ns = 0;  // RDMA, per message, for the chosen initiator
        double issue_ns = 0;             // RDMA, serial part of it
        bool nic_spray = false;          // cluster.multi_plane (default: the NIC preset's)
    } cluster;

    struct Cost {
        double switch_usd = -1;  // < 0: no price known for the switch preset
        double server_usd = 0;   // one node of cluster.node (0: none, or bare NICs)
        std::map<std::string, double> cable_usd;
        std::uint32_t rack_endpoints = 0;  // 0: no rack placement (every cable optical)
    } cost;

    struct Network {
        double link_rate_gbps = 0;
        double link_delay_ns = 0;
        double switch_latency_ns = 0;
        std::uint64_t port_buffer_bytes = 0;
        std::uint32_t mtu_bytes = 0;
        std::uint32_t header_bytes = 0;
        FlowControl flow_control = FlowControl::Credit;
        bool cut_through = false;  // network.forwarding (default: the switch preset's)
        std::string routing = "ecmp";
        RoutingParams routing_params;  // the policy (index) and the knobs its row parsed
        bool go_back_n = false;        // network.retransmission (default: the NIC preset's)
        double pfc_alpha = 1.0;
        std::uint64_t ecn_kmin_bytes = 100000, ecn_kmax_bytes = 400000;
        double ecn_pmax = 0.2;
        std::uint32_t ack_every = 8;
        std::uint32_t ack_timeout_exponent = 20;
        std::uint32_t retry_count = 7;
        std::uint64_t adaptive_retransmission_ns = 0;
        std::string congestion_control = "none";
        CongestionControlParams cc;  // the algorithm's parameters, parsed by its row
        double extra_latency_us = 0;
        std::uint32_t virtual_lanes = 0;  // 0 = what the topology needs
        bool switch_reroute = false;      // network.reroute: switch (else sm)
        double reroute_us = 0;            // the fabric's reroute after a fault (docs/faults.md)
        double failover_us = 0;           // ECMP drops a dead member
        double port_down_us = 0;          // adaptive, spray, flowlet see a dead port
        double bond_failover_us = 0;      // a NIC bond gives a dead port up
        bool reliable = false;  // ACKs and timers run although nothing needs them (a baseline
                                // compared with a faulted run that needs them)
    } network;

    std::vector<FaultSpec> faults;  // faults: in order

    struct Workload {
        std::string kind;
        std::uint64_t message_bytes = 0;
        std::string file;  // resolved against the scenario's folder
        double start_us = 0;
        bool gpu_initiated = true;  // workload.initiator
        // moe
        MoePhase phase = MoePhase::Decode;
        std::uint32_t tokens_per_gpu = 128;
        std::uint32_t micro_batches = 2;
        std::uint32_t ep_size = 0;
        std::uint32_t max_nodes_per_token = 0;
        bool normal_mode = false;  // workload.mode: normal (else low-latency)
        GatingKind gating = GatingKind::Uniform;
        std::string expert_load_file;  // gating: trace
        double zipf_s = 1.0;
        std::uint32_t hot_experts = 8;
        double hot_factor = 10.0;
        bool intranode_via_rdma = false;
        bool destination_sorted = false;  // issue_order: destination-sorted (else library)
        bool shared_expert_remote = false;
        std::uint32_t kv_length = 4096;  // fixed context (decode) or prompt length
        KvLengthDistribution contexts;   // decode: each request's context
        RequestBalance request_balance = RequestBalance::Kv;
        std::uint32_t redundant_experts = 0;
        std::uint32_t ep_groups = 1;
        bool ep_spread = false;
        // Not keys: a serving run's step puts its instances where the deployment does (in
        // pods: groups_per_pod of them from first_gpu in each pod of pod_stride_gpus).
        std::uint32_t first_gpu = 0;
        std::uint32_t groups_per_pod = 0;
        std::uint32_t pod_stride_gpus = 0;
        bool rank_loss_fails = false;        // workload.on_rank_loss: fail (else redundant copies)
        bool plane_loss_reroutes = false;    // workload.on_plane_loss: reroute (else fail)
        std::uint32_t simulated_layers = 0;  // 0: auto (settled by the run)
        std::uint32_t mtp_draft_tokens = 0;
        StepSchedule schedule = StepSchedule::FiveStage;
        double mtp_acceptance = 0;
        std::uint32_t comm_sms = 0;  // normal mode: SMs held by DeepEP's kernels
        std::string expert_placement = "contiguous";
        std::uint32_t affinity_groups = 0;  // co-activation in the gating (0: none)
        double affinity_factor = 10.0;
    } workload;

    // serving: requests served over time by instances whose steps are simulated (docs/serving.md).
    struct Serving {
        bool set = false;       // the section is there: the run serves, it does not run one step
        double duration_s = 0;  // arrivals stop here (0: a trace's whole)
        bool trace = false;     // arrival.kind: trace (else poisson)
        double rate_per_s = 0;
        std::string file;  // the trace, resolved against the scenario's folder
        KvLengthDistribution prompt, output;
        ServingDeployment deployment;
        double ttft_ms = 0, tpot_ms = 0, e2e_ms = 0;  // e2e_ms 0: no end-to-end target
        bool step_cache = true;
        // Pods with nothing between them: a step simulates the first pod's instances alone
        // (each other pod's take their counterparts' times), or every pod's at once.
        bool step_first_pod = true;
        double timeline_s = 1;  // results' timeline: the windows' width
        // --step-store: the folder keeping step runs across runs (step_store.hpp); an
        // execution setting, kept out of `resolved` (results do not depend on it).
        std::string step_store;
    } serving;

    // availability: days of component failures and what the step delivers through them
    // (docs/availability.md); read by `clustersim availability` and sweeps ranking by it.
    struct Availability {
        bool set = false;  // an availability key is there
        std::uint32_t days = 1000;
        double hours = 24;
        std::uint32_t max_modes = 64;
        double restart_minutes = 0;
        double restart_below = 0;
        double amortisation_years = 0;
        std::array<ComponentFailure, kComponentClassNames.size()> rates{};
        std::array<std::vector<std::string>, kComponentClassNames.size()> tiers;  // empty: all
    } availability;

    struct Model {
        bool set = false;  // model.name given
        MoeModel preset;   // with the scenario's overrides applied
    } model;

    struct Sim {
        double max_time_us = 0;        // 0 = no limit
        bool complete_on_ack = false;  // sim.completion: sender-ack
        bool fingerprint = false;      // sim.fingerprint: digest of the event order
        double sample_us = 0;          // queue sampling period (0: off)
        std::uint64_t max_events = 0;  // 0: no limit
        double max_memory_gb = 0;      // 0: three quarters of the machine's memory
        std::uint64_t sample_rows = 1000000;
        std::uint32_t replicates = 1;  // seeds run: seed .. seed + replicates - 1
        // sim.partitions: how finely the run is cut for windows (0: auto, the default for the
        // model's size; 1: not at all). A model setting, recorded: the cut decides which
        // credits cross it as events (sim.events) and how many cores can share the run.
        std::uint32_t partitions = 0;
        // Threads for one run's partitions (sim.threads, --threads): an execution setting,
        // kept out of `resolved` (results do not depend on it, and must compare).
        std::uint32_t threads = 1;
        // MPI ranks one run is spread over (mpirun; sim/ranks.hpp), null for none: an
        // execution setting, as threads.
        Ranks* ranks = nullptr;
    } sim;

    std::map<std::string, SourcePosition> positions;
    KeyValues values;  // every key as set and validated: what a kind's row parses at build time
    // Every key the run reads, with the value it uses (set, a preset's or a default), by path.
    std::map<std::string, ResolvedValue> resolved;

    /// An InputError pointing at `key` (where it was set, or at the file if it was defaulted).
    InputError error_at(const std::string& key, const std::string& message) const;
    /// A builder's KeyError as an InputError blaming the conflicting key the user set.
    InputError error_for(const KeyError& e) const;
};

struct Override {
    std::string path;
    std::string value;  // YAML text
};

/// Parses `--set` text `a.b.c=VALUE`; throws InputError on a malformed one.
Override parse_override(const std::string& text);

/// Loads, applies overrides, validates. Throws InputError for anything wrong.
Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides);
/// The same from text already read; `path` names it in errors and anchors relative file keys.
Scenario load_scenario_text(const std::string& text, const std::string& path,
                            const std::vector<Override>& overrides);

/// Whether `path` (a.b.c) is a key of the schema.
bool is_scenario_key(const std::string& path);
/// Whether `path` is a section (topology, network, ...): a sweep may set it whole.
bool is_scenario_section(const std::string& path);

/// The schema as Markdown rows (key, type, default, meaning), for `clustersim check --schema`.
std::string schema_markdown();

}  // namespace clustersim
