#pragma once
// The transport: where messages become packets and packets become messages again. Each
// endpoint's sender keeps its active messages and cuts the next packet from the next one in
// turn (round-robin) when its port may send; a message's per-message overhead (doorbell, work
// request) delays its first packet. Each message's receiver counts distinct packets by sequence
// number, so a duplicate (a retransmission) never completes a message twice, and packets may
// arrive out of order. ACKs, NACKs, CNPs, retransmission timers and the congestion-control
// window will live here too, per connection.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "models/network_params.hpp"
#include "models/node_layout.hpp"
#include "models/port_graph.hpp"
#include "models/workload.hpp"

namespace clustersim {

struct MessageState {
    Time started = Time::never();     // eligible to send (start time or trigger)
    Time first_sent = Time::never();  // first byte on the wire
    Time last_sent = Time::never();   // last byte off the sender
    Time finished = Time::never();    // last byte received
    std::uint64_t bytes_segmented = 0;
    std::uint64_t bytes_received = 0;  // distinct payload bytes received
};

struct TransportCounters {
    std::uint64_t payload_sent = 0;       // message bytes put on the wire by senders
    std::uint64_t payload_delivered = 0;  // message bytes that reached their destination
    std::uint64_t packets_sent = 0;
    std::uint64_t packets_delivered = 0;
    std::uint64_t duplicate_packets = 0;  // received again (retransmissions): not counted twice
};

class RdmaTransport {
  public:
    RdmaTransport(const PortGraph& graph, const Workload& workload, const NetworkParams& params,
                  const NodeLayout* layout);

    /// Whether message m leaves its node (always, for bare NICs).
    bool inter_node(std::uint32_t m) const {
        const MessageSpec& spec = workload_.messages[m];
        return !layout_ || layout_->node_of_gpu(spec.src) != layout_->node_of_gpu(spec.dst);
    }
    /// When message m, started now, may send its first packet: after its sender has issued it
    /// (issue costs are serial per sender, so many small messages cost more than one large one)
    /// and the rest of its per-message overhead (pipelined with other messages) has passed.
    Time eligible_at(std::uint32_t m, Time now);
    /// Message m may send: joins its sender's round-robin. Returns the sender's channel.
    std::uint32_t enqueue(std::uint32_t m);
    /// Wire bytes of the packet the sender at `ch` would send next (0: nothing to send).
    std::uint32_t next_wire_bytes(std::uint32_t ch) const;
    /// Cuts that packet; `sent_all` tells whether it carries its message's last byte.
    Packet take_packet(std::uint32_t ch, Time now, Time tx_end, bool& sent_all);
    bool has_more(std::uint32_t ch) const { return !sender_of(ch).active.empty(); }

    /// A packet reached its destination endpoint: true when it completes its message.
    bool receive(const Packet& p);

    MessageState& state(std::uint32_t m) { return state_[m]; }
    std::span<const MessageState> messages() const { return state_; }
    const TransportCounters& counters() const { return counters_; }

  private:
    struct Sender {
        std::vector<std::uint32_t> active;  // messages with bytes left to segment
        // The message in turn: its index in `active`, or active.size() when the turn is past
        // the last one -- a message that joins then goes next, so service is fair from the
        // first packet (wrapping to 0 only when nothing joined).
        std::size_t next = 0;
    };
    std::uint32_t sender_channel(std::uint32_t m) const;
    struct Receiver {
        std::uint32_t next_expected = 0;   // every packet below it has arrived
        std::vector<std::uint64_t> ahead;  // bitmap of packets past next_expected, when any
    };
    const Sender& sender_of(std::uint32_t ch) const { return senders_[ch - first_channel_]; }
    Sender& sender_of(std::uint32_t ch) { return senders_[ch - first_channel_]; }
    std::uint32_t packets_of(std::uint32_t m) const;

    const PortGraph& graph_;
    const Workload& workload_;
    NetworkParams params_;
    const NodeLayout* layout_ = nullptr;
    std::uint32_t first_channel_ = 0;  // endpoint channels are the graph's last
    std::vector<Sender> senders_;      // per endpoint channel
    std::vector<Time> issue_free_;     // per endpoint channel: when its issuer is free
    std::vector<std::uint32_t> channel_of_endpoint_;
    std::vector<std::uint32_t> entropy_;  // per message
    std::vector<MessageState> state_;
    std::vector<Receiver> receivers_;  // per message
    TransportCounters counters_;
};

// The per-packet path, inline.

inline std::uint32_t RdmaTransport::packets_of(std::uint32_t m) const {
    const std::uint64_t bytes = workload_.messages[m].bytes;
    return static_cast<std::uint32_t>((bytes + params_.mtu_bytes - 1) / params_.mtu_bytes);
}

inline std::uint32_t RdmaTransport::next_wire_bytes(std::uint32_t ch) const {
    const Sender& s = sender_of(ch);
    if (s.active.empty()) return 0;
    const std::uint32_t m = s.active[s.next < s.active.size() ? s.next : 0];
    const std::uint64_t left = workload_.messages[m].bytes - state_[m].bytes_segmented;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(left, params_.mtu_bytes)) +
           params_.header_bytes;
}

inline Packet RdmaTransport::take_packet(std::uint32_t ch, Time now, Time tx_end, bool& sent_all) {
    Sender& nic = sender_of(ch);
    if (nic.next >= nic.active.size()) nic.next = 0;
    const std::uint32_t m = nic.active[nic.next];
    const MessageSpec& spec = workload_.messages[m];
    MessageState& st = state_[m];
    const auto payload = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(spec.bytes - st.bytes_segmented, params_.mtu_bytes));
    Packet p;
    p.message = m;
    p.src = spec.src;
    p.dst = spec.dst;
    p.payload_bytes = payload;
    p.entropy = entropy_[m];
    p.sequence = static_cast<std::uint32_t>(st.bytes_segmented / params_.mtu_bytes);
    if (st.bytes_segmented == 0) st.first_sent = now;
    st.bytes_segmented += payload;
    counters_.payload_sent += payload;
    ++counters_.packets_sent;
    sent_all = st.bytes_segmented == spec.bytes;
    if (sent_all) {
        st.last_sent = tx_end;
        // The following message moves into this index: it is next in turn.
        nic.active.erase(nic.active.begin() + static_cast<std::ptrdiff_t>(nic.next));
    } else {
        ++nic.next;  // the next message in turn
    }
    return p;
}

}  // namespace clustersim
