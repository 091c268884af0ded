#pragma once
// A packet is a 32-byte POD moved by value between per-channel rings (egress queues and links):
// a port's queued packets sit contiguously, so forwarding streams through memory instead of
// chasing pointers into a pool, and nothing is allocated once the rings have grown. It carries
// what a transport needs (kind, sequence, source for the way back, ECN and priority bits);
// what only some policies need (per-hop telemetry) belongs in a side record keyed by message
// and sequence, not here; a Valiant intermediate is recomputed from the packet's fields.
#include <cstdint>
#include <limits>

namespace clustersim {

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

enum class PacketKind : std::uint8_t { Data, Ack, Nack, Cnp };

struct Packet {
    std::uint32_t message = kNone;         // the message this packet carries a piece of
    std::uint32_t src = 0;                 // source endpoint (where ACKs and CNPs go back to)
    std::uint32_t dst = 0;                 // destination endpoint
    std::uint32_t payload_bytes = 0;       // message bytes carried; on the wire, plus the network's
                                           // per-packet header (NetworkParams::header_bytes)
    std::uint32_t entropy = 0;             // flow hash input (header fields), constant per flow
    std::uint32_t sequence = 0;            // packet index within its message
    std::uint32_t credit_channel = kNone;  // upstream channel whose credits this packet holds
    std::uint8_t credit_vl = 0;    // lane of the upstream credits it holds, or kNoCreditHeld
    std::uint8_t fabric_hops = 0;  // switch-to-switch hops taken: the next such hop's lane
    PacketKind kind = PacketKind::Data;
    std::uint8_t flags = 0;  // kEcnCapable, kCongestionExperienced, priority in kPriorityMask

    static constexpr std::uint8_t kEcnCapable = 1u << 0;
    static constexpr std::uint8_t kCongestionExperienced = 1u << 1;
    static constexpr std::uint8_t kNonMinimal = 1u << 2;  // routed via an intermediate switch,
    static constexpr std::uint8_t kPastIntermediate = 1u << 3;  // ... which it has reached
    static constexpr std::uint8_t kPriorityShift = 4;
    static constexpr std::uint8_t kViaNic = 1u << 7;     // same node, but through the NIC
    static constexpr std::uint8_t kPriorityMask = 0x70;  // 8 priorities (PFC classes)
    // In credit_vl: the upstream port keeps no credits (they cannot bind): nothing to return,
    // but credit_channel still names the input, for a switch's output arbiter.
    static constexpr std::uint8_t kNoCreditHeld = 1u << 7;

    std::uint32_t priority() const { return (flags & kPriorityMask) >> kPriorityShift; }
    void set_priority(std::uint32_t p) {
        flags = static_cast<std::uint8_t>((flags & ~kPriorityMask) |
                                          ((p << kPriorityShift) & kPriorityMask));
    }
};
static_assert(sizeof(Packet) == 32);

}  // namespace clustersim
