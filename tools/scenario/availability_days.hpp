#pragma once
// Days of component failures, sampled: each group of like components fails as a Poisson process
// (its count x its rate) and each failed part is out for its repair time. A cluster runs one or
// more alike instances (EP groups); a part out degrades or stops the instances it serves, and an
// instance a failure stops (or slows below a share of healthy) restarts on spare nodes on its own,
// serving nothing for the restart, and leaves behind every part out in its mode when it began.
// What an instance delivers in each failure mode comes from the caller (a packet-level run per
// distinct mode); this file mixes them over the sampled days and instances into an expected
// throughput with its standard error.
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/hardware/failure_rates.hpp"

namespace clustersim {

/// Components of one class (and, for cables and switches, one tier) that the fabric's symmetry
/// makes alike: a mode counts how many of them are out, not which.
struct ComponentGroup {
    ComponentClass cls = ComponentClass::Cable;
    std::string tier;  // `leaf-spine`, `spine`; empty for NICs, GPUs and nodes
    std::uint64_t count = 0;
    double per_hour = 0;  // failures per component per hour
    double repair_hours = 0;
    // Per member, the instances it serves, sorted (a GPU its own EP group's, a spine cable every
    // one's; none: an idle part). Empty: every member serves every instance.
    std::vector<std::vector<std::uint32_t>> member_instances;
    std::string label() const;  // `cable leaf-spine`, `gpu`
};

/// Parts out per group that one instance's serving sees, in the groups' order (all zero: healthy).
using FailureMode = std::vector<std::uint32_t>;
/// `cable leaf-spine x2 + gpu x1`, or `healthy`.
std::string mode_label(std::span<const ComponentGroup> groups, const FailureMode& mode);

struct DayOptions {
    double hours = 24;  // one sampled period
    std::uint32_t days = 1000;
    double restart_hours = 1.0 / 3.0;
    double restart_below = 0;  // restart when throughput < this share of healthy (0: only stops)
    std::uint32_t max_modes = 64;  // distinct modes simulated at most
    std::uint32_t instances = 1;   // alike instances, each restarted on its own
    std::uint64_t seed = 1;
};

// Hours are instance-hours over the instances: a cluster's equivalent hours (one instance of
// eight stopped for an hour is an eighth of an hour down).
struct ModeTally {
    FailureMode mode;
    double tokens_per_s = 0;
    double hours = 0;               // served in it, over every sampled day
    std::uint64_t occurrences = 0;  // stretches an instance served in it, over every day
    std::uint64_t restarts = 0;     // instance restarts it caused (an entry served for no time)
    double restart_hours = 0;       // those restarts' time (serving nothing)
};

struct AvailabilityEstimate {
    std::uint32_t days = 0;
    double hours_per_day = 0;
    double healthy_tokens_per_s = 0;
    double mean_tokens_per_s = 0;  // delivered, averaged over the period and the days
    double se_tokens_per_s = 0;    // standard error of that mean over the days
    double degraded_hours = 0;     // per day: some part out, serving at a reduced rate
    double down_hours = 0;         // per day: serving nothing (stopped, or restarting)
    double restart_hours = 0;      // per day, of down_hours: restarting on spares
    double restarts = 0;           // per day, of any instance
    std::vector<ModeTally> modes;  // in the order first met (the healthy mode first)
};

/// Asked once per distinct mode, healthy first: the tokens/s an instance serves with those parts
/// out (0: the instance stops).
using ModeThroughput = std::function<double(const FailureMode&)>;

/// The distinct modes the sampled days meet, with every remainder a restart can leave: what a run
/// will simulate at most, before it spends.
std::vector<FailureMode> sampled_modes(std::span<const ComponentGroup> groups, const DayOptions& o);

/// Thrown when the days meet more than max_modes distinct modes.
struct TooManyModes : std::runtime_error {
    using std::runtime_error::runtime_error;
};

AvailabilityEstimate estimate_availability(std::span<const ComponentGroup> groups,
                                           const DayOptions& o, const ModeThroughput& throughput);

}  // namespace clustersim
