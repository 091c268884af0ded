#pragma once
// trace.json: the run as a timeline in the Chrome trace-event format, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. Tracks: each MoE all-to-all as one span (its
// first byte sent to its last byte received, what dispatch_us and combine_us average); per GPU
// its compute tasks and, as async slices, its part of each all-to-all; per sending endpoint its
// messages; the fabric's queued bytes and switch-to-switch link utilisation over time when
// sim.sample_us is set. Written as a stream, at most `limit` events (messages go last and are
// the ones cut).
#include <cstdint>
#include <ostream>

#include "tools/scenario/run.hpp"

namespace clustersim {

/// Writes the trace; returns the number of events written.
std::uint64_t write_trace(std::ostream& out, const Scenario& s, const PreparedRun& p,
                          const SimulationResult& r, std::uint64_t limit);

inline constexpr std::uint64_t kDefaultTraceLimit = 200'000;  // about 20 MB

}  // namespace clustersim
