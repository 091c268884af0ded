#pragma once
// A unidirectional link: fixed rate and delay, packets in flight held in arrival order, and at
// most one pending event (the arrival of the head packet).
#include <cstdint>

#include "models/packet.hpp"
#include "models/port_graph.hpp"
#include "sim/data_rate.hpp"
#include "sim/ring_buffer.hpp"

namespace clustersim {

struct InFlight {
    Time arrival;
    Packet packet;
};

struct Link {
    RingBuffer<InFlight> in_flight;
    SerialisationClock clock;
    Time arrival_delay;  // propagation plus the forwarding latency of the receiving switch
    NodeRef to;
    bool fabric_hop = false;  // fabric switch to fabric switch: the hops virtual lanes count
    std::uint64_t bytes_carried = 0;  // wire bytes, headers included
    std::uint64_t packets_carried = 0;
    DataRate rate;
    Time propagation;
};

}  // namespace clustersim
