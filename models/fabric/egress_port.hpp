#pragma once
// An output port: a FIFO of packets per virtual lane, a transmitter that is busy until a known
// time, and the credits it holds per lane for the buffer at the far end (InfiniBand-style
// lossless flow control; lanes keep low-diameter topologies free of credit deadlock).
// Laid out by cache line: at scale forwarding is bound by memory latency, so the fields one
// transmission touches share the first line, and the credit path the second.
#include <array>
#include <cstddef>
#include <cstdint>

#include "models/fabric/credit_returns.hpp"
#include "models/network/packet.hpp"
#include "sim/chunked_fifo.hpp"
#include "sim/ring_buffer.hpp"
#include "sim/time.hpp"

namespace clustersim {

inline constexpr std::uint32_t kMaxVirtualLanes = 8;  // non-minimal Dragonfly routes: 6 hops

struct alignas(64) EgressPort {
    // Line 1: what every service and enqueue reads.
    Time busy_until;                 // transmitter free from this time
    Time wake_at = Time::never();    // the one pending wake-up event, if any
    ChunkedFifo<Packet> queue;       // lane 0: the only lane in fat trees
    std::uint64_t queued_bytes = 0;  // over all lanes
    Time tail_at = Time::never();    // when the last packet was queued (ties: tie_winner)
    std::uint8_t next_vl = 0;        // round-robin among lanes
    bool unlimited_credits = true;   // lossy mode, or a receiver that always sinks (a host)
    bool waiting_for_credit = false;
    bool paused = false;            // PFC: stopped by the far end's pause frame
    bool down = false;              // a fault stopped it (faults: link_down, switch_down, ...)
    std::uint8_t partition = 0;     // whose pool its queues' chunks come from (Fabric::set_cut)
    bool credits_not_kept = false;  // its credits cannot bind (Fabric::set_non_binding)

    // Line 2: the credit path (lossless credits only): what a return writes and a service reads.
    std::int64_t credits_bytes = 0;  // lane 0's (lanes 1.. in Fabric's UpperCredits)
    Time credit_delay;               // a credit's trip back over this port's link
    NearCredits near_credits;        // the first returns on their way back

    // Line 3: more returns on their way back (and every return of a many-lane port).
    RingBuffer<CreditReturn> returning;
    // Written only when a queue grows past it (a statistic: not on every enqueue).
    std::uint64_t max_queue_bytes = 0;
    std::uint64_t buffer_bytes = 0;  // tail-drop limit in lossy mode
    // A packet that would queue past this is dropped: buffer_bytes in lossy mode, no limit in
    // lossless ones, 0 while a fault has the channel down (one comparison either way).
    std::uint64_t drop_above_bytes = ~std::uint64_t{0};
    std::uint64_t drops = 0;  // tail drops

    // Line 4: rarely touched.
    std::uint64_t fault_drops = 0;  // lost to a fault: queued when it went down, or sent to it
    // Two packets queued in the same picosecond (Fabric::enqueue): the input that went first at
    // the last such tie, and the lane of the last packet queued (kept with more than one lane).
    std::uint32_t tie_winner = 0;
    std::uint8_t tail_vl = 0;
    std::uint32_t loss_threshold = 0;  // link_lossy: a packet is lost when its draw is below
    std::uint64_t loss_draws = 0;      // draws so far (the seeded stream's position)
    Time paused_since;
    Time paused_total;            // time spent paused
    std::uint64_t pauses = 0;     // pause frames received
    std::uint64_t ecn_marks = 0;  // packets it marked congestion experienced
};

/// Lanes 1.. of a port, kept apart (Fabric::lane): only fabrics that route over more
/// switch-to-switch hops than one lane can keep deadlock-free (Dragonfly, Slim Fly) have them,
/// so a fat tree's port is three lines, not six.
using UpperLanes = std::array<ChunkedFifo<Packet>, kMaxVirtualLanes - 1>;
using UpperCredits = std::array<std::int64_t, kMaxVirtualLanes - 1>;
using PacketChunks = ChunkedFifo<Packet>::Pool;
static_assert(sizeof(EgressPort) == 256);
static_assert(offsetof(EgressPort, tail_at) < 64 && offsetof(EgressPort, credits_not_kept) < 64);
static_assert(offsetof(EgressPort, credits_bytes) / 64 == 1 &&
              offsetof(EgressPort, near_credits) / 64 == 1 &&
              (offsetof(EgressPort, near_credits) + sizeof(NearCredits) - 1) / 64 == 1);

}  // namespace clustersim
