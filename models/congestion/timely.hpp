#pragma once
// TIMELY, rate control from the RTT gradient (Mittal et al., "TIMELY: RTT-based Congestion
// Control for the Datacenter", SIGCOMM 2015, Algorithm 1). One probe per round trip measures
// the RTT; the difference to the previous sample is smoothed (EWMA alpha) and normalised by the
// smallest RTT seen. Below T_low the rate grows by delta; above T_high it falls by
// beta (1 - T_high / RTT); between them a non-positive gradient adds delta (5 delta after
// five in a row: hyper-active increase) and a positive one cuts by beta x gradient.
// T_low and T_high are keys; alpha, beta and the HAI count are the paper's values for 10 GbE,
// kept at 400G, and delta is the paper's 10 Mb/s scaled with the line rate (assumptions). The RTT
// comes from ACKs, one per packet, not from per-segment completions as in the paper: a
// simplification.
#include <algorithm>
#include <cstdint>

#include "models/congestion/congestion_control.hpp"
#include "sim/time.hpp"

namespace clustersim {

struct TimelyParams {
    Time t_low = Time::from_us(50);    // paper
    Time t_high = Time::from_us(500);  // paper
    double alpha = 0.875;              // EWMA weight of a new RTT difference (paper)
    double beta = 0.8;                 // multiplicative decrease (paper)
    double delta_fraction = 1e-3;      // additive step, of the line rate: the paper's 10 Mb/s
                                       // at 10 GbE, scaled with the rate (an assumption)
    std::uint32_t hai_after = 5;       // consecutive non-positive gradients before 5 x delta
    double min_bps = 1e6;              // floor (assumption: as DCQCN's)
};

struct TimelyState {
    double rate_bps = 0;  // 0: not started
    Time prev_rtt, min_rtt = Time::never();
    double rtt_diff_s = 0;
    std::uint32_t negatives = 0;
    std::uint32_t probe_seq = 0;
    Time probe_sent = Time::never();
};

class TimelyControl {
  public:
    using Params = TimelyParams;
    using State = TimelyState;
    static constexpr std::string_view kName = "timely";
    static constexpr CcTraits kTraits{.acks = true, .ack_every_packet = true};

    explicit TimelyControl(const Params& p) : p_(p) {}

    double on_send(State& s, const CcSend& e) const {
        if (s.rate_bps == 0) s.rate_bps = e.line_bps;
        if (s.probe_sent == Time::never()) {  // one RTT probe out at a time
            s.probe_seq = e.sequence;
            s.probe_sent = e.now;
        }
        return s.rate_bps;
    }
    double window_bytes(const State&, double /*mtu_bytes*/) const { return 0; }
    void on_ack(State& s, const CcAck& a) const {
        if (s.probe_sent == Time::never() || a.sequence <= s.probe_seq) return;
        const Time rtt = a.now - s.probe_sent;
        s.probe_sent = Time::never();
        const bool first = s.min_rtt == Time::never();
        s.min_rtt = first ? rtt : std::min(s.min_rtt, rtt);
        const double diff = first ? 0.0 : (rtt - s.prev_rtt).seconds();
        s.prev_rtt = rtt;
        s.rtt_diff_s = (1 - p_.alpha) * s.rtt_diff_s + p_.alpha * diff;
        const double gradient = s.rtt_diff_s / std::max(s.min_rtt.seconds(), 1e-9);
        if (rtt < p_.t_low) {
            s.rate_bps += p_.delta_fraction * a.line_bps;
            s.negatives = 0;
        } else if (rtt > p_.t_high) {
            s.rate_bps *= 1 - p_.beta * (1 - p_.t_high.seconds() / rtt.seconds());
            s.negatives = 0;
        } else if (gradient <= 0) {
            ++s.negatives;
            s.rate_bps += (s.negatives >= p_.hai_after ? 5 : 1) * p_.delta_fraction * a.line_bps;
        } else {
            s.rate_bps *= 1 - p_.beta * std::min(gradient, 1.0);
            s.negatives = 0;
        }
        s.rate_bps = std::clamp(s.rate_bps, p_.min_bps, a.line_bps);
    }
    void on_cnp(State&, Time, double) const {}
    Time cnp_interval() const { return Time::zero(); }

    static inline const KeySpec kLow = keys::number_default(
        "network.timely_t_low_us", 0, 1e6, 50, "TIMELY paper, 10 GbE",
        "timely: below this RTT the rate grows by delta whatever the gradient");
    static inline const KeySpec kHigh =
        keys::number_default("network.timely_t_high_us", 1e-3, 1e6, 500, "TIMELY paper, 10 GbE",
                             "timely: above this RTT the rate falls by beta (1 - T_high / RTT)");

    static CongestionControlInfo info() {
        return {kName,
                "rate from the RTT gradient between T_low and T_high (Mittal et al., SIGCOMM "
                "2015; models/congestion/timely.hpp)",
                {kLow, kHigh}};
    }
    static Params parse(const KeyValues& v) {
        Params p;
        p.t_low = Time::from_us(v.number(kLow));
        p.t_high = Time::from_us(v.number(kHigh));
        return p;
    }

  private:
    Params p_;
};

}  // namespace clustersim
