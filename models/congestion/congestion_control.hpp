#pragma once
// Congestion control at the sending NIC, as a concept the transport's paced path is templated
// on: per queue pair, an algorithm keeps its State, sets the rate of each packet it lets out
// (on_send), may bound the bytes unacknowledged (window_bytes), and reacts to ACKs and CNPs.
// Its traits say what the rest of the network must do for it (ECN marking, ACKs per packet,
// in-band telemetry). Each algorithm is one header (dcqcn.hpp, hpcc.hpp, swift.hpp) with its
// row (name, help, keys, parser); congestion_controls.hpp lists them.
#include <concepts>
#include <cstdint>
#include <string_view>
#include <vector>

#include "models/congestion/int_telemetry.hpp"
#include "sim/input/key_spec.hpp"
#include "sim/time.hpp"

namespace clustersim {

struct CcTraits {
    bool ecn = false;               // switches mark, receivers send CNPs
    bool acks = false;              // needs reliable connections (ACKs come back)
    bool ack_every_packet = false;  // one ACK per packet (no coalescing)
    bool int_telemetry = false;     // packets stamp hop records (IntPath)
    bool window = false;            // window_bytes bounds what is unacknowledged
};

/// A packet of the queue pair is about to leave.
struct CcSend {
    std::uint32_t sequence = 0;
    std::uint64_t wire_bytes = 0;
    Time now;
    double line_bps = 0;
    std::uint32_t packet_bytes = 0;  // a full packet on the wire (MTU + headers)
};

/// A cumulative ACK (or NACK) up to `sequence` reached the sender.
struct CcAck {
    std::uint32_t sequence = 0;
    std::uint32_t newly_acked = 0;  // packets it acknowledges for the first time
    std::uint32_t next_packet = 0;  // the sender's next sequence
    Time now;
    double line_bps = 0;
    std::uint32_t packet_bytes = 0;
    const IntPath* telemetry = nullptr;  // the hop records its packets stamped (int_telemetry)
};

template <class C>
concept CongestionControlAlgorithm = requires(const C& c, typename C::State& s,
                                              const typename C::State& cs, const CcSend& send,
                                              const CcAck& ack, Time now,
                                              double bps) {  // window_bytes(state, mtu_bytes)
    typename C::Params;
    { C::kTraits } -> std::convertible_to<CcTraits>;
    { C::kName } -> std::convertible_to<std::string_view>;
    { c.on_send(s, send) } -> std::convertible_to<double>;       // bits/s for this packet
    { c.window_bytes(cs, bps) } -> std::convertible_to<double>;  // bytes; bps: the MTU
    c.on_ack(s, ack);
    c.on_cnp(s, now, bps);
    { c.cnp_interval() } -> std::convertible_to<Time>;
};

/// One row of the congestion-control family, for the schema and `check --schema`.
struct CongestionControlInfo {
    std::string_view name;
    std::string_view help;
    std::vector<KeySpec> keys;
};

}  // namespace clustersim
