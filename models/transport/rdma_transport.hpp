#pragma once
// The transport: where messages become packets and packets become messages again. Each
// endpoint's sender keeps its active messages and cuts the next packet from the next one in
// turn (round-robin) when its port may send; a message's per-message overhead (doorbell, work
// request) delays its first packet. Each message's receiver counts distinct packets by sequence
// number, so a duplicate (a retransmission) never completes a message twice, and packets may
// arrive out of order. When the run needs reliable connections (NetworkParams::reliable), each
// message is one: the receiver ACKs cumulatively every ack_every packets and NACKs a gap (a
// go-back-N NIC discards what arrives past it, a selective-repeat NIC places it); the sender
// resends from the NACKed packet (go-back-N) or just that packet (selective repeat), and after
// the queue pair's local ACK timeout without progress from its last ACK, giving up after
// retry_count + 1 expiries in a row (the InfiniBand retry count; the work request then fails
// with a retry error). ACKs
// and NACKs are packets: they queue, cross links and can be dropped like data. CNPs and the
// congestion-control window will live here too.
#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "models/dag/workload.hpp"
#include "models/network/network_params.hpp"
#include "models/network/node_layout.hpp"
#include "models/network/port_graph.hpp"
#include "sim/partitioned_pool.hpp"
#include "sim/per_partition.hpp"
#include "sim/random.hpp"
#include "sim/ring_buffer.hpp"

namespace clustersim {

struct MessageState {
    Time started = Time::never();     // eligible to send (start time or trigger)
    Time first_sent = Time::never();  // first byte on the wire
    Time finished = Time::never();    // last byte received
};
// What a message has sent and received so far lives with its sender's turn and its receiver's
// slot while it moves (RdmaTransport::bytes_received); a finished message has moved its bytes.
// When its last byte left the sender is an event for what waits on it (Completion::Sent), not
// kept: nothing reports it.
static_assert(sizeof(MessageState) == 24);

struct TransportCounters {
    std::uint64_t payload_sent = 0;       // message bytes put on the wire by senders
    std::uint64_t payload_delivered = 0;  // message bytes that reached their destination
    std::uint64_t packets_sent = 0;
    std::uint64_t packets_delivered = 0;
    std::uint64_t duplicate_packets = 0;      // received again (retransmissions): not counted twice
    std::uint64_t payload_redundant = 0;      // bytes of duplicates and of discarded packets
    std::uint64_t retransmitted_packets = 0;  // data packets sent again
    std::uint64_t discarded_out_of_order = 0;  // dropped by go-back-N receivers past a gap
    std::uint64_t acks = 0, nacks = 0;         // control packets sent
    std::uint64_t timeouts = 0;                // retransmission timers that expired
    std::uint64_t connections_failed =
        0;  // messages given up after retry_count + 1 timeouts in a row (once each)
    std::uint64_t cnps = 0;  // congestion notifications sent by receivers
};

/// What a data packet's arrival did at its receiver.
struct Delivery {
    bool completes = false;               // the message's last missing packet
    std::uint32_t reply_channel = kNone;  // a channel with a new ACK or NACK to send
};

class RdmaTransport {
  public:
    RdmaTransport(const PortGraph& graph, const Workload& workload, const NetworkParams& params,
                  const NodeLayout* layout);

    /// Whether message m leaves its node (always, for bare NICs).
    bool inter_node(std::uint32_t m) const {
        const Message& spec = workload_.messages[m];
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
    Packet take_packet(std::uint32_t ch, Time now, bool& sent_all);
    bool has_more(std::uint32_t ch) const {
        return !sender_of(ch).active.empty() || !sender_of(ch).control.empty();
    }

    /// A data packet reached its destination endpoint.
    Delivery receive(const Packet& p, Time now = Time::zero());
    /// With congestion control: makes the sender at `ch` point at a message allowed to send
    /// now (true), or says when the first one will be (`at`; never if none is waiting).
    bool select_eligible(std::uint32_t ch, Time now, Time& at);
    /// HPCC: a data packet of message m left a fabric switch's egress at hop index `hop`.
    void record_hop(std::uint32_t m, std::uint32_t hop, const IntHop& h) {
        if (hop >= kMaxIntHops) return;
        IntPath& live = live_[m];
        live.hop[hop] = h;
        live.mask = static_cast<std::uint8_t>(live.mask | (1u << hop));
    }
    /// An ACK or NACK reached the sender: the channel to service (kNone if none); `acked_all`
    /// when it acknowledges the message's last packet for the first time.
    std::uint32_t on_control(const Packet& p, Time now, bool& acked_all);
    /// Whether to start message m's retransmission timer now (none pending).
    bool arm_timer(std::uint32_t m, Time now);
    /// Message m's timer event: the channel to service (kNone if none); `next` is when to look
    /// again (never: the timer stops).
    std::uint32_t on_timer(std::uint32_t m, Time now, Time& next);
    /// Bytes it keeps per message: state, the receiver's slot index, and what reliable
    /// connections and paced (congestion-controlled) senders add (run estimates). Receivers
    /// themselves are held only while their messages arrive (bytes_per_receiver).
    static std::uint64_t bytes_per_message(bool reliable, bool paced) {
        return sizeof(MessageState) + sizeof(std::uint32_t) + (reliable ? sizeof(Outgoing) : 0) +
               (paced ? sizeof(Paced) + sizeof(double) + CongestionControlList::kMaxStateBytes : 0);
    }
    static std::uint64_t bytes_per_receiver() { return sizeof(Receiver) + sizeof(std::uint32_t); }
    /// Receiver slots made so far: the most messages that were arriving at once.
    std::size_t receiver_slots() const { return receivers_.slots(); }
    /// A windowed run's partitions (sim/simulator.hpp): counters and receiver slots apart.
    void set_partitions(std::uint32_t partitions) {
        counters_.resize(partitions);
        receivers_.set_partitions(partitions);
        spill_.set_partitions(partitions);
    }

    MessageState& state(std::uint32_t m) { return state_[m]; }
    /// Distinct payload bytes of message m received so far (all of them once it is whole).
    std::uint64_t bytes_received(std::uint32_t m) const {
        if (state_[m].finished != Time::never()) return workload_.messages[m].bytes;
        const std::uint32_t slot = receiver_of_[m];
        if (slot == kNone) return 0;
        return slot == kReceived ? workload_.messages[m].bytes : receivers_[slot].bytes;
    }
    std::span<const MessageState> messages() const { return state_; }
    /// The messages' states, moved out once the run is over (the result keeps them; no copy
    /// doubles them at the run's peak).
    std::vector<MessageState> take_messages() { return std::move(state_); }
    TransportCounters counters() const { return counters_.sum(); }

  private:
    // A message in its sender's round-robin, with the packets cut from it so far (senders
    // without reliable connections; a reliable one keeps its own in Outgoing).
    struct Turn {
        std::uint32_t message = 0;
        std::uint32_t cut = 0;
    };
    struct Sender {
        std::vector<Turn> active;  // messages with bytes left to segment
        // The message in turn: its index in `active`, or active.size() when the turn is past
        // the last one -- a message that joins then goes next, so service is fair from the
        // first packet (wrapping to 0 only when nothing joined).
        std::size_t next = 0;
        RingBuffer<Packet> control;  // ACKs and NACKs, sent before data
    };
    // Per message, what a reliable sender keeps.
    struct Outgoing {
        std::uint32_t next_packet = 0;   // next sequence to send in order
        std::uint32_t sent_through = 0;  // every sequence below it has been sent at least once
        std::uint32_t acked = 0;         // every sequence below it is acknowledged
        std::uint32_t resend = kNone;    // selective repeat: a missing packet to send first
        std::uint32_t retries = 0;       // timeouts in a row without progress
        Time last_progress;              // or the last timeout: the timer runs from it
        Time progressed;                 // the last ACK progress itself (or the first send)
        Time timeout;                    // the timer's current length
        bool active = false;             // in its sender's round-robin
        bool timer = false;              // a timer event is pending
        bool failed = false;             // past its retries: the queue pair is in its error state
    };
    std::uint32_t sender_channel(std::uint32_t m) const;
    // Per message being received, 32 B: packets past next_expected that arrived early, as a
    // bitmap whose first word is inline (a sprayed message's reordering rarely reaches 64
    // packets) and whose further words, when any, are a spill_ entry (no heap per message);
    // and the distinct payload bytes received. Held in a slot from the message's first packet
    // to its last (receiver_of_), then reused.
    struct Receiver {
        std::uint64_t ahead = 0;          // bit k: packet next_expected + 1 + k has arrived
        std::uint64_t bytes = 0;          // distinct payload bytes received
        std::uint32_t next_expected = 0;  // every packet below it has arrived
        std::uint32_t since_ack = 0;      // packets accepted since the last ACK
        std::uint32_t nacked = kNone;     // the gap last NACKed (once per gap)
        std::uint32_t spill = kNone;      // spill_ entry: bits 64.. of `ahead`, when any
    };
    static_assert(sizeof(Receiver) == 32);
    bool mark_ahead(Receiver& r, std::uint32_t off);  // false: already there
    void advance(Receiver& r);                        // next_expected past what has arrived
    std::uint32_t reply(std::uint32_t m, PacketKind kind, std::uint32_t sequence);
    void reactivate(std::uint32_t m);
    void accept(Receiver& r, const Packet& p);
    Packet take_reliable(Sender& nic, std::uint32_t m, Packet p, Time now, bool& sent_all);
    const Sender& sender_of(std::uint32_t ch) const { return senders_[ch - first_channel_]; }
    Sender& sender_of(std::uint32_t ch) { return senders_[ch - first_channel_]; }
    std::uint32_t packets_of(std::uint32_t m) const;
    // The flow's header fields (src, dst, queue pair) hashed: one flow, one path. Computed per
    // packet, as a NIC does, rather than kept per message.
    std::uint32_t entropy(std::uint32_t m) const {
        const Message& spec = workload_.messages[m];
        return static_cast<std::uint32_t>(
            mix64((static_cast<std::uint64_t>(spec.src) << 32 | spec.dst) ^
                  mix64(workload_.label_of(m))));
    }

    const Workload& workload_;
    NetworkParams params_;
    const NodeLayout* layout_ = nullptr;
    std::uint32_t first_channel_ = 0;  // endpoint channels are the graph's last
    std::vector<Sender> senders_;      // per endpoint channel
    std::vector<Time> issue_free_;     // per endpoint channel: when its issuer is free
    std::vector<std::uint32_t> channel_of_endpoint_;
    std::vector<MessageState> state_;
    // Per message: its receiver's slot, kNone before its first packet, kReceived once whole.
    static constexpr std::uint32_t kReceived = kNone - 1;
    std::vector<std::uint32_t> receiver_of_;
    PartitionedPool<Receiver> receivers_;                // slots, for the messages being received
    PartitionedPool<std::vector<std::uint64_t>> spill_;  // Receiver::spill words, reused
    std::vector<Outgoing> outgoing_;                     // per message (reliable connections only)
    // Congestion control, per message (queue pair): pacing, and the algorithm's own state in
    // the alternative of cc_ that the run chose (CongestionControlList).
    struct Paced {
        Time next_send;                 // the sender may send its next packet from then
        Time last_cnp = Time::never();  // receiver side: the last CNP it sent
    };
    template <class C>
    struct Controlled {
        C control;
        std::vector<typename C::State> state;  // per message
    };
    std::vector<Paced> paced_;  // empty: no congestion control (senders at line rate)
    CongestionControlList::Each<Controlled> cc_;
    CcTraits cc_traits_;
    Time cnp_interval_;
    std::vector<IntPath> live_;  // per message: hop records its packets stamped (INT)
    /// Calls f(algorithm, its per-message states) for the run's algorithm (none: not at all).
    template <class F>
    void visit_control(F&& f) {
        std::visit(
            [&](auto& c) {
                if constexpr (!std::is_same_v<std::decay_t<decltype(c)>, std::monostate>)
                    f(c.control, c.state);
            },
            cc_);
    }
    std::uint32_t ack_every_ = 1;
    std::vector<double> line_bps_;  // per message: its sender channel's rate
    void pace(std::uint32_t m, Packet& p, Time now);
    PerPartition<TransportCounters> counters_;
};

// The per-packet path, inline.

inline std::uint32_t RdmaTransport::packets_of(std::uint32_t m) const {
    const std::uint64_t bytes = workload_.messages[m].bytes;
    return static_cast<std::uint32_t>((bytes + params_.mtu_bytes - 1) / params_.mtu_bytes);
}

inline std::uint32_t RdmaTransport::next_wire_bytes(std::uint32_t ch) const {
    const Sender& s = sender_of(ch);
    if (!s.control.empty()) return params_.header_bytes;
    if (s.active.empty()) return 0;
    const Turn& turn = s.active[s.next < s.active.size() ? s.next : 0];
    const std::uint32_t m = turn.message;
    std::uint64_t offset = std::uint64_t{turn.cut} * params_.mtu_bytes;
    if (!outgoing_.empty()) {
        const Outgoing& o = outgoing_[m];
        offset = std::uint64_t{o.resend != kNone ? o.resend : o.next_packet} * params_.mtu_bytes;
    }
    const std::uint64_t left = workload_.messages[m].bytes - offset;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(left, params_.mtu_bytes)) +
           params_.header_bytes;
}

inline Packet RdmaTransport::take_packet(std::uint32_t ch, Time now, bool& sent_all) {
    Sender& nic = sender_of(ch);
    sent_all = false;
    if (!nic.control.empty()) return nic.control.pop_front();
    if (nic.next >= nic.active.size()) nic.next = 0;
    Turn& turn = nic.active[nic.next];
    const std::uint32_t m = turn.message;
    const Message& spec = workload_.messages[m];
    MessageState& st = state_[m];
    const std::uint64_t offset = std::uint64_t{turn.cut} * params_.mtu_bytes;
    const auto payload =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(spec.bytes - offset, params_.mtu_bytes));
    Packet p;
    p.message = m;
    p.src = spec.src;
    p.dst = spec.dst;
    p.payload_bytes = payload;
    p.entropy = entropy(m);
    p.sequence = turn.cut;
    if (workload_.sent_via_nic(m)) p.flags |= Packet::kViaNic;
    if (!outgoing_.empty()) {
        p = take_reliable(nic, m, p, now, sent_all);
        if (!paced_.empty()) pace(m, p, now);
        return p;
    }
    if (!paced_.empty()) pace(m, p, now);
    if (turn.cut == 0) st.first_sent = now;
    ++turn.cut;
    TransportCounters& counters = counters_.here();
    counters.payload_sent += payload;
    ++counters.packets_sent;
    sent_all = offset + payload == spec.bytes;
    if (sent_all) {
        // The following message moves into this index: it is next in turn.
        nic.active.erase(nic.active.begin() + static_cast<std::ptrdiff_t>(nic.next));
    } else {
        ++nic.next;  // the next message in turn
    }
    return p;
}

}  // namespace clustersim
