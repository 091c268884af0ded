#pragma once
// Logical processes grouped into partitions, the units a windowed run hands to threads: a
// partition's events run in time order on one thread, and between partitions only events
// cross, each due at least `lookahead` after the event that sent it, so every partition can
// run a window of that length without waiting for the others (conservative synchronisation,
// as in SST-core and ns-3's MPI simulator). The grouping follows from the model alone, never
// from the thread count, so that every thread count gives one result; METIS cuts the graph of
// processes into parts of about equal channels and equal expected events (models/network/
// process_load.hpp) where the fewest channels cross.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/dag/task_processes.hpp"
#include "models/network/logical_processes.hpp"
#include "models/network/port_graph.hpp"

namespace clustersim {

struct Partitions {
    std::uint32_t count = 1;
    std::vector<std::uint32_t> of_process;  // per logical process, the observer's last
    Time lookahead = Time::never();         // the shortest delay of a cut channel
    std::vector<bool> cut;                  // per channel: its ends in two partitions
    std::uint64_t cut_channels = 0;
    std::string single_reason;          // why the run is one partition (empty when it is not)
    std::vector<std::uint64_t> weight;  // per partition: expected load (or channels transmitted)

    bool is_cut(std::uint32_t channel) const { return !cut.empty() && cut[channel]; }
};

/// Partitions a fabric is cut into by default: about one per `kProcessesPerPartition`
/// processes, rounded up to an even count (two threads or ranks, as on a 2-core machine like
/// CI's, then split them evenly: the 2,048-GPU step's 11 bounded two threads at 1.83 and ran its
/// first 600 us in 30.7 s on two, 12 at 1.96 in 26.3 s; docs/performance.md), at least two, at
/// most `kMaxPartitions` (enough for a few dozen threads). Each
/// partition keeps an event calendar whose chunks fill per bucket, so more partitions cost
/// memory: at 8 processes a partition the 2,048-GPU step's 44 calendars held 140 MB more than
/// one with 752-byte chunks; with 368-byte ones 44 held 106 MB more than 11 (docs/performance.md).
/// `sim.partitions` asks for more, up to `kMostPartitions` (what a pool's slot names hold), for
/// many cores.
inline constexpr std::uint32_t kProcessesPerPartition = 32;
inline constexpr std::uint32_t kMaxPartitions = 64;
inline constexpr std::uint32_t kMostPartitions = 256;
/// How many partitions `processes` logical processes are cut into (METIS may leave some empty):
/// `wanted` when given (at most one per process), else the default above.
constexpr std::uint32_t partitions_for(std::uint64_t processes, std::uint32_t wanted = 0) {
    if (wanted > 0) return static_cast<std::uint32_t>(std::min<std::uint64_t>(wanted, processes));
    const std::uint64_t share = processes / kProcessesPerPartition;
    const std::uint64_t even = share + (share & 1);
    return static_cast<std::uint32_t>(
        std::min<std::uint64_t>({kMaxPartitions, processes, std::max<std::uint64_t>(2, even)}));
}

/// Groups the processes of `lp` into partitions. `ties` are pairs a dependency joins with no
/// delay (they stay together); `shared_reason`, when not empty, says why the model reads state
/// across processes with no delay (HPCC's hop records, UGAL-G's remote queues): one partition.
/// `load`: per process, the expected events to balance beside channels (empty: channels only).
/// `wanted`: how many partitions (0: partitions_for's default; 1: one).
Partitions partition_processes(const PortGraph& graph, const LogicalProcesses& lp,
                               std::span<const ProcessTie> ties, const std::string& shared_reason,
                               std::span<const std::uint64_t> load = {}, std::uint32_t wanted = 0);

}  // namespace clustersim
