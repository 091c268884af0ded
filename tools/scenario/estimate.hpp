#pragma once
// What a run will cost, counted from formulas before anything is built: messages, packets and
// events, and the memory of the fabric, its routes, the workload and the packets in flight.
// `check` and `topo` show it; `run` refuses a scenario whose estimate is over sim.max_events or
// sim.max_memory_gb, pointing at the key that sized it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/dag/workload.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/scenario.hpp"
#include "traffic/workload_kinds.hpp"

namespace clustersim {

struct RunEstimate {
    std::uint64_t messages = 0;
    std::uint64_t packets = 0;
    std::uint64_t events = 0;  // an upper bound: two per link a packet crosses, two per message
    std::uint64_t largest_message_packets = 0;
    std::uint64_t gating_scores = 0;  // a MoE step's expert scores drawn (the gating's loop)
    // Memory, by part.
    std::uint64_t fabric_bytes = 0;    // port graphs, links, ports, node model, forwarding state
    std::uint64_t routes_bytes = 0;    // forwarding tables and the graph computing them
    std::uint64_t workload_bytes = 0;  // messages, dependencies, transport and result state
    std::uint64_t packet_bytes = 0;    // packets queued and in flight, and their events
    std::uint64_t memory_bytes() const {
        return kBaseBytes + fabric_bytes + routes_bytes + workload_bytes + packet_bytes;
    }
    // How the run is cut for its windows (models/network/partitions.hpp): into `partitions`,
    // each with an event calendar (`calendar_bytes` of fabric_bytes, the observer's included);
    // `single_reason` says why it stays one partition when the model forbids a cut.
    std::uint32_t partitions = 1;
    std::uint64_t calendar_bytes = 0;
    std::string single_reason;
    // The process before it builds anything: code, the hardware catalogue, the allocator.
    // Measured: `check` of a 32-NIC scenario peaks at 5.6 MB (docs/performance.md).
    static constexpr std::uint64_t kBaseBytes = std::uint64_t{6} << 20;
};

/// What each of R MPI ranks holds and handles when `mpirun -n R clustersim run` spreads the run
/// (`check --ranks R`). Every rank builds the whole model -- fabric, routes and workload -- and
/// runs the partitions dealt to it (sim/simulator.hpp; counted here as if they weigh alike,
/// which METIS aims for: at 2,048 GPUs they are within 3 %): what divides is the
/// packets alive, their events and the partitions' calendars. A model that stays one partition,
/// or has faults, runs whole on every rank. Each rank adds the MPI library's own memory.
struct RankShare {
    std::uint32_t partitions = 0;  // partitions the rank runs
    std::uint64_t events = 0;      // at most: its partitions' share of the run's bound
    std::uint64_t memory_bytes = 0;
};
struct RanksEstimate {
    std::string whole_reason;  // why every rank runs the whole model (empty: they share it)
    std::vector<RankShare> per_rank;
    // Measured: a 32-NIC fat-tree all-to-all peaks at 11.6-11.7 MB in one process and at
    // 18.6-18.9 MB per rank on two (OpenMPI 4.1.4, shared memory; docs/performance.md).
    static constexpr std::uint64_t kMpiRankBytes = std::uint64_t{8} << 20;
};
RanksEstimate estimate_ranks(const Scenario& s, const RunEstimate& e, std::uint32_t ranks);
/// What the ranks share and what they divide, in a sentence (check's text and JSON).
std::string ranks_note(const RanksEstimate& r);

/// The workload's size: its kind's formula when it has one (a MoE step's included), else
/// counted from `built` (a trace, read before the fabric is built).
WorkloadSize workload_size(const Scenario& s, std::uint64_t endpoints, const Workload* built,
                           std::uint64_t& packets);

RunEstimate estimate_run(const Scenario& s, const FabricPlan& f, const WorkloadSize& w,
                         std::uint64_t packets);

/// What `check` says of a scenario, from formulas: nothing is built but a pattern or trace of at
/// most 4 M messages, so its builder's checks run too (a MoE step is counted by its formula,
/// moe_step_size, and only its placement and gating are set up). Throws InputError, limits
/// included.
struct ScenarioEstimate {
    bool has_workload = false;
    std::string what;  // "moe: deepseek-v3 decode, EP 32 over 4 nodes, 1 group(s)", ...
    std::string fabric_kind;
    std::uint64_t fabric_endpoints = 0;
    RunEstimate run;
};
ScenarioEstimate estimate_scenario(const Scenario& s);

/// What simulating the scenario's fabric (and its workload, when that has a size formula) would
/// take, for `topo`; empty when the scenario is not simulable as set (check says why).
std::optional<RunEstimate> estimate_fabric(const Scenario& s, const Topology& t);

/// The most expert scores a MoE step's (or `traffic`'s) gating may draw: 2^34, about eleven
/// minutes at the 39 ns per score measured on the 2-core CI machine (docs/input-validation.md).
inline constexpr std::uint64_t kMaxGatingScores = std::uint64_t{1} << 34;

/// A MoE step's model, placement and gating are consistent (what building it would refuse),
/// checked without drawing a token.
void validate_moe_step(const Scenario& s, std::uint32_t endpoints);

/// `traffic`'s limits: one all-to-all's gating and tables against kMaxGatingScores and the
/// memory limit, before a token is drawn.
void check_moe_traffic_limits(const Scenario& s);

/// `run` warns before simulating more events than this with no limit set (an hour or so).
inline constexpr std::uint64_t kLongRunEvents = 10'000'000'000;

/// sim.max_memory_gb, else three quarters of what this process may use (the machine's memory,
/// cut by ulimit and the cgroup: process_memory_limit), in bytes.
std::uint64_t memory_limit_bytes(const Scenario& s);

/// Refuses a run whose estimate exceeds sim.max_events or the memory limit, blaming the key
/// the user set that sized it (the limit's own key when the user set that).
void check_run_limits(const Scenario& s, const RunEstimate& e);

/// The process's peak resident memory so far, as the OS counts it (0 if unknown).
std::uint64_t peak_memory_bytes();

/// "1.24 GB"-style text for estimates.
std::string format_bytes(std::uint64_t bytes);

}  // namespace clustersim
