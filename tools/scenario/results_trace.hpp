#pragma once
// trace.json: the run as a timeline in the Chrome trace-event format, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open, each event written with the JSON library.
// Tracks: each MoE all-to-all as one span (its first byte sent to its last byte received, what
// dispatch_us and combine_us average); per GPU its compute tasks, named by stage (attention,
// shared expert, routed experts, ...), its part of each all-to-all as async slices, and flows
// from its dispatch's arrival to the experts it feeds and on to its combine; per sending GPU
// its messages, with what they are (src, dst, bytes, phase, pass, layer, micro-batch, path) as
// args; the fabric's queued bytes and link utilisation over time when sim.sample_us is set.
// Above `limit` events it keeps every event of a set of GPUs spread evenly over the cluster,
// whole (all layers, the whole run), and says so first, in its metadata.
#include <cstdint>
#include <ostream>
#include <string>

#include "tools/scenario/run.hpp"

namespace clustersim {

struct TraceWritten {
    std::uint64_t events = 0;
    std::uint32_t gpus = 0, gpus_kept = 0;  // GPU (endpoint) tracks, and those written
    bool sampled = false;
    std::string what;  // what the sample holds (empty when whole)
};

TraceWritten write_trace(std::ostream& out, const Scenario& s, const PreparedRun& p,
                         const SimulationResult& r, std::uint64_t limit);

inline constexpr std::uint64_t kDefaultTraceLimit = 200'000;  // about 30 MB

}  // namespace clustersim
