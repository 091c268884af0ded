#include "models/transport/rdma_transport.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/random.hpp"

namespace clustersim {

RdmaTransport::RdmaTransport(const PortGraph& graph, const Workload& workload,
                             const NetworkParams& params, const NodeLayout* layout)
    : workload_(workload),
      params_(params),
      layout_(layout),
      cc_traits_(params.cc_traits()),
      ack_every_(cc_traits_.ack_every_packet ? 1 : std::max(1u, params.ack_every)) {
    if (params_.mtu_bytes == 0) throw std::invalid_argument("mtu_bytes must be positive");
    const auto channels = graph.channels();
    const std::uint32_t endpoints = graph.endpoint_count();
    first_channel_ = static_cast<std::uint32_t>(channels.size());
    channel_of_endpoint_.assign(endpoints, kNone);
    for (std::uint32_t e = 0; e < endpoints; ++e) {
        const NodeRef node{NodeKind::Endpoint, e};
        if (graph.channels_of(node) == 0) continue;  // unattached endpoint: never a source
        const std::uint32_t paths = layout ? kGpuPaths : 1;
        if (graph.channels_of(node) != paths)
            throw std::invalid_argument(
                layout ? "a GPU needs its two paths (NVLink, RDMA) into its hub"
                       : "an endpoint with several ports needs the node model (a NIC switch)");
        const std::uint32_t ch = graph.first_channel(node);
        for (std::uint32_t c = ch; c < ch + paths; ++c)
            if (channels[c].to.kind != NodeKind::Switch)
                throw std::invalid_argument("an endpoint must attach to a switch");
        channel_of_endpoint_[e] = ch;
        first_channel_ = std::min(first_channel_, ch);
    }
    senders_.resize(channels.size() - std::min<std::size_t>(first_channel_, channels.size()));
    issue_free_.assign(senders_.size(), Time::zero());

    state_.resize(workload.messages.size());
    receiver_of_.assign(workload.messages.size(), kNone);
    if (params_.reliable()) outgoing_.resize(workload.messages.size());
    if (params_.paced()) {
        paced_.resize(workload.messages.size());
        // The chosen algorithm, built from its parameters, with its state per message.
        const std::size_t n = workload.messages.size();
        CongestionControlList::emplace<Controlled>(cc_, params_.cc,
                                                   [n](auto& c) { c.state.resize(n); });
        visit_control(
            [this](const auto& control, auto&) { cnp_interval_ = control.cnp_interval(); });
        if (cc_traits_.int_telemetry) live_.resize(n);
        line_bps_.resize(workload.messages.size());
        for (std::uint32_t m = 0; m < workload.messages.size(); ++m)
            if (channel_of_endpoint_[workload.messages[m].src] != kNone)
                line_bps_[m] = static_cast<double>(channels[sender_channel(m)].rate.bps());
    }
    for (const Message& spec : workload.messages)
        if ((spec.bytes + params_.mtu_bytes - 1) / params_.mtu_bytes > UINT32_MAX)
            throw std::invalid_argument("a message of more than 2^32 packets");
}

std::uint32_t RdmaTransport::sender_channel(std::uint32_t m) const {
    const Message& spec = workload_.messages[m];
    const std::uint32_t ch = channel_of_endpoint_[spec.src];
    if (ch == kNone) throw std::logic_error("message from an unattached endpoint");
    // A GPU's NVLink sender and its NIC's RDMA sender each keep their own round-robin.
    if (layout_ && (workload_.sent_via_nic(m) || !layout_->starts_on_scale_up(spec.src, spec.dst)))
        return ch + kRdmaPath;
    return ch;
}

Time RdmaTransport::eligible_at(std::uint32_t m, Time now) {
    if (!layout_) return now;
    const bool nvlink =
        !workload_.sent_via_nic(m) &&
        layout_->starts_on_scale_up(workload_.messages[m].src, workload_.messages[m].dst);
    const Time overhead =
        nvlink ? layout_->scale_up_message_overhead : layout_->rdma_message_overhead;
    const Time issue = nvlink ? layout_->scale_up_issue : layout_->rdma_issue;
    Time& free = issue_free_[sender_channel(m) - first_channel_];
    const Time issued = (free > now ? free : now) + issue;
    free = issued;
    return issued + (overhead > issue ? overhead - issue : Time::zero());
}

std::uint32_t RdmaTransport::enqueue(std::uint32_t m) {
    const std::uint32_t ch = sender_channel(m);
    sender_of(ch).active.push_back(Turn{m, 0});
    if (!outgoing_.empty()) outgoing_[m].active = true;
    return ch;
}

namespace {

// Drops bit 0 of a multi-word bitmap: bit k becomes bit k - 1; returns the bit that falls
// out of the first word into the word below (the caller's inline word).
std::uint64_t shift_down_one(std::vector<std::uint64_t>& bits) {
    if (bits.empty()) return 0;
    const std::uint64_t out = bits[0] & 1u;
    for (std::size_t i = 0; i < bits.size(); ++i) {
        bits[i] >>= 1;
        if (i + 1 < bits.size()) bits[i] |= bits[i + 1] << 63;
    }
    return out;
}

}  // namespace

Delivery RdmaTransport::receive(const Packet& p, Time now) {
    const std::uint32_t m = p.message;
    const bool reliable = !outgoing_.empty();
    const std::uint32_t total = packets_of(m);
    Delivery d;
    if (!paced_.empty() && (p.flags & Packet::kCongestionExperienced)) {
        // The notification point: one CNP per queue pair per cnp_interval at most.
        Time& last = paced_[m].last_cnp;
        if (last == Time::never() || now - last >= cnp_interval_) {
            last = now;
            ++counters_.here().cnps;
            d.reply_channel = reply(m, PacketKind::Cnp, 0);
        }
    }
    auto duplicate = [&](std::uint32_t next_expected) {
        ++counters_.here().duplicate_packets;
        counters_.here().payload_redundant += p.payload_bytes;
        // Tell the sender again how far it got: its ACK may have been lost.
        if (reliable) d.reply_channel = reply(m, PacketKind::Ack, next_expected);
        return d;
    };
    std::uint32_t& slot = receiver_of_[m];
    if (slot == kReceived) return duplicate(total);  // all of it is here already
    if (slot == kNone) {
        slot = receivers_.acquire();
        receivers_[slot] = Receiver{};
    }
    Receiver& r = receivers_[slot];
    if (p.sequence < r.next_expected) return duplicate(r.next_expected);
    // Bit k of the bitmap stands for packet next_expected + 1 + k.
    const std::uint32_t off = p.sequence - r.next_expected;
    if (off > 0) {
        if (reliable && params_.retransmission == Retransmission::GoBackN) {
            ++counters_.here().discarded_out_of_order;
            counters_.here().payload_redundant += p.payload_bytes;
        } else {
            if (!mark_ahead(r, off - 1)) return duplicate(r.next_expected);
            accept(r, p);
        }
        // A gap: NACK it once (the sender resends from it, or just it).
        if (reliable && r.nacked != r.next_expected) {
            r.nacked = r.next_expected;
            d.reply_channel = reply(m, PacketKind::Nack, r.next_expected);
        }
        return d;
    }
    accept(r, p);
    advance(r);
    d.completes = r.next_expected == total;
    if (reliable && (d.completes || ++r.since_ack >= ack_every_)) {
        r.since_ack = 0;
        d.reply_channel = reply(m, PacketKind::Ack, r.next_expected);
    }
    if (d.completes) {
        // Whole (advance has given back any spill words): the slot serves the next message.
        receivers_.release(slot);
        slot = kReceived;
    }
    return d;
}

bool RdmaTransport::mark_ahead(Receiver& r, std::uint32_t bit) {
    std::uint64_t* word = &r.ahead;
    if (bit >= 64) {
        if (r.spill == kNone) {
            r.spill = spill_.acquire();
        }
        std::vector<std::uint64_t>& more = spill_[r.spill];
        const std::size_t w = bit / 64 - 1;
        if (more.size() <= w) more.resize(w + 1, 0);
        word = &more[w];
    }
    const std::uint64_t mask = std::uint64_t{1} << (bit % 64);
    if (*word & mask) return false;
    *word |= mask;
    return true;
}

void RdmaTransport::advance(Receiver& r) {
    // next_expected has just arrived: move past it and every packet already here after it.
    for (bool next = true; next;) {
        ++r.next_expected;
        next = r.ahead & 1u;
        r.ahead >>= 1;
        if (r.spill != kNone) {
            std::vector<std::uint64_t>& more = spill_[r.spill];
            r.ahead |= shift_down_one(more) << 63;
            if (std::all_of(more.begin(), more.end(), [](std::uint64_t w) { return w == 0; })) {
                more.clear();  // its capacity kept for the next message that spills
                spill_.release(r.spill);
                r.spill = kNone;
            }
        }
    }
}

void RdmaTransport::accept(Receiver& r, const Packet& p) {
    r.bytes += p.payload_bytes;
    TransportCounters& counters = counters_.here();
    counters.payload_delivered += p.payload_bytes;
    ++counters.packets_delivered;
}

std::uint32_t RdmaTransport::reply(std::uint32_t m, PacketKind kind, std::uint32_t sequence) {
    // From the receiver's end of the path the message took (NVLink or its RDMA path).
    const Message& spec = workload_.messages[m];
    const std::uint32_t data_ch = sender_channel(m);
    const std::uint32_t ch =
        channel_of_endpoint_[spec.dst] + (data_ch - channel_of_endpoint_[spec.src]);
    Packet c;
    c.message = m;
    c.src = spec.dst;
    c.dst = spec.src;
    c.entropy = entropy(m) ^ 0x5a5a5a5au;  // the reverse direction hashes on its own
    c.sequence = sequence;
    c.kind = kind;
    if (workload_.sent_via_nic(m)) c.flags |= Packet::kViaNic;  // back the way it came
    sender_of(ch).control.push_back(c);
    ++(kind == PacketKind::Ack ? counters_.here().acks : counters_.here().nacks);
    return ch;
}

void RdmaTransport::reactivate(std::uint32_t m) {
    Outgoing& o = outgoing_[m];
    if (o.active) return;
    o.active = true;
    sender_of(sender_channel(m)).active.push_back(Turn{m, 0});
}

Packet RdmaTransport::take_reliable(Sender& nic, std::uint32_t m, Packet p, Time now,
                                    bool& sent_all) {
    const Message& spec = workload_.messages[m];
    MessageState& st = state_[m];
    Outgoing& o = outgoing_[m];
    const std::uint32_t total = packets_of(m);
    std::uint32_t seq;
    if (o.resend != kNone) {
        seq = o.resend;
        o.resend = kNone;
    } else {
        seq = o.next_packet++;
    }
    const std::uint64_t offset = std::uint64_t{seq} * params_.mtu_bytes;
    p.sequence = seq;
    p.payload_bytes =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(spec.bytes - offset, params_.mtu_bytes));
    if (st.first_sent == Time::never()) st.first_sent = now;
    if (seq < o.sent_through) {
        ++counters_.here().retransmitted_packets;
    } else {
        o.sent_through = seq + 1;
        if (o.sent_through == total) sent_all = true;
    }
    counters_.here().payload_sent += p.payload_bytes;
    ++counters_.here().packets_sent;
    if (o.next_packet >= total && o.resend == kNone) {
        // Nothing left to send unless a NACK or a timeout brings it back.
        o.next_packet = total;
        o.active = false;
        nic.active.erase(nic.active.begin() + static_cast<std::ptrdiff_t>(nic.next));
    } else {
        ++nic.next;
    }
    return p;
}

std::uint32_t RdmaTransport::on_control(const Packet& p, Time now, bool& acked_all) {
    acked_all = false;
    const std::uint32_t m = p.message;
    if (p.kind == PacketKind::Cnp) {  // the reaction point cuts its rate
        visit_control(
            [&](const auto& control, auto& state) { control.on_cnp(state[m], now, line_bps_[m]); });
        return kNone;
    }
    if (cc_traits_.acks && p.kind == PacketKind::Ack) {
        // The ACK (with the hop records, for INT) reaches the algorithm; a window may open.
        const std::uint32_t before = outgoing_[m].acked;
        const CcAck ack{p.sequence,
                        p.sequence > before ? p.sequence - before : 0,
                        outgoing_[m].next_packet,
                        now,
                        line_bps_[m],
                        params_.mtu_bytes + params_.header_bytes,
                        live_.empty() ? nullptr : &live_[m]};
        visit_control([&](const auto& control, auto& state) { control.on_ack(state[m], ack); });
    }
    Outgoing& o = outgoing_[m];
    if (o.failed) return kNone;
    const std::uint32_t total = packets_of(m);
    if (p.sequence > o.acked) {  // cumulative: everything below is in (a NACK says so too)
        const bool was_done = o.acked == total;
        o.acked = p.sequence;
        o.last_progress = now;
        o.progressed = now;
        o.retries = 0;
        o.timeout = params_.first_timeout();
        acked_all = !was_done && o.acked == total;
    }
    if (p.kind != PacketKind::Nack || p.sequence >= o.sent_through)
        return cc_traits_.window && o.active ? sender_channel(m) : kNone;
    if (params_.retransmission == Retransmission::GoBackN)
        o.next_packet = std::min(o.next_packet, p.sequence);
    else
        o.resend = p.sequence;
    reactivate(m);
    return sender_channel(m);
}

void RdmaTransport::pace(std::uint32_t m, Packet& p, Time now) {
    Paced& q = paced_[m];
    const std::uint64_t wire = p.payload_bytes + params_.header_bytes;
    const CcSend send{p.sequence, wire, now, line_bps_[m],
                      params_.mtu_bytes + params_.header_bytes};
    double bps = line_bps_[m];
    visit_control([&](const auto& control, auto& state) { bps = control.on_send(state[m], send); });
    if (cc_traits_.ecn) p.flags |= Packet::kEcnCapable;
    // The next packet of this queue pair leaves one packet time at the current rate later;
    // at line rate that is when the transmitter frees anyway.
    const double ps = static_cast<double>(wire) * 8e12 / bps;
    q.next_send = now + Time::from_ps(static_cast<std::int64_t>(ps));
}

bool RdmaTransport::select_eligible(std::uint32_t ch, Time now, Time& at) {
    Sender& nic = sender_of(ch);
    at = Time::never();
    if (!nic.control.empty()) return true;
    const std::size_t n = nic.active.size();
    if (n == 0) return false;
    if (paced_.empty()) return true;
    // Round-robin from the message in turn: the first one whose pacing allows it now.
    const std::size_t start = nic.next < n ? nic.next : 0;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = (start + k) % n;
        const std::uint32_t m = nic.active[i].message;
        if (cc_traits_.window) {  // window: unacknowledged bytes stay below it
            const Outgoing& o = outgoing_[m];
            const double in_flight =
                static_cast<double>(o.next_packet - std::min(o.next_packet, o.acked)) *
                static_cast<double>(params_.mtu_bytes);
            const double mtu = params_.mtu_bytes;
            double window = 0;
            visit_control([&](const auto& control, auto& state) {
                window = control.window_bytes(state[m], mtu);
            });
            // At least one packet may be out: a window below a packet paces instead.
            if (window > 0 && in_flight >= std::max(window, mtu) && o.resend == kNone)
                continue;  // until an ACK
        }
        const Time t = paced_[m].next_send;
        if (t <= now) {
            nic.next = i;
            return true;
        }
        at = std::min(at, t);
    }
    return false;
}

bool RdmaTransport::arm_timer(std::uint32_t m, Time now) {
    Outgoing& o = outgoing_[m];
    if (o.timer || o.failed || params_.ack_timeout() == Time::never()) return false;
    o.timer = true;
    o.last_progress = now;
    if (o.timeout == Time::zero()) {  // the queue pair's first packet
        o.progressed = now;
        o.timeout = params_.first_timeout();
    }
    return true;
}

std::uint32_t RdmaTransport::on_timer(std::uint32_t m, Time now, Time& next) {
    Outgoing& o = outgoing_[m];
    next = Time::never();
    if (o.failed) return kNone;  // its error state is final
    if (o.acked == packets_of(m)) {
        o.timer = false;
        return kNone;
    }
    // The IBTA timer is fixed (no backoff); ConnectX's adaptive one doubles per timeout in a
    // row, up to the queue pair's own.
    const Time due = o.last_progress + o.timeout;
    if (now < due) {
        next = due;
        return kNone;
    }
    ++counters_.here().timeouts;
    ++o.retries;
    const bool adaptive = params_.adaptive_initial_timeout > Time::zero();
    const bool give_up = adaptive ? now - o.progressed >= params_.adaptive_total_timeout()
                                  : o.retries > params_.retry_count;
    if (adaptive) o.timeout = std::min(params_.longest_timeout(), o.timeout + o.timeout);
    if (give_up) {
        // The queue pair enters its error state, as an RC QP does past its retry count: it
        // sends nothing more and ignores late ACKs and NACKs; the run will report it stalled.
        o.timer = false;
        o.failed = true;
        ++counters_.here().connections_failed;
        if (o.active) {
            Sender& nic = sender_of(sender_channel(m));
            const auto at = std::find_if(nic.active.begin(), nic.active.end(),
                                         [m](const Turn& t) { return t.message == m; });
            const auto index = static_cast<std::size_t>(at - nic.active.begin());
            nic.active.erase(at);
            if (index < nic.next) --nic.next;
            o.active = false;
        }
        return kNone;
    }
    // Resend everything unacknowledged, as an RC sender does after a timeout.
    o.next_packet = std::min(o.next_packet, o.acked);
    o.resend = kNone;
    o.last_progress = now;
    next = now + o.timeout;
    reactivate(m);
    return sender_channel(m);
}

}  // namespace clustersim
