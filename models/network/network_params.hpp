#pragma once
// Run-time parameters of the packet network shared by its parts.
#include <algorithm>
#include <cstdint>

#include "models/congestion/congestion_controls.hpp"
#include "models/routing/routing_policy.hpp"
#include "sim/time.hpp"

namespace clustersim {

enum class FlowControl : std::uint8_t { Credit, Pfc, Lossy };

/// How a receiving NIC treats a packet that arrives past a gap, and so what the sender resends.
enum class Retransmission : std::uint8_t {
    GoBackN,          // drops it and NACKs the gap; the sender resends from there
    SelectiveRepeat,  // places it (out-of-order placement) and NACKs only the missing packet
};

struct NetworkParams {
    std::uint32_t mtu_bytes = 4096;  // payload per packet
    std::uint32_t header_bytes = 0;  // added to every packet on the wire
    FlowControl flow_control = FlowControl::Credit;
    std::uint64_t seed = 1;
    Time extra_latency;               // added to every message's completion (what-if studies)
    std::uint32_t virtual_lanes = 1;  // lane = switch-to-switch hops so far (deadlock freedom)
    RoutingParams routing;            // policy (index into routing_policies()) and its knobs
    // Reliable connections (ACKs, NACKs, retransmission) run when something needs them: a
    // lossy fabric, a go-back-N NIC (which discards reordered packets), or completion at the
    // sender's last ACK. Otherwise no ACK is simulated: on a lossless fabric they carry nothing
    // a run needs (the reverse-path bytes they cost, ~1-2 %, are left out).
    Retransmission retransmission = Retransmission::SelectiveRepeat;
    bool complete_on_ack = false;  // sim.completion: sender-ack (htsim's completion time)
    std::uint32_t ack_every = 8;   // ACK coalescing: one per this many packets (and the last)
    // An RC queue pair's local ACK timeout, 4.096 us x 2^exponent (IBTA; exponent 0: none),
    // and the retries after a timeout before it fails (at most 7): NCCL's and NVSHMEM's 20 and 7.
    std::uint32_t ack_timeout_exponent = 20;
    std::uint32_t retry_count = 7;
    Time ack_timeout() const {
        if (ack_timeout_exponent == 0) return Time::never();
        return Time::from_ps(4'096'000ll << ack_timeout_exponent);
    }
    // ConnectX's adaptive retransmission (RoCE, NVIDIA's ROCE_ACCL register), when not zero:
    // the timer starts at this, doubles on each timeout in a row up to ack_timeout(), returns
    // to it on progress, and the queue pair fails only after ack_timeout() x retry_count
    // without progress (the profile's qp_total_timeout). One timeout range, not randomised per
    // queue pair: a simplification of the firmware's profile.
    Time adaptive_initial_timeout;
    /// The timer a queue pair starts with.
    Time first_timeout() const {
        return adaptive_initial_timeout > Time::zero()
                   ? std::min(adaptive_initial_timeout, longest_timeout())
                   : ack_timeout();
    }
    /// What the adaptive timer grows to: the queue pair's timeout (the IBTA's longest, 4.096 us
    /// x 2^31, when it has none).
    Time longest_timeout() const {
        return ack_timeout_exponent == 0 ? Time::from_ps(4'096'000ll << 31) : ack_timeout();
    }
    /// Adaptive: how long without progress before the queue pair fails (never without a
    /// queue-pair timeout).
    Time adaptive_total_timeout() const {
        if (ack_timeout_exponent == 0) return Time::never();
        return Time::from_ps(ack_timeout().ps() * std::max<std::uint32_t>(1, retry_count));
    }
    // PFC (shared-buffer switches): an ingress pauses its upstream port when it holds more than
    // pfc_alpha x the switch's free shared buffer (dynamic thresholds), resumes two packets
    // below that; each ingress keeps headroom for what arrives while the pause travels.
    double pfc_alpha = 1.0;
    // Congestion control at the sending NIC, and the ECN marking it reacts to (RED on each
    // egress queue: no mark below kmin, probability rising to pmax at kmax, always above).
    // `cc` holds the algorithm's parameters (monostate: none); its traits say what it needs.
    CongestionControlParams cc;
    std::uint64_t ecn_kmin_bytes = 100'000, ecn_kmax_bytes = 400'000;
    double ecn_pmax = 0.2;
    CcTraits cc_traits() const { return CongestionControlList::traits(cc); }
    bool paced() const { return cc.index() != 0; }
    bool ecn() const { return cc_traits().ecn; }
    // Observability: every sample_period (zero: never) each egress port with a queue or a
    // pause is recorded, up to sample_rows rows.
    Time sample_period;
    std::uint64_t sample_rows = 1'000'000;
    bool faults_drop = false;  // a fault loses packets (models/faults/fault_plan.hpp)
    bool reliable() const {
        return flow_control == FlowControl::Lossy || retransmission == Retransmission::GoBackN ||
               complete_on_ack || cc_traits().acks || faults_drop;
    }
};

/// The events of a running network, each handled by one part (see models/network.hpp).
enum NetworkEvent : std::uint32_t {
    kPortWake,         // fabric: a port may transmit (target: channel)
    kLinkArrival,      // fabric: a packet reaches a link's far end (target: its in-flight slot)
    kMessageEligible,  // transport: a message's per-message overhead has passed (target: message)
    kActivate,         // DAG: a task is activated (target: TaskRef::packed())
    kSendDone,         // DAG: a message's last byte has left its sender (target: message)
    kMessageDone,      // DAG: a message is complete after its extra latency (target: message)
    kComputeDone,      // DAG: the running compute task of a GPU ends (target: GPU)
    kRetransmitTimer,  // transport: a message's retransmission timer may expire (target: message)
    kPfcPause,         // fabric: a PFC pause frame reaches the port it stops (target: channel)
    kPfcResume,        // fabric: the resume frame reaches it (target: channel)
    kSample,           // observability: record the ports' queues (target: unused)
    kTierSample,       // observability: link use and queues per tier (models/tier_series.hpp)
    kFault,            // a fault's action takes effect (target: index in FaultPlan::actions)
};

}  // namespace clustersim
