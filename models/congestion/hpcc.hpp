#pragma once
// HPCC, window-based congestion control from in-band telemetry (Li et al., "HPCC: High
// Precision Congestion Control", SIGCOMM 2019, Algorithm 1). Every switch egress a data packet
// leaves stamps its hop record (queue length, bytes sent so far, time, link rate); the receiver
// ACKs every packet and the ACK carries the records back. Per ACK the sender estimates each
// link's utilisation u = min(qlen, previous qlen) / (B T) + txRate / B, takes the most loaded
// link, smooths it over the base RTT T (U = (1 - tau/T) U + tau/T u), and sets its window
// W = Wc / (U / eta) + W_AI when U >= eta or after maxStage additive steps, else W = Wc + W_AI;
// Wc moves once per RTT. It paces at W / T and never has more than W bytes unacknowledged.
// A hop record is kept per queue pair and hop index, written by the latest packet of the queue
// pair to leave that hop (what the ACKed packet saw, or a packet just behind it): the path is
// one per queue pair under static and ECMP routing, which HPCC assumes.
#include <algorithm>
#include <array>
#include <cstdint>

#include "models/congestion/congestion_control.hpp"
#include "models/congestion/int_telemetry.hpp"
#include "sim/time.hpp"

namespace clustersim {

struct HpccParams {
    double eta = 0.95;                  // target utilisation (paper)
    std::uint32_t max_stage = 5;        // additive steps before a multiplicative one (paper)
    Time base_rtt = Time::from_us(10);  // T (assumption: above an unloaded 3-tier RTT)
    double ai_bps = 50e6;               // W_AI = ai_bps x T (assumption, as the HPCC
                                        // authors' simulator's default rate increase)
};

struct HpccState {
    IntPath last;
    double u = 0;          // smoothed utilisation
    double wc = 0, w = 0;  // reference and current window, bytes (0: not started)
    std::uint32_t stage = 0;
    std::uint32_t update_after = 0;  // Wc moves on the first ACK past this sequence
};

class Hpcc {
  public:
    explicit Hpcc(const HpccParams& p) : p_(p) {}

    double initial_window(double line_bps) const {
        return line_bps / 8 * p_.base_rtt.seconds();  // one bandwidth-delay product
    }
    void start(HpccState& s, double line_bps) const { s.wc = s.w = initial_window(line_bps); }
    /// An ACK for sequence `acked_seq` brought `path`; `next_seq` is the next one to send.
    void on_ack(HpccState& s, const IntPath& path, std::uint32_t acked_seq, std::uint32_t next_seq,
                double line_bps) const {
        if (s.w == 0) start(s, line_bps);
        const double t = p_.base_rtt.seconds();
        double u = 0, tau = t;
        bool measured = false;
        for (std::uint32_t i = 0; i < kMaxIntHops; ++i) {
            if (!(path.mask & (1u << i)) || !(s.last.mask & (1u << i))) continue;
            const IntHop& now = path.hop[i];
            const IntHop& then = s.last.hop[i];
            const double dt = (now.at - then.at).seconds();
            if (dt <= 0 || now.bps <= 0) continue;
            const double tx_rate =
                static_cast<double>(now.tx_bytes - std::min(now.tx_bytes, then.tx_bytes)) * 8 / dt;
            const double ui = static_cast<double>(std::min(now.queue_bytes, then.queue_bytes)) * 8 /
                                  (now.bps * t) +
                              tx_rate / now.bps;
            if (!measured || ui > u) {
                u = ui;
                tau = dt;
            }
            measured = true;
        }
        s.last = path;
        if (!measured) return;
        tau = std::min(tau, t);
        s.u = (1 - tau / t) * s.u + tau / t * u;
        const bool update = acked_seq > s.update_after;
        const double w_ai = p_.ai_bps / 8 * t;
        double w;
        if (s.u >= p_.eta || s.stage >= p_.max_stage) {
            w = s.wc / (s.u / p_.eta) + w_ai;
            if (update) {
                s.stage = 0;
                s.wc = w;
            }
        } else {
            w = s.wc + w_ai;
            if (update) {
                ++s.stage;
                s.wc = w;
            }
        }
        if (update) s.update_after = next_seq;
        s.w = std::clamp(w, 1.0, initial_window(line_bps));
        s.wc = std::min(s.wc, initial_window(line_bps));
    }
    /// The pacing rate for a window: W / T, at most the line rate.
    double rate(const HpccState& s, double line_bps) const {
        return std::min(line_bps, s.w * 8 / p_.base_rtt.seconds());
    }
    const HpccParams& params() const { return p_; }

  private:
    HpccParams p_;
};

/// HPCC as the transport runs it (CongestionControlAlgorithm), with its row and keys.
class HpccControl {
  public:
    using Params = HpccParams;
    using State = HpccState;
    static constexpr std::string_view kName = "hpcc";
    static constexpr CcTraits kTraits{
        .acks = true, .ack_every_packet = true, .int_telemetry = true, .window = true};

    explicit HpccControl(const Params& p) : algo_(p) {}
    double on_send(State& s, const CcSend& e) const {
        if (s.w == 0) algo_.start(s, e.line_bps);
        return algo_.rate(s, e.line_bps);
    }
    double window_bytes(const State& s, double /*mtu_bytes*/) const { return s.w; }
    void on_ack(State& s, const CcAck& a) const {
        algo_.on_ack(s, *a.telemetry, a.sequence, a.next_packet, a.line_bps);
    }
    void on_cnp(State&, Time, double) const {}
    Time cnp_interval() const { return Time::zero(); }

    static inline const KeySpec kEta = keys::number_default(
        "network.hpcc_eta", 0.01, 1, 0.95, "HPCC paper", "hpcc: target utilisation");
    static inline const KeySpec kMaxStage =
        keys::integer_default("network.hpcc_max_stage", 0, 1000, 5, "HPCC paper",
                              "hpcc: additive steps before a multiplicative one");
    static inline const KeySpec kBaseRtt = keys::number_default(
        "network.hpcc_base_rtt_us", 1e-3, 1e6, 10, "assumption",
        "hpcc: T, the base round trip; the initial window is one bandwidth-delay product");
    static inline const KeySpec kAi = keys::number_default(
        "network.hpcc_ai_mbps", 0, 1e6, 50, "assumption, as the HPCC authors' simulator",
        "hpcc: W_AI = this rate x T");

    static CongestionControlInfo info() {
        return {kName,
                "window from in-band telemetry: per-hop queue and tx rate in every ACK, target "
                "utilisation eta (Li et al., SIGCOMM 2019; models/congestion/hpcc.hpp)",
                {kEta, kMaxStage, kBaseRtt, kAi}};
    }
    static Params parse(const KeyValues& v) {
        Params p;
        p.eta = v.number(kEta);
        p.max_stage = static_cast<std::uint32_t>(v.integer(kMaxStage));
        p.base_rtt = Time::from_us(v.number(kBaseRtt));
        p.ai_bps = v.number(kAi) * 1e6;
        return p;
    }

  private:
    Hpcc algo_;
};

}  // namespace clustersim
