#pragma once
// In-band network telemetry: the record a fabric switch's egress stamps into a data packet
// (queue, bytes sent, time, rate), as HPCC's INT does, and a queue pair's records per hop.
#include <array>
#include <cstdint>

#include "sim/time.hpp"

namespace clustersim {

inline constexpr std::uint32_t kMaxIntHops = 8;

struct IntHop {
    std::uint64_t queue_bytes = 0;
    std::uint64_t tx_bytes = 0;  // sent by the port so far
    Time at;
    double bps = 0;  // link rate
};

/// The hop records of one queue pair: what its packets stamped (live) and what the sender last
/// acted on.
struct IntPath {
    std::array<IntHop, kMaxIntHops> hop{};
    std::uint8_t mask = 0;  // hops present
};

}  // namespace clustersim
