#pragma once
// The fabric's state at run time: links (rate, delay, packets in flight), egress ports (a FIFO
// per virtual lane, a transmitter busy until a known time) and how a full buffer is kept from
// overflowing: the lossless credits each port holds for the buffer at the far end (InfiniBand),
// priority flow control's pause frames from a fabric switch's shared buffer back to the port
// feeding it (Ethernet; node-internal links keep credits, as PCIe and NVLink do), or tail drop
// in lossy mode. It moves packets; which
// port a packet takes (forwarding) and where packets come from (transport) are other parts.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "models/fabric/egress_port.hpp"
#include "models/fabric/link.hpp"
#include "models/network/logical_processes.hpp"
#include "models/network/network_params.hpp"
#include "models/network/node_layout.hpp"
#include "models/network/port_graph.hpp"
#include "sim/partitioned_pool.hpp"
#include "sim/per_partition.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

namespace clustersim {

struct FabricCounters {
    std::uint64_t packet_hops = 0;  // packets crossing one link
    std::uint64_t packets_dropped = 0;
    std::uint64_t payload_dropped = 0;
    std::uint64_t pfc_pauses = 0;          // pause frames sent
    std::uint64_t pfc_headroom_drops = 0;  // arrived past an ingress's headroom (not lossless)
    std::uint64_t ecn_marks = 0;           // packets marked congestion experienced
};

/// PFC accounting of one fabric switch's ingress (the channel feeding it).
struct PfcIngress {
    std::int64_t bytes = 0;     // in the switch, arrived through this ingress
    std::int64_t headroom = 0;  // reserved for what arrives while a pause travels
    std::int64_t xoff_at = 0;   // bytes held when the pause was sent
    std::uint32_t sw = kNone;   // the switch it feeds
    bool xoff = false;          // a pause has been sent upstream
};

/// A fabric switch's shared buffer.
struct SharedBuffer {
    std::int64_t size = 0;  // bytes shared by its ingresses (headroom excluded)
    std::int64_t used = 0;
};

class Fabric {
  public:
    Fabric(Simulator& sim, const PortGraph& graph, const NetworkParams& params,
           const NodeLayout* layout, const LogicalProcesses& processes);

    /// What a packet occupies on links and in buffers: its payload plus the per-packet header.
    std::uint32_t wire_bytes(const Packet& p) const {
        return p.payload_bytes + params_.header_bytes;
    }
    std::uint32_t header_bytes() const { return params_.header_bytes; }
    /// Bytes per channel and per switch before any packet moves (run estimates).
    static std::uint64_t bytes_per_channel(bool pfc, std::uint32_t virtual_lanes) {
        return sizeof(Link) + sizeof(EgressPort) + sizeof(std::uint32_t) +
               (pfc ? sizeof(PfcIngress) : 0) +
               (virtual_lanes > 1 ? sizeof(UpperLanes) + sizeof(UpperCredits) : 0);
    }
    static std::uint64_t bytes_per_switch(bool pfc) { return pfc ? sizeof(SharedBuffer) : 0; }
    bool is_endpoint_channel(std::uint32_t ch) const { return ch >= first_endpoint_channel_; }
    bool idle(std::uint32_t ch) const { return ports_[ch].wake_at == Time::never(); }
    /// A packet just queued at `ch` may go at once: the port is idle, or -- with more than one
    /// lane -- it waits for credit on a lane (its transmitter is free; the wake-up it holds is
    /// for that credit, and must not hold back a lane that has credit). With one lane the new
    /// packet queues behind the one waiting, so nothing could go. It also keeps a run's results
    /// independent of its partitions: a credit handed over at a window's end arms that wake-up
    /// later than one returned within the window.
    bool may_serve(std::uint32_t ch) const {
        const EgressPort& p = ports_[ch];
        return p.wake_at == Time::never() || (params_.virtual_lanes > 1 && p.waiting_for_credit);
    }

    /// Wakes the port at `at` unless it already wakes earlier. The wake-up is ordered by the
    /// port, not by what asked for it (a credit returned, a transmission ended), so that a credit
    /// handed over at a window's end wakes it in the same place as one returned within it.
    void arm(std::uint32_t ch, Time at) {
        EgressPort& p = ports_[ch];
        if (at < p.wake_at) {
            p.wake_at = at;
            sim_.schedule_own(at, ch, kPortWake, transmitter_[ch]);
        }
    }
    /// A wake-up event arrived: true if it is the one the port wants (else it is stale).
    bool take_wake(std::uint32_t ch, Time at) {
        EgressPort& p = ports_[ch];
        if (at != p.wake_at) return false;
        p.wake_at = Time::never();
        return true;
    }

    /// The port's transmitter is free now (else it re-arms for when it is).
    bool ready(std::uint32_t ch);
    /// Credits whose return trip has ended become usable.
    void collect_credits(std::uint32_t ch);
    bool has_credit(std::uint32_t ch, std::uint32_t vl, std::uint32_t wire) const {
        const EgressPort& p = ports_[ch];
        return p.unlimited_credits || credits(ch, vl) >= static_cast<std::int64_t>(wire);
    }
    /// Credits on their way back to `ch` (that have not been counted in yet), and the first.
    std::size_t credits_returning(std::uint32_t ch) const {
        const EgressPort& p = ports_[ch];
        return p.near_credits.count + p.returning.size();
    }
    CreditReturn next_credit(std::uint32_t ch) const {
        const EgressPort& p = ports_[ch];
        if (!p.near_credits.empty())
            return {p.near_credits.front_at(), p.near_credits.front_bytes(), 0};
        return p.returning.empty() ? CreditReturn{Time::never()} : p.returning.front();
    }
    /// The lanes in turn from the port's round-robin position, skipping those without a packet
    /// or without credit for it: the wire size of the packet to send next (0: none) and its lane.
    std::uint32_t next_queued(std::uint32_t ch, std::uint32_t& vl) const;
    bool has_queued(std::uint32_t ch) const { return ports_[ch].queued_bytes > 0; }
    /// Something is waiting for credit: wake when the next credit returns.
    void wait_for_credit(std::uint32_t ch);
    /// Occupies the transmitter for `wire` bytes on lane `vl`; returns when it is free again.
    Time begin_transmission(std::uint32_t ch, std::uint32_t wire, std::uint32_t vl);
    /// Takes the head packet of lane `vl` off the queue.
    Packet pop_queued(std::uint32_t ch, std::uint32_t vl, std::uint32_t wire);
    /// Puts a packet whose transmission ends at `tx_end` on the link; credits the buffer it
    /// leaves back upstream.
    void launch(std::uint32_t ch, Packet p, std::uint32_t wire, std::uint32_t vl, Time tx_end);
    /// Windows (sim/simulator.hpp): channels whose two ends are in different partitions. A
    /// credit returned over one is handed over when the window ends (hand_over_credits), not
    /// written into the upstream port while its partition may be running: it is due a link's
    /// delay later, at or after the window's end, so the port sees it in time either way.
    /// `of_process`: each logical process's partition (a port's queues take their chunks from
    /// its transmitter's).
    void set_cut(std::vector<bool> cut, std::uint32_t partitions,
                 std::span<const std::uint32_t> of_process);
    /// The window is over: credits returned over cut channels reach their ports (a port
    /// waiting for credit is woken when the first of them arrives), and the pool slots of
    /// packets that crossed a cut return to the partition that launched them.
    void end_window();
    /// Ranks (sim/ranks.hpp): the record of the packet an arrival event crossing ranks names,
    /// written where it was launched and read back where it arrives.
    void pack_arrival(std::uint32_t slot, ByteWriter& out) const { out.put(flying_[slot]); }
    void unpack_arrival(std::uint32_t slot, ByteReader& in) {
        flying_.adopt(slot) = in.get<InFlight>();
    }
    /// Ranks, before end_window: credits this rank's partitions returned to another rank's
    /// ports, and pool slots they gave back that another rank's partitions own, to each rank;
    /// read back there in the partitions' order, as end_window would have taken them.
    void pack_handoffs(std::span<ByteWriter> per_rank);
    void unpack_handoffs(ByteReader& in);
    /// Hints for the event loop (Network::prefetch): the lines an arrival or a wake-up reads.
    void prefetch_arrival(std::uint32_t slot) const {
        __builtin_prefetch(&flying_[slot]);  // one line (InFlight is aligned to it)
    }
    void prefetch_port(std::uint32_t ch) const { __builtin_prefetch(&ports_[ch]); }

    /// The packet named by an arrival event (its pool slot) reaches the link's far end.
    Packet arrive(std::uint32_t slot, NodeRef& to);
    /// Queues a packet at egress `out`; false when tail drop discards it (lossy mode).
    bool enqueue(std::uint32_t out, const Packet& p);
    /// PFC frames reaching the port they act on. resume() returns true if the port may send.
    void pause(std::uint32_t ch);
    bool resume(std::uint32_t ch);
    bool pfc() const { return params_.flow_control == FlowControl::Pfc; }

    // Faults (models/faults/fault_plan.hpp), applied between packets, never per packet.
    /// Stops (or restarts) a channel; stopping loses what is queued at it (credits and PFC
    /// accounting released upstream). Returns the packets lost, their payload in `payload`.
    std::uint64_t set_down(std::uint32_t ch, bool down, std::uint64_t& payload);
    bool down(std::uint32_t ch) const { return ports_[ch].down; }
    /// Packets queued for the channel from now on are lost with probability `rate` (0: none),
    /// each draw from a stream seeded by the run's seed and the channel.
    void set_loss(std::uint32_t ch, double rate);
    /// The far end of `ch` is memory from now on: the port no longer waits for credits.
    void set_sink(std::uint32_t ch) { ports_[ch].unlimited_credits = true; }
    /// The credits of `ch` cannot bind (models/network/non_binding_credits.hpp), so its port
    /// keeps none and a packet crossing it holds none to return: the same departures, without
    /// writing the port's credit line twice per packet. Builds with assertions keep them and
    /// check instead that no packet ever waits for one, which is what the proof claims.
    void set_non_binding(std::uint32_t ch);
    /// Packets sent from now on serialise at `rate`.
    void set_rate(std::uint32_t ch, DataRate rate);
    /// Packets launched from now on (and credits returned over it) take `delta` longer.
    void add_delay(std::uint32_t ch, Time delta);

    std::span<const Link> links() const { return links_; }
    std::span<const EgressPort> ports() const { return ports_; }
    FabricCounters counters() const { return counters_.sum(); }
    /// Pool slots of packets on links ever taken (their high-water mark).
    std::size_t flying_slots() const { return flying_.slots(); }

  private:
    Simulator& sim_;
    NetworkParams params_;
    bool ecn_ = false;         // the congestion control needs ECN marks (its traits, read once)
    bool may_drop_ = false;    // lossy mode, or a fault has stopped or degraded a port
    std::vector<Link> links_;  // indexed by channel
    std::vector<EgressPort> ports_;            // indexed by channel
    std::vector<UpperLanes> upper_lanes_;      // per channel, with more than one lane only
    std::vector<UpperCredits> upper_credits_;  // likewise
    std::vector<std::uint32_t> transmitter_;   // per channel: the logical process of its port
    std::vector<bool> proved_non_binding_;     // builds with assertions: checked, not dropped
    // Packets on links, each named by its arrival event (a slot of the launching partition).
    PartitionedPool<InFlight> flying_;
    // Chunks of the queued packets, per partition (a port uses its own partition's).
    PerPartition<PacketChunks> chunks_;
    ChunkedFifo<Packet>& lane(std::uint32_t ch, std::uint32_t vl) {
        return vl == 0 ? ports_[ch].queue : upper_lanes_[ch][vl - 1];
    }
    const ChunkedFifo<Packet>& lane(std::uint32_t ch, std::uint32_t vl) const {
        return vl == 0 ? ports_[ch].queue : upper_lanes_[ch][vl - 1];
    }
    std::int64_t& credits(std::uint32_t ch, std::uint32_t vl) {
        return vl == 0 ? ports_[ch].credits_bytes : upper_credits_[ch][vl - 1];
    }
    std::int64_t credits(std::uint32_t ch, std::uint32_t vl) const {
        return vl == 0 ? ports_[ch].credits_bytes : upper_credits_[ch][vl - 1];
    }
    // A credit on its way back to `ch`: in the port's line while few are, else in its ring.
    void push_return(std::uint32_t ch, const CreditReturn& c) {
        EgressPort& port = ports_[ch];
        NearCredits& near = port.near_credits;
        if (params_.virtual_lanes == 1 && !near.spilled && !near.full()) {
            near.push_back(c.at, c.bytes);
            return;
        }
        port.returning.push_back(c);
        near.spilled = true;
    }
    // Credits back by `now` counted in.
    void take_returned(std::uint32_t ch, Time now);
    std::uint32_t first_endpoint_channel_ = 0;
    PerPartition<FabricCounters> counters_;
    std::vector<PfcIngress> pfc_;       // per channel into a fabric switch (PFC mode only)
    std::vector<SharedBuffer> shared_;  // per switch (PFC mode only)
    std::int64_t resume_gap_ = 0;       // XON this far below the XOFF threshold
    void pfc_release(std::uint32_t in, std::uint32_t wire);
    // The buffer space of a packet leaving the switch fed by channel `up` is credited back.
    void return_credit(std::uint32_t up, std::uint32_t wire, std::uint8_t vl);
    struct HandedCredit {
        std::uint32_t channel;
        CreditReturn credit;
    };
    std::vector<bool> cut_;                           // per channel, or empty: one partition
    PerPartition<std::vector<HandedCredit>> handed_;  // returned over cut channels this window
    // A packet that will not leave this switch: its buffer space is released upstream.
    void discard(const Packet& p, std::uint32_t wire);
    // Past drop_above_bytes: whether the packet is dropped (the channel down, a lossy cable's
    // draw, or tail drop in lossy mode), counted where it belongs.
    bool refuse(std::uint32_t out, const Packet& p, std::uint32_t wire);
    std::uint64_t tail_drop_limit(std::uint32_t ch) const;
    // The packet just queued reached the queue in the same picosecond as the one before it:
    // they go out in turn by input, as a switch's output arbiter takes simultaneous requests,
    // not in the order their arrival events ran (which favours low-numbered senders).
    static void break_tie(EgressPort& port, ChunkedFifo<Packet>& q);
};

inline void Fabric::break_tie(EgressPort& port, ChunkedFifo<Packet>& q) {
    Packet& last = q.back();
    Packet& prev = q.before_back();
    if (last.credit_channel == kNone || prev.credit_channel == kNone) return;  // lossy: no inputs
    // Inputs in turn after the last winner: (input - winner - 1) wraps to order them.
    if (last.credit_channel - port.tie_winner - 1 < prev.credit_channel - port.tie_winner - 1)
        std::swap(prev, last);
    port.tie_winner = prev.credit_channel;
}

// The per-packet path, inline: it runs a few times per packet hop.

inline bool Fabric::ready(std::uint32_t ch) {
    const EgressPort& port = ports_[ch];
    // PFC: the resume frame services it again; a fault: the channel's return does.
    if (port.paused | port.down) [[unlikely]]
        return false;
    if (sim_.now() < port.busy_until) {
        arm(ch, port.busy_until);
        return false;
    }
    return true;
}

inline void Fabric::take_returned(std::uint32_t ch, Time now) {
    EgressPort& port = ports_[ch];
    NearCredits& near = port.near_credits;
    while (!near.empty() && near.front_at() <= now) {
        port.credits_bytes += near.front_bytes();
        near.pop_front();
    }
    if (!near.spilled || !near.empty()) return;  // the ring holds only returns after these
    while (!port.returning.empty() && port.returning.front().at <= now) {
        const CreditReturn c = port.returning.pop_front();
        credits(ch, c.vl) += c.bytes;
    }
    near.spilled = !port.returning.empty();
}

inline void Fabric::collect_credits(std::uint32_t ch) {
    if (ports_[ch].unlimited_credits) return;
    take_returned(ch, sim_.now());
}

inline std::uint32_t Fabric::next_queued(std::uint32_t ch, std::uint32_t& vl) const {
    const EgressPort& port = ports_[ch];
    const std::uint32_t lanes = params_.virtual_lanes;
    for (std::uint32_t i = 0, v = port.next_vl; i < lanes; ++i, v = v + 1 == lanes ? 0 : v + 1) {
        const ChunkedFifo<Packet>& q = lane(ch, v);
        if (q.empty()) continue;
        const std::uint32_t w = wire_bytes(q.front());
        if (port.unlimited_credits || credits(ch, v) >= static_cast<std::int64_t>(w)) {
            vl = v;
            return w;
        }
    }
    return 0;
}

inline void Fabric::wait_for_credit(std::uint32_t ch) {
    assert((proved_non_binding_.empty() || !proved_non_binding_[ch]) &&
           "a packet waits for credits proved never to bind");
    EgressPort& port = ports_[ch];
    port.waiting_for_credit = true;
    const Time next = next_credit(ch).at;
    if (next != Time::never()) arm(ch, next);
}

inline Time Fabric::begin_transmission(std::uint32_t ch, std::uint32_t wire, std::uint32_t vl) {
    EgressPort& port = ports_[ch];
    port.waiting_for_credit = false;
    if (!port.unlimited_credits) credits(ch, vl) -= static_cast<std::int64_t>(wire);
    const Time tx_end = sim_.now() + links_[ch].clock.time_for(wire);
    port.busy_until = tx_end;
    return tx_end;
}

inline Packet Fabric::pop_queued(std::uint32_t ch, std::uint32_t vl, std::uint32_t wire) {
    EgressPort& port = ports_[ch];
    Packet p = lane(ch, vl).pop_front(chunks_[port.partition]);
    port.queued_bytes -= wire;
    port.next_vl = static_cast<std::uint8_t>(vl + 1 == params_.virtual_lanes ? 0 : vl + 1);
    // RED on the egress queue as the packet leaves it (the queue behind it), as the HPCC
    // authors' ns-3 switch marks (SwitchNotifyDequeue): feedback reflects the queue now, not
    // the queue the packet found, so marks stop as soon as the queue drains. The draw is a
    // hash of the packet and the port, so runs repeat.
    if (ecn_ && (p.flags & Packet::kEcnCapable) && port.queued_bytes > params_.ecn_kmin_bytes)
        [[unlikely]] {
        bool mark = port.queued_bytes >= params_.ecn_kmax_bytes;
        if (!mark) {
            const double prob =
                params_.ecn_pmax * static_cast<double>(port.queued_bytes - params_.ecn_kmin_bytes) /
                static_cast<double>(params_.ecn_kmax_bytes - params_.ecn_kmin_bytes);
            const std::uint64_t h =
                mix64((std::uint64_t{p.message} << 32 | p.sequence) ^ (std::uint64_t{ch} << 7));
            mark = static_cast<double>(h >> 11) * 0x1.0p-53 < prob;
        }
        if (mark) {
            p.flags |= Packet::kCongestionExperienced;
            ++counters_.here().ecn_marks;
            ++port.ecn_marks;
        }
    }
    return p;
}

inline void Fabric::launch(std::uint32_t ch, Packet p, std::uint32_t wire, std::uint32_t vl,
                           Time tx_end) {
    if (p.credit_channel != kNone && !(p.credit_vl & Packet::kNoCreditHeld)) {
        if (!pfc_.empty() && pfc_[p.credit_channel].sw != kNone) {
            pfc_release(p.credit_channel, wire);  // leaves a shared buffer
        } else {
            return_credit(p.credit_channel, wire, p.credit_vl);
        }
    }
    const EgressPort& port = ports_[ch];
    // The far end accounts for it: credits held, or its PFC ingress. Past a port that keeps
    // no credits it holds none, but its input still counts for the arbiter (break_tie).
    p.credit_channel =
        !port.unlimited_credits || port.credits_not_kept || (!pfc_.empty() && pfc_[ch].sw != kNone)
            ? ch
            : kNone;
    p.credit_vl = static_cast<std::uint8_t>(port.credits_not_kept ? Packet::kNoCreditHeld : vl);
    Link& link = links_[ch];
    if (link.fabric_hop) ++p.fabric_hops;
    link.bytes_carried += wire;
    Time arrival = tx_end + link.arrival_delay;
    // A cut-through switch starts forwarding once the header is in: the rest of the packet's
    // serialisation overlaps with its forwarding.
    if (link.cut_through)
        arrival = arrival - (link.clock.time_for(wire) - link.clock.time_for(params_.header_bytes));
    const std::uint32_t slot = flying_.acquire();
    InFlight& f = flying_[slot];
    f.packet = p;
    f.channel = ch;
    f.to_index = link.to.index & 0x7fffffffu;
    f.to_switch = link.to.kind == NodeKind::Switch;
    sim_.schedule(arrival, slot, kLinkArrival, link.process);
}

inline Packet Fabric::arrive(std::uint32_t slot, NodeRef& to) {
    // The slot is free again once read: the next launch, often at once, reuses it while hot.
    const InFlight& f = flying_[slot];
    ++counters_.here().packet_hops;
    to = f.to();
    const Packet p = f.packet;
    flying_.release(slot);
    return p;
}

inline bool Fabric::enqueue(std::uint32_t out, const Packet& p) {
    EgressPort& port = ports_[out];
    const std::uint32_t wire = wire_bytes(p);
    if (!pfc_.empty() && p.credit_channel != kNone && pfc_[p.credit_channel].sw != kNone) {
        // PFC ingress accounting: past the dynamic threshold, pause the port feeding it; what
        // arrives while the pause travels fills the ingress's headroom.
        PfcIngress& in = pfc_[p.credit_channel];
        SharedBuffer& buf = shared_[in.sw];
        if (in.xoff && in.bytes + wire > in.xoff_at + in.headroom) {
            FabricCounters& counters = counters_.here();
            ++counters.pfc_headroom_drops;
            ++counters.packets_dropped;
            counters.payload_dropped += p.payload_bytes;
            return false;
        }
        in.bytes += wire;
        buf.used += wire;
        const auto free_bytes = std::max<std::int64_t>(0, buf.size - buf.used);
        if (!in.xoff &&
            static_cast<double>(in.bytes) >= params_.pfc_alpha * static_cast<double>(free_bytes)) {
            in.xoff = true;
            in.xoff_at = in.bytes;
            ++counters_.here().pfc_pauses;
            sim_.schedule(sim_.now() + ports_[p.credit_channel].credit_delay, p.credit_channel,
                          kPfcPause, transmitter_[p.credit_channel]);
        }
    }
    // Read only where drops can happen (lossy mode, or once a fault has touched a port): a
    // lossless healthy fabric never loads the field, which sits far down the port's lines.
    if (may_drop_ && port.queued_bytes + wire > port.drop_above_bytes) [[unlikely]] {
        if (refuse(out, p, wire)) return false;
    }
    // Lane for the next hop: switch-to-switch hops taken so far (0 off the fabric's core). A
    // one-lane fabric never reads the outgoing link here.
    const std::uint32_t vl = params_.virtual_lanes > 1 && links_[out].fabric_hop
                                 ? std::min<std::uint32_t>(p.fabric_hops, params_.virtual_lanes - 1)
                                 : 0;
    ChunkedFifo<Packet>& q = lane(out, vl);
    q.push_back(p, chunks_[port.partition]);
    const Time now = sim_.now();
    if (port.tail_at == now && q.size() >= 2 && (params_.virtual_lanes == 1 || port.tail_vl == vl))
        [[unlikely]]
        break_tie(port, q);
    port.tail_at = now;
    if (params_.virtual_lanes > 1) port.tail_vl = static_cast<std::uint8_t>(vl);
    port.queued_bytes += wire;
    if (port.queued_bytes > port.max_queue_bytes) [[unlikely]]
        port.max_queue_bytes = port.queued_bytes;
    return true;
}

inline void Fabric::return_credit(std::uint32_t up_channel, std::uint32_t wire, std::uint8_t vl) {
    EgressPort& up = ports_[up_channel];
    const Time at = sim_.now() + up.credit_delay;
    if (!cut_.empty() && cut_[up_channel]) [[unlikely]] {
        handed_.here().push_back({up_channel, CreditReturn{at, wire, vl}});
        return;
    }
    // Credits already back are counted in first, so that the ones in flight stay few: the
    // same sum a service would take, and every reader collects before it reads.
    take_returned(up_channel, sim_.now());
    push_return(up_channel, CreditReturn{at, wire, vl});
    if (up.waiting_for_credit) arm(up_channel, at);
}

inline void Fabric::pfc_release(std::uint32_t ch, std::uint32_t wire) {
    PfcIngress& in = pfc_[ch];
    SharedBuffer& buf = shared_[in.sw];
    in.bytes -= wire;
    buf.used -= wire;
    if (!in.xoff) return;
    const auto free_bytes = std::max<std::int64_t>(0, buf.size - buf.used);
    if (in.bytes == 0 || static_cast<double>(in.bytes + resume_gap_) <=
                             params_.pfc_alpha * static_cast<double>(free_bytes)) {
        in.xoff = false;
        sim_.schedule(sim_.now() + ports_[ch].credit_delay, ch, kPfcResume, transmitter_[ch]);
    }
}

inline void Fabric::pause(std::uint32_t ch) {
    EgressPort& port = ports_[ch];
    ++port.pauses;
    if (port.paused) return;
    port.paused = true;
    port.paused_since = sim_.now();
}

inline bool Fabric::resume(std::uint32_t ch) {
    EgressPort& port = ports_[ch];
    if (!port.paused) return false;
    port.paused = false;
    port.paused_total = port.paused_total + (sim_.now() - port.paused_since);
    return true;
}

}  // namespace clustersim
