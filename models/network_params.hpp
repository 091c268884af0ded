#pragma once
// Run-time parameters of the packet network shared by its parts.
#include <cstdint>

#include "models/routing_policy.hpp"
#include "sim/time.hpp"

namespace clustersim {

enum class FlowControl : std::uint8_t { Credit, Lossy };

struct NetworkParams {
    std::uint32_t mtu_bytes = 4096;  // payload per packet
    std::uint32_t header_bytes = 0;  // added to every packet on the wire
    FlowControl flow_control = FlowControl::Credit;
    std::uint64_t seed = 1;
    Time extra_latency;               // added to every message's completion (what-if studies)
    std::uint32_t virtual_lanes = 1;  // lane = switch-to-switch hops so far (deadlock freedom)
    RoutingParams routing;            // policy (index into routing_policies()) and its knobs
};

/// The events of a running network, each handled by one part (see models/network.hpp).
enum NetworkEvent : std::uint32_t {
    kPortWake,         // fabric: a port may transmit (target: channel)
    kLinkArrival,      // fabric: the head packet of a link arrives (target: channel)
    kMessageEligible,  // transport: a message's per-message overhead has passed (target: message)
    kActivate,         // DAG: a task is activated (target: TaskRef::packed())
    kSendDone,         // DAG: a message's last byte has left its sender (target: message)
    kMessageDone,      // DAG: a message is complete after its extra latency (target: message)
    kComputeDone,      // DAG: the running compute task of a GPU ends (target: GPU)
};

}  // namespace clustersim
