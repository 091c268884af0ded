#include "tools/scenario/availability_days.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "sim/random.hpp"

namespace clustersim {
namespace {

struct Failure {
    double start = 0, end = 0;  // hours from the period's start
    std::uint32_t group = 0;
    const std::vector<std::uint32_t>* serves = nullptr;  // the failed member's; null: every one
    std::vector<std::uint8_t> retired;                   // per instance: left behind by its restart
};

bool serves(const Failure& f, std::uint32_t instance) {
    return !f.serves || std::binary_search(f.serves->begin(), f.serves->end(), instance);
}

// One period's failures: each group's arrivals from far enough before the period that a part
// still out at its start is counted, sorted by start. Which member failed is drawn from a stream
// of its own, so that the arrivals are those of a cluster of one instance.
std::vector<Failure> draw_failures(std::span<const ComponentGroup> groups, const DayOptions& o,
                                   std::uint32_t day) {
    // Far enough back that a part still out at the start, or a restart it began still under
    // way, is counted.
    double lead = 0;
    for (const auto& g : groups) lead = std::max(lead, g.repair_hours + o.restart_hours);
    RandomStream rng(o.seed, "availability-day", day);
    RandomStream which(o.seed, "availability-member", day);
    const std::uint32_t instances = std::max<std::uint32_t>(1, o.instances);
    std::vector<Failure> out;
    for (std::uint32_t g = 0; g < groups.size(); ++g) {
        const double rate = static_cast<double>(groups[g].count) * groups[g].per_hour;
        if (rate <= 0) continue;
        const auto& members = groups[g].member_instances;
        for (double t = -lead;;) {
            t += -std::log1p(-rng.uniform()) / rate;  // exponential gaps: a Poisson process
            if (t >= o.hours) break;
            if (groups[g].repair_hours <= 0) continue;  // a part repaired at once is never out
            Failure f{t, t + groups[g].repair_hours, g, nullptr, {}};
            if (!members.empty()) f.serves = &members[which.below(members.size())];
            f.retired.assign(instances, 0);
            out.push_back(std::move(f));
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Failure& a, const Failure& b) { return a.start < b.start; });
    return out;
}

// Per group and instance, the parts serving it: the most a mode can have out.
using Caps = std::vector<std::vector<std::uint32_t>>;
Caps caps_of(std::span<const ComponentGroup> groups, std::uint32_t instances) {
    Caps caps(groups.size(), std::vector<std::uint32_t>(instances, 0));
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (groups[g].member_instances.empty()) {
            std::fill(caps[g].begin(), caps[g].end(),
                      static_cast<std::uint32_t>(std::min<std::uint64_t>(
                          groups[g].count, std::numeric_limits<std::uint32_t>::max())));
            continue;
        }
        for (const auto& m : groups[g].member_instances)
            for (std::uint32_t inst : m)
                if (inst < instances) ++caps[g][inst];
    }
    return caps;
}

// The mode instance `inst` serves in: the parts out that serve it and that no restart of it has
// left behind.
FailureMode mode_of(std::span<const ComponentGroup> groups, const Caps& caps,
                    std::span<const Failure> failures, std::span<const std::uint32_t> active,
                    std::uint32_t inst) {
    FailureMode m(groups.size(), 0);
    for (std::uint32_t i : active) {
        const Failure& f = failures[i];
        if (!f.retired[inst] && serves(f, inst) && m[f.group] < caps[f.group][inst])
            ++m[f.group];  // an instance cannot lose more parts than serve it
    }
    return m;
}

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr std::size_t kRestarting = std::numeric_limits<std::size_t>::max() - 1;
constexpr std::size_t kNoState = std::numeric_limits<std::size_t>::max();

// One instance's course through a period.
struct InstanceState {
    bool restarting = false;
    double restart_at = kNever;
    std::size_t current = 0, cause = 0;      // its mode; cause: of the restart under way
    std::vector<std::uint32_t> restart_set;  // the parts its restart leaves behind
    std::size_t last_state = kNoState;       // for occurrences
};

}  // namespace

std::string ComponentGroup::label() const {
    const std::string_view c = kComponentClassNames[static_cast<std::size_t>(cls)];
    return tier.empty() ? std::string(c) : fmt::format("{} {}", c, tier);
}

std::string mode_label(std::span<const ComponentGroup> groups, const FailureMode& mode) {
    std::string out;
    for (std::size_t g = 0; g < groups.size() && g < mode.size(); ++g)
        if (mode[g] > 0)
            out += fmt::format("{}{} x{}", out.empty() ? "" : " + ", groups[g].label(), mode[g]);
    return out.empty() ? "healthy" : out;
}

std::vector<FailureMode> sampled_modes(std::span<const ComponentGroup> groups,
                                       const DayOptions& o) {
    std::map<FailureMode, std::size_t> seen;
    std::vector<FailureMode> out;
    auto meet = [&](FailureMode m) {
        if (seen.emplace(m, out.size()).second) out.push_back(std::move(m));
    };
    meet(FailureMode(groups.size(), 0));
    const std::uint32_t instances = std::max<std::uint32_t>(1, o.instances);
    const Caps caps = caps_of(groups, instances);
    for (std::uint32_t day = 0; day < o.days; ++day) {
        const std::vector<Failure> f = draw_failures(groups, o, day);
        // The parts out after each start and each end (before the period too: a restart may
        // begin there), and every suffix of them by start: what a restart leaves (the parts
        // that failed after it began). So the count bounds what the walk asks.
        std::vector<double> changes;
        for (const Failure& x : f) {
            changes.push_back(x.start);
            if (x.end < o.hours) changes.push_back(x.end);
        }
        std::sort(changes.begin(), changes.end());
        changes.erase(std::unique(changes.begin(), changes.end()), changes.end());
        for (const double t : changes) {
            for (std::uint32_t inst = 0; inst < instances; ++inst) {
                std::vector<std::uint32_t> active;  // serving inst, in order of start
                for (std::uint32_t i = 0; i < f.size(); ++i)
                    if (f[i].start <= t && f[i].end > t && serves(f[i], inst)) active.push_back(i);
                for (std::size_t from = 0; from < active.size(); ++from)
                    meet(mode_of(groups, caps, f, std::span(active).subspan(from), inst));
            }
        }
    }
    return out;
}

AvailabilityEstimate estimate_availability(std::span<const ComponentGroup> groups,
                                           const DayOptions& o, const ModeThroughput& throughput) {
    AvailabilityEstimate est;
    est.days = o.days;
    est.hours_per_day = o.hours;
    std::map<FailureMode, std::size_t> index;
    auto tally = [&](const FailureMode& m) -> std::size_t {
        if (auto it = index.find(m); it != index.end()) return it->second;
        if (est.modes.size() >= o.max_modes)
            throw TooManyModes(
                fmt::format("the sampled days meet more than {} distinct failure "
                            "modes (the next: {})",
                            o.max_modes, mode_label(groups, m)));
        ModeTally t;
        t.mode = m;
        t.tokens_per_s = throughput(m);
        index.emplace(m, est.modes.size());
        est.modes.push_back(std::move(t));
        return est.modes.size() - 1;
    };
    const std::size_t healthy = tally(FailureMode(groups.size(), 0));
    est.healthy_tokens_per_s = est.modes[healthy].tokens_per_s;
    const double restart_floor = o.restart_below * est.healthy_tokens_per_s;

    const std::uint32_t instances = std::max<std::uint32_t>(1, o.instances);
    const Caps caps = caps_of(groups, instances);
    const double share = 1.0 / instances;  // an instance's hours are this much of the cluster's
    double sum = 0, sum_sq = 0;
    for (std::uint32_t day = 0; day < o.days; ++day) {
        std::vector<Failure> f = draw_failures(groups, o, day);
        std::vector<std::uint32_t> active;
        std::vector<InstanceState> st(instances);
        for (auto& x : st) x.current = x.cause = healthy;
        std::size_t next = 0;
        double t = f.empty() ? 0.0 : std::min(0.0, f.front().start);
        double delivered = 0;  // token-hours per second of rate, per instance
        while (t < o.hours) {
            // Apply everything due at t: repairs, restarts' ends, new failures.
            std::erase_if(active, [&](std::uint32_t i) { return f[i].end <= t; });
            for (std::uint32_t inst = 0; inst < instances; ++inst) {
                InstanceState& x = st[inst];
                if (x.restarting && x.restart_at <= t) {
                    for (std::uint32_t i : x.restart_set) f[i].retired[inst] = 1;
                    x.restart_set.clear();
                    x.restarting = false;
                    x.restart_at = kNever;
                }
            }
            while (next < f.size() && f[next].start <= t)
                active.push_back(static_cast<std::uint32_t>(next++));
            // A restart under way serves nothing whatever else fails: no mode to ask about.
            for (std::uint32_t inst = 0; inst < instances; ++inst) {
                InstanceState& x = st[inst];
                if (x.restarting) continue;
                x.current = tally(mode_of(groups, caps, f, active, inst));
                const double rate = est.modes[x.current].tokens_per_s;
                if (x.current != healthy && (rate <= 0 || rate < restart_floor)) {
                    x.restarting = true;
                    x.cause = x.current;
                    x.restart_at = t + o.restart_hours;
                    x.restart_set.clear();
                    for (std::uint32_t i : active)
                        if (!f[i].retired[inst] && serves(f[i], inst)) x.restart_set.push_back(i);
                    if (t >= 0) {
                        est.restarts += 1;
                        ++est.modes[x.cause].restarts;
                    }
                }
            }
            // Until the next change.
            double until = o.hours;
            for (const InstanceState& x : st) until = std::min(until, x.restart_at);
            if (next < f.size()) until = std::min(until, f[next].start);
            for (std::uint32_t i : active) until = std::min(until, f[i].end);
            const double from = std::max(t, 0.0), to = std::max(until, 0.0);
            if (to > from) {
                const double hours = (to - from) * share;
                for (InstanceState& x : st) {
                    const std::size_t state = x.restarting ? kRestarting : x.current;
                    if (x.restarting) {
                        est.restart_hours += hours;
                        est.modes[x.cause].restart_hours += hours;
                        est.down_hours += hours;
                    } else {
                        const double rate = est.modes[x.current].tokens_per_s;
                        est.modes[x.current].hours += hours;
                        delivered += rate * hours;
                        if (rate <= 0)
                            est.down_hours += hours;
                        else if (x.current != healthy)
                            est.degraded_hours += hours;
                        if (state != x.last_state) ++est.modes[x.current].occurrences;
                    }
                    x.last_state = state;
                }
            }
            t = until;
        }
        const double mean = delivered / o.hours;
        sum += mean;
        sum_sq += mean * mean;
    }
    const double n = o.days;
    est.mean_tokens_per_s = sum / n;
    const double var = n > 1 ? std::max(0.0, (sum_sq - sum * sum / n) / (n - 1)) : 0.0;
    est.se_tokens_per_s = std::sqrt(var / n);
    est.degraded_hours /= n;
    est.down_hours /= n;
    est.restart_hours /= n;
    est.restarts /= n;
    return est;
}

}  // namespace clustersim
