#pragma once
// Swift, delay-based congestion control (Kumar et al., "Swift: Delay is Simple and Effective
// for Congestion Control in the Datacenter", SIGCOMM 2020, Algorithm 1): the sender measures
// each round trip and keeps it near a target delay. Below target, the window grows by ai
// packets per window (ai / cwnd per ACKed packet); above, it shrinks multiplicatively by
// beta x (delay - target) / delay, at most max_mdf, at most once per round trip. A window
// below one packet is paced (one packet per RTT / cwnd). One round-trip sample per window:
// the send time of one packet is kept and its ACK closes the sample.
#include <algorithm>
#include <cstdint>

#include "models/congestion/congestion_control.hpp"
#include "sim/time.hpp"

namespace clustersim {

struct SwiftParams {
    Time target = Time::from_us(20);  // base target delay (assumption: a few unloaded RTTs of
                                      // a 400G fat tree; the paper scales it with hops and flows)
    double ai = 1.0;                  // packets per window (paper)
    double beta = 0.8;                // multiplicative decrease gain (paper)
    double max_mdf = 0.5;             // largest decrease per round trip (paper)
    double min_cwnd = 0.01;           // packets (paper: Swift paces below one packet)
};

struct SwiftState {
    double cwnd = 0;  // packets (0: not started)
    Time rtt;         // the last sample
    Time last_decrease = Time::never();
    std::uint32_t probe_seq = 0;  // the packet whose ACK closes the current sample
    Time probe_sent = Time::never();
};

class Swift {
  public:
    explicit Swift(const SwiftParams& p) : p_(p) {}

    /// Starts at one bandwidth-delay product at the target delay.
    void start(SwiftState& s, double line_bps, std::uint32_t packet_bytes) const {
        s.cwnd = max_cwnd(line_bps, packet_bytes);
        s.rtt = p_.target;
    }
    double max_cwnd(double line_bps, std::uint32_t packet_bytes) const {
        return std::max(1.0, line_bps / 8 * p_.target.seconds() / packet_bytes);
    }
    /// Packet `seq` leaves now: it becomes the probe if none is out.
    void sent(SwiftState& s, std::uint32_t seq, Time now) const {
        if (s.probe_sent != Time::never()) return;
        s.probe_seq = seq;
        s.probe_sent = now;
    }
    /// A cumulative ACK up to `acked` (exclusive) covering `newly` packets.
    void on_ack(SwiftState& s, std::uint32_t acked, std::uint32_t newly, Time now, double line_bps,
                std::uint32_t packet_bytes) const {
        if (s.probe_sent != Time::never() && acked > s.probe_seq) {
            s.rtt = now - s.probe_sent;
            s.probe_sent = Time::never();
        }
        if (newly == 0) return;
        const double delay = s.rtt.seconds(), target = p_.target.seconds();
        if (delay < target) {
            s.cwnd += s.cwnd >= 1 ? p_.ai * newly / s.cwnd : p_.ai * newly;
        } else if (s.last_decrease == Time::never() || now - s.last_decrease >= s.rtt) {
            s.cwnd *= std::max(1 - p_.beta * (delay - target) / delay, 1 - p_.max_mdf);
            s.last_decrease = now;
        }
        s.cwnd = std::clamp(s.cwnd, p_.min_cwnd, max_cwnd(line_bps, packet_bytes));
    }
    /// Pacing rate: with a window of a packet or more, the ACKs clock the sender (line rate
    /// between them); below one packet, one packet per RTT / cwnd.
    double rate(const SwiftState& s, double line_bps, std::uint32_t packet_bytes) const {
        if (s.cwnd >= 1) return line_bps;
        const double rtt = std::max(s.rtt.seconds(), 1e-9);
        return std::min(line_bps, s.cwnd * packet_bytes * 8 / rtt);
    }

  private:
    SwiftParams p_;
};

/// Swift as the transport runs it (CongestionControlAlgorithm), with its row and keys.
class SwiftControl {
  public:
    using Params = SwiftParams;
    using State = SwiftState;
    static constexpr std::string_view kName = "swift";
    static constexpr CcTraits kTraits{.acks = true, .ack_every_packet = true, .window = true};

    explicit SwiftControl(const Params& p) : algo_(p) {}
    double on_send(State& s, const CcSend& e) const {
        if (s.cwnd == 0) algo_.start(s, e.line_bps, e.packet_bytes);
        algo_.sent(s, e.sequence, e.now);
        return algo_.rate(s, e.line_bps, e.packet_bytes);
    }
    double window_bytes(const State& s, double mtu_bytes) const { return s.cwnd * mtu_bytes; }
    void on_ack(State& s, const CcAck& a) const {
        algo_.on_ack(s, a.sequence, a.newly_acked, a.now, a.line_bps, a.packet_bytes);
    }
    void on_cnp(State&, Time, double) const {}
    Time cnp_interval() const { return Time::zero(); }

    static inline const KeySpec kTarget =
        keys::number_default("network.swift_target_us", 1e-3, 1e6, 20, "assumption",
                             "swift: the round-trip delay the window aims for");

    static CongestionControlInfo info() {
        return {kName,
                "delay-based window: round trips held near a target delay (Kumar et al., SIGCOMM "
                "2020; models/congestion/swift.hpp)",
                {kTarget}};
    }
    static Params parse(const KeyValues& v) {
        Params p;
        p.target = Time::from_us(v.number(kTarget));
        return p;
    }

  private:
    Swift algo_;
};

}  // namespace clustersim
