#pragma once
// A unidirectional link: fixed rate and delay, packets in flight held in arrival order, and at
// most one pending event (the arrival of the head packet). One cache line; rate and delay as
// configured live in the port graph's channel.
#include <cstdint>

#include "models/network/packet.hpp"
#include "models/network/port_graph.hpp"
#include "sim/data_rate.hpp"
#include "sim/ring_buffer.hpp"

namespace clustersim {

struct InFlight {
    Time arrival;
    Packet packet;
};
static_assert(sizeof(InFlight) == 40, "arrival time and a 32-byte packet, no padding");

struct alignas(64) Link {
    RingBuffer<InFlight> in_flight;
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
