#pragma once
// The packet-level fabric at run time: NICs that segment and pace messages, links, switch
// egress ports with lossless credits or tail drop, ECMP forwarding. One event handler, a
// switch over event kinds: no virtual dispatch and no allocation per packet in steady state.
#include <cstdint>
#include <span>
#include <vector>

#include "models/egress_port.hpp"
#include "models/forwarding_tables.hpp"
#include "models/link.hpp"
#include "models/node_layout.hpp"
#include "models/port_graph.hpp"
#include "models/workload.hpp"
#include "sim/signal.hpp"
#include "sim/simulator.hpp"

namespace clustersim {

enum class FlowControl : std::uint8_t { Credit, Lossy };

struct NetworkParams {
    std::uint32_t mtu_bytes = 4096;  // payload per packet
    std::uint32_t header_bytes = 0;  // added to every packet on the wire
    FlowControl flow_control = FlowControl::Credit;
    std::uint64_t seed = 1;
    Time extra_latency;               // added to every message's completion (what-if studies)
    std::uint32_t virtual_lanes = 1;  // lane = switch-to-switch hops so far (deadlock freedom)
};

struct MessageState {
    Time started = Time::never();     // eligible to send (start time or trigger)
    Time first_sent = Time::never();  // first byte on the wire
    Time last_sent = Time::never();   // last byte off the sender
    Time finished = Time::never();    // last byte received
    std::uint64_t bytes_segmented = 0;
    std::uint64_t bytes_received = 0;
};

struct NetworkCounters {
    std::uint64_t payload_sent = 0;       // message bytes put on the wire by senders
    std::uint64_t payload_delivered = 0;  // message bytes that reached their destination
    std::uint64_t payload_dropped = 0;
    std::uint64_t packets_sent = 0;
    std::uint64_t packets_dropped = 0;
    std::uint64_t packet_hops = 0;  // packets crossing one link
    std::uint64_t messages_finished = 0;
};

class Network {
  public:
    enum EventKind : std::uint32_t {
        kPortWake,
        kLinkArrival,
        kMessageStart,
        kMessageDone,
        kSendDone,
        kMessageEligible
    };

    /// `layout` (may be null: bare NICs) says how GPUs, hubs, scale-up switches and NICs sit in
    /// nodes; `routes` covers the fabric switches, which come first in `graph`.
    Network(Simulator& sim, const PortGraph& graph, const ForwardingTables& routes,
            const Workload& workload, const NetworkParams& params,
            const NodeLayout* layout = nullptr);

    /// Schedules every message that has a start time.
    void start();
    void handle(const Event& e);

    bool all_finished() const { return counters_.messages_finished == workload_.messages.size(); }
    const NetworkCounters& counters() const { return counters_; }
    std::span<const MessageState> messages() const { return state_; }
    std::span<const Link> links() const { return links_; }
    std::span<const EgressPort> ports() const { return ports_; }
    const PortGraph& graph() const { return graph_; }
    std::size_t packets_in_flight() const { return packets_live_; }
    std::size_t peak_packets() const { return packets_peak_; }

    Signal<std::uint32_t> message_finished;               // message index
    Signal<std::uint32_t, std::uint32_t> packet_dropped;  // channel, message index

  private:
    struct Nic {
        std::uint32_t channel = kNone;      // its (first) egress channel
        std::vector<std::uint32_t> active;  // messages with bytes left to segment
        std::size_t next = 0;               // round-robin position in `active`
    };
    struct TriggerState {
        std::uint32_t remaining = 0;
        std::uint32_t next_target = 0;
        bool fired = false;
    };

    void service_port(std::uint32_t ch);
    void arm(std::uint32_t ch, Time at);
    void on_link_arrival(std::uint32_t ch);
    void switch_receive(std::uint32_t sw, Packet& p);
    void endpoint_receive(const Packet& p);
    std::uint32_t route(std::uint32_t sw, const Packet& p);
    std::uint32_t fabric_route(std::uint32_t sw, const Packet& p) const;
    void index_switches();
    void make_eligible(std::uint32_t m);
    std::uint32_t nic_next_wire_bytes(const Nic& nic) const;
    /// What a packet occupies on links and in buffers: its payload plus the per-packet header.
    std::uint32_t wire_bytes(const Packet& p) const {
        return p.payload_bytes + params_.header_bytes;
    }
    Packet nic_make_packet(Nic& nic, Time tx_end);
    void start_message(std::uint32_t m);
    void finish_message(std::uint32_t m);
    void activate(std::uint32_t trigger);
    bool is_endpoint_channel(std::uint32_t ch) const { return ch >= first_endpoint_channel_; }

    Simulator& sim_;
    const PortGraph& graph_;
    const ForwardingTables& routes_;
    const Workload& workload_;
    NetworkParams params_;

    std::size_t packets_live_ = 0, packets_peak_ = 0;
    std::vector<Link> links_;        // indexed by channel
    std::vector<EgressPort> ports_;  // indexed by channel
    std::vector<Nic> nics_;          // indexed by endpoint
    struct FabricSwitch {
        std::uint64_t salt = 0;           // per-switch ECMP hash salt
        std::uint32_t component = kNone;  // its plane (connected fabric), kNone off-fabric
    };
    std::vector<FabricSwitch> fabric_switches_;
    struct Attachment {
        std::uint32_t fabric_switch = kNone;  // the fabric switch a destination's NIC port is on
        std::uint32_t down_channel = kNone;   // that switch's channel to the port
        std::uint32_t component = kNone;      // the plane (connected fabric) it belongs to
        std::uint32_t edge = kNone;           // its index in the forwarding tables
    };
    struct NicPorts {
        std::uint32_t first_network = kNone, network_count = 0;
        std::uint32_t first_hub = kNone, first_gpu = 0;  // channels to the GPUs it serves
    };
    const NodeLayout* layout_ = nullptr;
    std::vector<Attachment> attachments_;  // per destination endpoint, in attach_first_ ranges
    std::vector<std::uint32_t> attach_first_;
    bool single_attachment_ = false;        // attachments_[e] is endpoint e's one attachment
    std::vector<std::uint32_t> hub_gpu_;    // per switch: the GPU of a hub
    std::vector<NicPorts> nic_ports_;       // per switch (NIC switches only)
    std::vector<std::uint32_t> nic_spray_;  // per NIC switch: next network port
    std::vector<MessageState> state_;
    std::vector<TriggerState> triggers_;
    std::vector<std::uint32_t> entropy_;  // per message
    std::uint32_t first_endpoint_channel_ = 0;
    NetworkCounters counters_;
};

}  // namespace clustersim
