#pragma once
// Faults as the running network applies them: timed actions on channels and GPUs, and the
// forwarding tables that take over once the fabric has reacted (computed before the run on the
// graph without the dead cables, so nothing is recomputed while packets move). The scenario
// library builds it from `faults:`; a run without faults has no plan and pays nothing for it.
#include <cstdint>
#include <vector>

#include "models/forwarding/forwarding_tables.hpp"
#include "sim/time.hpp"

namespace clustersim {

enum class FaultActionKind : std::uint8_t {
    ChannelDown,   // the channel stops: queued packets are lost, later ones dropped on arrival
    ChannelUp,     // it carries packets again
    ChannelRate,   // its rate becomes `factor` x the configured one
    ChannelDelay,  // `delay` is added to (negative: taken from) its arrival delay
    GpuSlowdown,   // the GPU computes `factor` times slower (0: it stops: a hang)
    GpuHold,       // the GPU's own channels stop sending (factor 1) or resume (0): a hang
    ChannelLoss,   // packets queued for the channel are lost with probability `factor` (0: off)
    Fail,          // the instance fails (a policy said so): the run stops here
    PlaneReroute,  // the library gives plane `target` up (factor 1) or takes it back (0)
    ChannelSink,   // the channel's far end takes packets into memory (a NIC writing to a GPU
                   // that forwards them on): no credit limit, so no credit loop through it
    BondPort,      // a NIC bond gives up (factor 1) or takes back (0) its port `target` (the
                   // NIC's channel into the fabric): the fault's recovery when given up
    Routes,        // the fabric has reacted: `target` indexes FaultPlan::tables; factor 1: this
                   // is the fault's own reroute (its recovery), 0: another moment of it
};

struct FaultAction {
    Time at;
    FaultActionKind kind = FaultActionKind::ChannelDown;
    std::uint32_t fault = 0;   // the `faults[i]` it belongs to
    std::uint32_t target = 0;  // channel, GPU (endpoint) or table
    double factor = 1;
    Time delay;
};

struct FaultPlan {
    std::vector<FaultAction> actions;
    std::vector<ForwardingTables> tables;
    std::uint32_t faults = 0;
    bool drops = false;  // some action loses packets: the run needs reliable connections
};

/// What each fault did, as the network saw it.
struct FaultOutcome {
    std::uint64_t packets_lost = 0;     // queued at, or sent to, a channel it had stopped
    std::uint64_t bytes_rerouted = 0;   // payload its reactions moved off the healthy paths
    Time recovered_at = Time::never();  // the fabric's last reaction to it (tables swapped)
    bool failed_instance = false;       // its Fail action stopped the run
};

}  // namespace clustersim
