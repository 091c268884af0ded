#pragma once
// DCQCN, the rate-based congestion control of RoCE NICs (Zhu et al., "Congestion Control for
// Large-Scale RDMA Deployments", SIGCOMM 2015, section 3), as ConnectX firmware runs it.
// Switches mark ECN past a RED threshold; the receiving NIC sends at most one CNP per queue
// pair per cnp_interval; the sending NIC (reaction point) cuts its current rate Rc by
// alpha / 2 (at most once per reduce_period, by at most max_cut) and alpha tracks how often
// CNPs come (alpha = (1 - g) alpha + g on a CNP, (1 - g) alpha every alpha_period). The rate
// recovers on a timer and a byte counter: F steps of fast recovery (Rc = (Rt + Rc) / 2), then
// additive increase (Rt += R_AI) once either counter has passed F, hyper increase
// (Rt += i R_HAI) once both have. The target Rt is set to Rc on a CNP only when the timer has
// raised the rate since the last cut (firmware's clamp_tgt_rate = 0,
// clamp_tgt_rate_after_time_inc = 1): set on every CNP, as the paper's pseudo-code does, Rt
// collapses with Rc under repeated CNPs and recovery takes milliseconds at 400 Gb/s.
// Defaults are NVIDIA's firmware defaults (DCQCN CC Parameters, NVIDIA DOCA and MLNX_OFED
// documentation): dce_tcp_g 1019/1024, dce_tcp_rtt 1 us, initial_alpha_value 1023/1024,
// rate_reduce_monitor_period 4 us, rpg_min_dec_fac 50 %, rpg_min_rate 1 Mb/s,
// rpg_time_reset 300 us, rpg_byte_reset 32767 B, rpg_threshold 1, rpg_ai_rate 5 Mb/s,
// rpg_hai_rate 50 Mb/s, min_time_between_cnps 4 us. Timers are applied lazily when the rate is
// next needed, which is what periodic timers would have done by then.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "models/congestion/congestion_control.hpp"
#include "sim/time.hpp"

namespace clustersim {

struct DcqcnParams {
    double g = 5.0 / 1024;                      // alpha gain: 1 - dce_tcp_g / 1024
    Time alpha_period = Time::from_us(1);       // dce_tcp_rtt
    double initial_alpha = 1023.0 / 1024;       // initial_alpha_value
    Time reduce_period = Time::from_us(4);      // rate_reduce_monitor_period
    double max_cut = 0.5;                       // rpg_min_dec_fac: Rc never below half per cut
    Time increase_period = Time::from_us(300);  // rpg_time_reset
    std::uint64_t byte_counter = 32767;         // rpg_byte_reset
    std::uint32_t fast_recovery_steps = 1;      // rpg_threshold (F)
    double ai_bps = 5e6;                        // rpg_ai_rate
    double hai_bps = 50e6;                      // rpg_hai_rate
    double min_bps = 1e6;                       // rpg_min_rate
    Time cnp_interval = Time::from_us(4);       // min_time_between_cnps, per queue pair
    bool clamp_target = false;  // clamp_tgt_rate: Rt = Rc on every CNP (the paper's pseudo-code)

    /// The SIGCOMM 2015 paper's parameters (40G era).
    static DcqcnParams paper() {
        DcqcnParams p;
        p.g = 1.0 / 256;
        p.alpha_period = Time::from_us(55);
        p.initial_alpha = 1.0;
        p.reduce_period = Time::zero();
        p.max_cut = 0.0;
        p.increase_period = Time::from_us(55);
        p.byte_counter = 10'000'000;
        p.fast_recovery_steps = 5;
        p.ai_bps = 40e6;
        p.hai_bps = 400e6;  // assumption: 10 x R_AI
        p.min_bps = 10e6;   // assumption
        p.cnp_interval = Time::from_us(50);
        p.clamp_target = true;
        return p;
    }
};

struct DcqcnState {
    double rc_bps = 0, rt_bps = 0;  // current and target rate (0: not yet started)
    double alpha = 1.0;
    Time last_alpha, last_tick;  // when the alpha and increase timers last fired
    Time last_cut = Time::never();
    std::uint64_t bytes_since_step = 0;
    std::uint32_t timer_steps = 0, byte_steps = 0;
    bool cut = false;           // below line rate since a CNP: the increase timers run
    bool timer_raised = false;  // the timer has raised the rate since the last cut
};

/// The algorithm, over per-queue-pair state; `line_bps` is the sender's line rate.
class Dcqcn {
  public:
    explicit Dcqcn(const DcqcnParams& p) : p_(p) {}

    /// The rate to pace the next packet at, after the timers that have expired by `now`.
    double rate(DcqcnState& s, Time now, double line_bps) const {
        if (s.rc_bps == 0) start(s, now, line_bps);
        const std::int64_t alpha_n = (now - s.last_alpha).ps() / p_.alpha_period.ps();
        if (alpha_n > 0) {
            s.alpha *= std::pow(1.0 - p_.g, static_cast<double>(alpha_n));
            s.last_alpha = s.last_alpha + Time::from_ps(alpha_n * p_.alpha_period.ps());
        }
        if (!s.cut) return s.rc_bps;
        std::int64_t ticks = (now - s.last_tick).ps() / p_.increase_period.ps();
        s.last_tick = s.last_tick + Time::from_ps(ticks * p_.increase_period.ps());
        for (; ticks > 0 && s.cut; --ticks) {
            ++s.timer_steps;
            s.timer_raised = true;
            increase(s, line_bps);
        }
        return s.rc_bps;
    }
    /// Bytes sent at the current rate: the byte counter's increase steps.
    void sent(DcqcnState& s, std::uint64_t bytes, double line_bps) const {
        if (!s.cut) return;
        s.bytes_since_step += bytes;
        while (s.bytes_since_step >= p_.byte_counter && s.cut) {
            s.bytes_since_step -= p_.byte_counter;
            ++s.byte_steps;
            increase(s, line_bps);
        }
    }
    /// A CNP reached the sender.
    void on_cnp(DcqcnState& s, Time now, double line_bps) const {
        (void)rate(s, now, line_bps);  // timers up to now first
        s.alpha = (1.0 - p_.g) * s.alpha + p_.g;
        if (s.last_cut != Time::never() && now - s.last_cut < p_.reduce_period) return;
        if (!s.cut || s.timer_raised || p_.clamp_target) s.rt_bps = s.rc_bps;
        s.last_cut = now;
        s.rc_bps = std::max({p_.min_bps, s.rc_bps * (1.0 - s.alpha / 2), s.rc_bps * p_.max_cut});
        s.timer_steps = s.byte_steps = 0;
        s.bytes_since_step = 0;
        s.last_tick = now;
        s.cut = true;
        s.timer_raised = false;
    }
    const DcqcnParams& params() const { return p_; }

  private:
    void start(DcqcnState& s, Time now, double line_bps) const {
        s.rc_bps = s.rt_bps = line_bps;
        s.alpha = p_.initial_alpha;
        s.last_alpha = s.last_tick = now;
    }
    void increase(DcqcnState& s, double line_bps) const {
        const std::uint32_t f = p_.fast_recovery_steps;
        const std::uint32_t hi = std::max(s.timer_steps, s.byte_steps);
        const std::uint32_t lo = std::min(s.timer_steps, s.byte_steps);
        if (lo > f)
            s.rt_bps += static_cast<double>(lo - f) * p_.hai_bps;  // hyper increase
        else if (hi > f)
            s.rt_bps += p_.ai_bps;  // additive increase
        // (fast recovery: the target stays)
        s.rt_bps = std::min(s.rt_bps, line_bps);
        s.rc_bps = std::min(line_bps, (s.rt_bps + s.rc_bps) / 2);
        if (s.rc_bps >= line_bps * 0.9999) {  // back at line rate: the increase timers stop
            s.rc_bps = s.rt_bps = line_bps;
            s.cut = false;
        }
    }

    DcqcnParams p_;
};

/// DCQCN as the transport runs it (CongestionControlAlgorithm), with its row and keys.
class DcqcnControl {
  public:
    using Params = DcqcnParams;
    using State = DcqcnState;
    static constexpr std::string_view kName = "dcqcn";
    static constexpr CcTraits kTraits{.ecn = true};

    explicit DcqcnControl(const Params& p) : algo_(p) {}
    double on_send(State& s, const CcSend& e) const {
        const double bps = algo_.rate(s, e.now, e.line_bps);
        algo_.sent(s, e.wire_bytes, e.line_bps);
        return bps;
    }
    double window_bytes(const State&, double /*mtu_bytes*/) const { return 0; }
    void on_ack(State&, const CcAck&) const {}
    void on_cnp(State& s, Time now, double line_bps) const { algo_.on_cnp(s, now, line_bps); }
    Time cnp_interval() const { return algo_.params().cnp_interval; }

    static inline const KeySpec kAi =
        keys::number_default("network.dcqcn_ai_mbps", 0, 1e6, 5, "ConnectX rpg_ai_rate",
                             "dcqcn: additive increase of the target rate per step");
    static inline const KeySpec kHai =
        keys::number_default("network.dcqcn_hai_mbps", 0, 1e6, 50, "ConnectX rpg_hai_rate",
                             "dcqcn: hyper increase per step");
    static inline const KeySpec kTimer =
        keys::number_default("network.dcqcn_timer_us", 1e-3, 1e6, 300, "ConnectX rpg_time_reset",
                             "dcqcn: rate-increase timer");
    static inline const KeySpec kByteCounter = keys::integer_default(
        "network.dcqcn_byte_counter_bytes", 1, 1e12, 32767, "ConnectX rpg_byte_reset",
        "dcqcn: bytes sent per rate-increase step");
    static inline const KeySpec kG =
        keys::number_default("network.dcqcn_g", 1e-6, 1, 5.0 / 1024, "5/1024, ConnectX dce_tcp_g",
                             "dcqcn: alpha's gain");
    static inline const KeySpec kCnpInterval = keys::number_default(
        "network.dcqcn_cnp_interval_us", 0, 1e6, 4, "ConnectX min_time_between_cnps",
        "dcqcn: a receiver sends at most one CNP per queue pair per interval");

    static CongestionControlInfo info() {
        return {kName,
                "RoCE's rate control: ECN marks at switch queues, CNPs from the receiver, rate cut "
                "by alpha / 2 and timer/byte-counter recovery (Zhu et al., SIGCOMM 2015; "
                "models/congestion/dcqcn.hpp)",
                {kAi, kHai, kTimer, kByteCounter, kG, kCnpInterval}};
    }
    static Params parse(const KeyValues& v) {
        Params p;
        p.ai_bps = v.number(kAi) * 1e6;
        p.hai_bps = v.number(kHai) * 1e6;
        p.increase_period = Time::from_us(v.number(kTimer));
        p.byte_counter = v.integer(kByteCounter);
        p.g = v.number(kG);
        p.cnp_interval = Time::from_us(v.number(kCnpInterval));
        return p;
    }

  private:
    Dcqcn algo_;
};

}  // namespace clustersim
