#pragma once
// An output port: a FIFO of packets, a transmitter that is busy until a known time, and the
// credits it holds for the buffer at the far end (InfiniBand-style lossless flow control).
#include <cstdint>

#include "models/packet_pool.hpp"
#include "sim/ring_buffer.hpp"
#include "sim/time.hpp"

namespace clustersim {

struct CreditReturn {
    Time at;  // when the credit reaches this port
    std::uint32_t bytes = 0;
};

struct EgressPort {
    PacketQueue queue;
    Time busy_until;               // transmitter free from this time
    Time wake_at = Time::never();  // the one pending wake-up event, if any
    std::int64_t credits_bytes = 0;
    bool unlimited_credits = true;  // lossy mode, or a receiver that always sinks (a host)
    bool waiting_for_credit = false;
    RingBuffer<CreditReturn> returning;  // credits on their way back, in time order
    std::uint64_t buffer_bytes = 0;      // tail-drop limit in lossy mode
    std::uint64_t max_queue_bytes = 0;
    std::uint64_t drops = 0;
};

}  // namespace clustersim
