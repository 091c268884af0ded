#pragma once
// DCQCN, the rate-based congestion control of RoCE NICs (Zhu et al., "Congestion Control for
// Large-Scale RDMA Deployments", SIGCOMM 2015, section 3 and Fig. 6-7). Switches mark ECN past
// a RED threshold; the receiving NIC sends at most one CNP per queue pair per cnp_interval;
// the sending NIC (reaction point) then cuts its current rate Rc by alpha / 2 and remembers the
// old one as its target Rt; alpha tracks how often CNPs come (alpha = (1 - g) alpha + g on a
// CNP, (1 - g) alpha every alpha_period without one). The rate recovers on a timer and a byte
// counter: F steps of fast recovery (Rc = (Rt + Rc) / 2), then additive increase (Rt += R_AI)
// once either has passed F, hyper increase (Rt += i R_HAI) once both have. Timers are applied
// lazily when the rate is next needed, which is what periodic timers would have done by then.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/time.hpp"

namespace clustersim {

struct DcqcnParams {
    double g = 1.0 / 256;                      // alpha gain (paper)
    Time alpha_period = Time::from_us(55);     // K (paper)
    Time increase_period = Time::from_us(55);  // T, the rate-increase timer (paper)
    std::uint64_t byte_counter = 10'000'000;   // B, bytes per increase step (paper: 10 MB)
    std::uint32_t fast_recovery_steps = 5;     // F (paper)
    double ai_bps = 40e6;                      // R_AI (paper, at 40 Gb/s)
    double hai_bps = 400e6;                    // R_HAI (assumption: 10 x R_AI)
    double min_bps = 10e6;                     // floor of Rc (assumption)
    Time cnp_interval = Time::from_us(50);     // N, per queue pair at the receiver (paper)
};

struct DcqcnState {
    double rc_bps = 0, rt_bps = 0;  // current and target rate (0: not yet started)
    double alpha = 1.0;             // the paper's initial value
    Time last_alpha, last_tick;     // when the alpha and increase timers last fired
    std::uint64_t bytes_since_step = 0;
    std::uint32_t timer_steps = 0, byte_steps = 0;
    bool cut = false;  // rate below line since a CNP: the increase timers run
};

/// The algorithm, over per-queue-pair state; `line_bps` is the sender's line rate.
class Dcqcn {
  public:
    explicit Dcqcn(const DcqcnParams& p) : p_(p) {}

    /// The rate to pace the next packet at, after the timers that have expired by `now`.
    double rate(DcqcnState& s, Time now, double line_bps) const {
        if (s.rc_bps == 0) start(s, now, line_bps);
        if (!s.cut) return s.rc_bps;
        const std::int64_t alpha_n = (now - s.last_alpha).ps() / p_.alpha_period.ps();
        if (alpha_n > 0) {
            s.alpha *= std::pow(1.0 - p_.g, static_cast<double>(alpha_n));
            s.last_alpha = s.last_alpha + Time::from_ps(alpha_n * p_.alpha_period.ps());
        }
        std::int64_t ticks = (now - s.last_tick).ps() / p_.increase_period.ps();
        s.last_tick = s.last_tick + Time::from_ps(ticks * p_.increase_period.ps());
        for (; ticks > 0 && s.cut; --ticks) {
            ++s.timer_steps;
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
        s.rt_bps = s.rc_bps;
        s.rc_bps = std::max(p_.min_bps, s.rc_bps * (1.0 - s.alpha / 2));
        s.alpha = (1.0 - p_.g) * s.alpha + p_.g;
        s.timer_steps = s.byte_steps = 0;
        s.bytes_since_step = 0;
        s.last_tick = s.last_alpha = now;
        s.cut = true;
    }
    const DcqcnParams& params() const { return p_; }

  private:
    static void start(DcqcnState& s, Time now, double line_bps) {
        s.rc_bps = s.rt_bps = line_bps;
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
        if (s.rc_bps >= line_bps * 0.9999) {  // back at line rate: the timers stop
            s.rc_bps = s.rt_bps = line_bps;
            s.cut = false;
        }
    }

    DcqcnParams p_;
};

}  // namespace clustersim
