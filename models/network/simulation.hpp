#pragma once
// Runs one packet-level simulation of a workload on a port graph and collects what reports need.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/forwarding/forwarding_tables.hpp"
#include "models/network/network.hpp"
#include "models/network/port_graph.hpp"
#include "sim/thread_balance.hpp"

namespace clustersim {

/// Why a run spread over ranks has every rank run the whole model ("": its partitions spread):
/// a model that is one partition (`single_reason`, if known, says why), or one with faults,
/// which are not yet spread over ranks. The run and `check --ranks` both ask this.
std::string whole_on_every_rank(std::uint32_t partitions, bool faults,
                                const std::string& single_reason = {});

struct SimulationOptions {
    Time max_time = Time::never();
    std::uint64_t max_events = 0;       // 0: no limit (checked every 4,096 events)
    bool progress = false;              // a progress line on stderr after a couple of seconds
    std::uint64_t expected_events = 0;  // what the run was estimated at (0: not known)
    bool fingerprint = false;           // fold every event into SimulationResult::fingerprint
    const FaultPlan* faults = nullptr;  // faults: what breaks, and when
    // Partitions the run is cut into for windows (Network's `partitions`; sim.partitions):
    // 0 the default for the model's size, 1 none (the plain loop). A model setting: the cut
    // decides which credits cross it as events, so it is part of what a run simulated.
    std::uint32_t partitions = 0;
    // Threads that run the partitions of a window (sim/simulator.hpp): results do not depend
    // on them. An execution setting: never part of a scenario's resolved values.
    std::uint32_t threads = 1;
    // Keep the credits of ports proved never to bind (Network::drop_non_binding_credits),
    // which a run drops: the same results either way, which tests check.
    bool keep_non_binding_credits = false;
    // MPI ranks the run is spread over (sim/ranks.hpp; null: this process runs it all). An
    // execution setting, as threads: every rank returns the same result.
    Ranks* ranks = nullptr;
};

struct ChannelUsage {
    std::uint64_t bytes = 0;   // wire bytes carried
    double utilisation = 0;    // of the run's duration
    std::uint64_t pauses = 0;  // PFC pause frames received
    Time paused;               // time its port spent paused
    std::uint64_t max_queue_bytes = 0;
    std::uint64_t drops = 0, ecn_marks = 0;
};

struct SimulationResult {
    enum class Status { Completed, Stalled, TimeLimit, EventLimit, Failed };
    Status status = Status::Completed;
    Time end_time;
    std::uint64_t events = 0;
    std::optional<std::uint64_t> fingerprint;  // sim.fingerprint: the event order's digest
    double wall_s = 0;
    NetworkCounters counters;
    std::vector<MessageState> messages;
    // Messages that did not finish but received some bytes: how many (distinct), by index.
    struct Received {
        std::uint32_t message = 0;
        std::uint64_t bytes = 0;
    };
    std::vector<Received> unfinished_received;
    /// Distinct payload bytes message m received (whole when it finished).
    std::uint64_t bytes_received(std::uint32_t m, std::uint64_t message_bytes) const;
    std::vector<ComputeState> computes;
    std::vector<ChannelUsage> channels;
    double max_link_util = 0;
    std::uint64_t max_queue_bytes = 0;
    std::vector<QueueSample> queue_samples;  // sim.sample_us
    TierSeries tiers;                        // link use and queues per tier over time (always)
    bool samples_truncated = false;
    Time pfc_paused;      // over every port
    Time pfc_paused_max;  // the port paused longest
    std::uint64_t payload_in_flight = 0;
    std::size_t peak_packets = 0;  // packets alive at once, at most
    // How the run was cut for windows (models/network/partitions.hpp).
    std::uint32_t partitions = 1;
    Time lookahead = Time::never();
    std::uint64_t cut_channels = 0;
    std::uint64_t windows = 0;  // windows run (0: one partition)
    // Per ThreadBalance::kThreads: the busiest thread's events summed over windows (the first,
    // one thread, is every windowed event).
    std::array<std::uint64_t, ThreadBalance::kThreads.size()> busiest_thread_events{};
    // Threads that ran the windows (at most one per partition): said on the summary, never in
    // results, which must be the same whatever it was.
    std::uint32_t threads = 1;
    // Ranks that ran it (1: none), and, when the ranks each ran all of it, why.
    std::uint32_t ranks = 1;
    std::string ranks_note;
    std::string single_partition_reason;
    PathSpread path_spread;
    std::vector<FaultOutcome> faults;  // per fault of SimulationOptions::faults
};

/// `layout` is null for bare NICs, else the node model `graph` was expanded with.
SimulationResult simulate(const PortGraph& graph, const ForwardingTables& routes,
                          const Workload& workload, const NetworkParams& params,
                          const SimulationOptions& options, const NodeLayout* layout = nullptr);

}  // namespace clustersim
