#pragma once
// A packet is a 24-byte POD moved by value between per-channel rings (egress queues and links):
// a port's queued packets sit contiguously, so forwarding streams through memory instead of
// chasing pointers into a pool, and nothing is allocated once the rings have grown.
#include <cstdint>
#include <limits>

namespace clustersim {

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

struct Packet {
    std::uint32_t message = kNone;         // the message this packet carries a piece of
    std::uint32_t dst = 0;                 // destination endpoint
    std::uint32_t payload_bytes = 0;       // message bytes carried; on the wire, plus the network's
                                           // per-packet header (NetworkParams::header_bytes)
    std::uint32_t entropy = 0;             // flow hash input (header fields), constant per flow
    std::uint32_t credit_channel = kNone;  // upstream channel whose credits this packet holds
    std::uint8_t credit_vl = 0;            // lane of the upstream credits it holds
    std::uint8_t fabric_hops = 0;          // switch-to-switch hops taken: the next such hop's lane
};
static_assert(sizeof(Packet) == 24);

}  // namespace clustersim
