#pragma once
// A unidirectional link: fixed rate and delay. Its packets in flight are not held here: each is
// a record in the fabric's pool named by its own arrival event (InFlight), so the receiving end
// reads nothing the sending end writes but that record -- what a partition's cut needs -- and
// arrivals read records packed in launch order instead of one ring per link. One cache line;
// rate and delay as configured live in the port graph's channel.
#include <cstdint>

#include "models/network/packet.hpp"
#include "models/network/port_graph.hpp"
#include "sim/data_rate.hpp"

namespace clustersim {

/// A packet on its way over a link, until its arrival event: the packet, the channel and the
/// node at the far end (the arrival needs no read of the link).
// A line of its own: in a windowed run the partition at the far end reads it while the one
// that launched it fills the slot next to it.
struct alignas(64) InFlight {
    Packet packet;
    std::uint32_t channel = 0;
    std::uint32_t to_index : 31 = 0;
    std::uint32_t to_switch : 1 = 0;
    NodeRef to() const {
        return NodeRef{to_switch ? NodeKind::Switch : NodeKind::Endpoint, to_index};
    }
};
static_assert(sizeof(InFlight) == 64, "a 32-byte packet, its channel and its far end");

struct alignas(64) Link {
    SerialisationClock clock;
    Time arrival_delay;  // propagation plus the forwarding latency of the receiving switch
    NodeRef to;
    bool fabric_hop = false;    // fabric switch to fabric switch: the hops virtual lanes count
    bool cut_through = false;   // the far switch forwards once the header is in
    std::uint32_t process = 0;  // the logical process at the far end (its arrivals' handler)
    std::uint64_t bytes_carried = 0;  // wire bytes, headers included
};
static_assert(sizeof(Link) == 64);

}  // namespace clustersim
