#pragma once
// How long a run will take on one thread, before it is built: its estimated events times the
// time an event takes, which grows with the state a packet hop touches (the fabric's ports and
// links, the packets queued and in flight) as that state outgrows the caches. The rate and its
// growth are measured on this simulator (models/data/simulator_speed.yaml), not promised: they
// vary with the host, and the events are an upper bound.
#include <cstdint>

#include "tools/scenario/estimate.hpp"

namespace clustersim {

/// The state a packet hop touches, as the estimate counts it: the fabric and the packets.
inline std::uint64_t hop_state_bytes(const RunEstimate& r) {
    return r.fabric_bytes + r.packet_bytes;
}
/// Nanoseconds of one thread per estimated event for a run holding `hop_state_bytes`.
double ns_per_event(std::uint64_t hop_state_bytes);
/// Seconds one thread would take for the run's estimated events.
double wall_s_estimate(const RunEstimate& r);

}  // namespace clustersim
