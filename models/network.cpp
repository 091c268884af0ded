#include "models/network.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/random.hpp"

namespace clustersim {

Network::Network(Simulator& sim, const PortGraph& graph, const ForwardingTables& routes,
                 const Workload& workload, const NetworkParams& params, const NodeLayout* layout)
    : sim_(sim),
      graph_(graph),
      routes_(routes),
      workload_(workload),
      params_(params),
      layout_(layout) {
    if (params_.mtu_bytes == 0) throw std::invalid_argument("mtu_bytes must be positive");
    if (params_.virtual_lanes == 0 || params_.virtual_lanes > kMaxVirtualLanes)
        throw std::invalid_argument("virtual_lanes must be between 1 and kMaxVirtualLanes");
    const auto channels = graph.channels();
    links_.resize(channels.size());
    ports_.resize(channels.size());
    first_endpoint_channel_ = static_cast<std::uint32_t>(channels.size());
    const bool lossless = params_.flow_control == FlowControl::Credit;
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        const Channel& ch = channels[c];
        Link& l = links_[c];
        l.clock = SerialisationClock(ch.rate);
        l.to = ch.to;
        l.arrival_delay = ch.propagation;
        l.fabric_hop = ch.from.kind == NodeKind::Switch && ch.to.kind == NodeKind::Switch &&
                       (!layout || (layout->role[ch.from.index] == SwitchRole::Fabric &&
                                    layout->role[ch.to.index] == SwitchRole::Fabric));
        EgressPort& p = ports_[c];
        p.credit_delay = ch.propagation;
        if (ch.to.kind == NodeKind::Switch) {
            const SwitchInfo& sw = graph.switches()[ch.to.index];
            l.arrival_delay = ch.propagation + sw.latency;
            p.unlimited_credits = !lossless;
            // A switch-to-switch hop splits the input buffer evenly among the virtual lanes;
            // every other hop uses lane 0 only, which gets it all.
            if (l.fabric_hop)
                p.credits_bytes.fill(
                    static_cast<std::int64_t>(sw.port_buffer_bytes / params_.virtual_lanes));
            else
                p.credits_bytes[0] = static_cast<std::int64_t>(sw.port_buffer_bytes);
        }
        if (ch.from.kind == NodeKind::Switch) {
            p.buffer_bytes = graph.switches()[ch.from.index].port_buffer_bytes;
        } else {
            first_endpoint_channel_ = std::min(first_endpoint_channel_, c);
        }
    }

    const std::uint32_t endpoints = graph.endpoint_count();
    nics_.resize(endpoints);
    for (std::uint32_t e = 0; e < endpoints; ++e) {
        const NodeRef node{NodeKind::Endpoint, e};
        if (graph.channels_of(node) == 0) continue;  // unattached endpoint: never a source
        if (graph.channels_of(node) > 1)
            throw std::invalid_argument(
                "an endpoint with several ports needs the node model (a NIC switch)");
        nics_[e].channel = graph.first_channel(node);
        if (channels[nics_[e].channel].to.kind != NodeKind::Switch)
            throw std::invalid_argument("an endpoint must attach to a switch");
    }
    index_switches();  // fills each switch's plane
    RandomStream salts(params_.seed, "ecmp-salt");
    for (FabricSwitch& s : fabric_switches_) s.salt = salts();

    state_.resize(workload.messages.size());
    entropy_.resize(workload.messages.size());
    for (std::size_t m = 0; m < workload.messages.size(); ++m) {
        const auto& spec = workload.messages[m];
        // The flow's header fields (src, dst, queue pair) hashed once: one flow, one path.
        entropy_[m] = static_cast<std::uint32_t>(
            mix64((static_cast<std::uint64_t>(spec.src) << 32 | spec.dst) ^ mix64(spec.label)));
    }
    triggers_.resize(workload.triggers.size());
    for (std::size_t t = 0; t < workload.triggers.size(); ++t)
        triggers_[t].remaining = workload.triggers[t].count;
}

void Network::start() {
    for (std::uint32_t m = 0; m < workload_.messages.size(); ++m) {
        const auto& spec = workload_.messages[m];
        if (spec.start != Time::never() && spec.start_trigger == kNone)
            sim_.schedule(spec.start, m, kMessageStart);
    }
}

void Network::handle(const Event& e) {
    switch (e.kind) {
        case kLinkArrival:
            on_link_arrival(e.target);
            break;
        case kPortWake: {
            EgressPort& p = ports_[e.target];
            if (e.time != p.wake_at) return;  // superseded by an earlier wake-up
            p.wake_at = Time::never();
            service_port(e.target);
            break;
        }
        case kMessageStart:
            start_message(e.target);
            break;
        case kMessageDone:
            finish_message(e.target);
            break;
        case kMessageEligible:
            make_eligible(e.target);
            break;
        case kSendDone:
            activate(workload_.messages[e.target].send_done_trigger);
            break;
        default:
            throw std::logic_error("unknown event kind");
    }
}

void Network::arm(std::uint32_t ch, Time at) {
    EgressPort& p = ports_[ch];
    if (at < p.wake_at) {
        p.wake_at = at;
        sim_.schedule(at, ch, kPortWake);
    }
}

std::uint32_t Network::nic_next_wire_bytes(const Nic& nic) const {
    if (nic.active.empty()) return 0;
    const std::uint32_t m = nic.active[nic.next];
    const std::uint64_t left = workload_.messages[m].bytes - state_[m].bytes_segmented;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(left, params_.mtu_bytes)) +
           params_.header_bytes;
}

Packet Network::nic_make_packet(Nic& nic, Time tx_end) {
    const std::uint32_t m = nic.active[nic.next];
    const MessageSpec& spec = workload_.messages[m];
    MessageState& st = state_[m];
    const auto payload = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(spec.bytes - st.bytes_segmented, params_.mtu_bytes));
    Packet p;
    p.message = m;
    p.dst = spec.dst;
    p.payload_bytes = payload;
    p.entropy = entropy_[m];
    if (st.bytes_segmented == 0) st.first_sent = sim_.now();
    st.bytes_segmented += payload;
    counters_.payload_sent += payload;
    ++counters_.packets_sent;
    if (st.bytes_segmented == spec.bytes) {
        st.last_sent = tx_end;
        if (spec.send_done_trigger != kNone) sim_.schedule(tx_end, m, kSendDone);
        nic.active.erase(nic.active.begin() + static_cast<std::ptrdiff_t>(nic.next));
        if (nic.next >= nic.active.size()) nic.next = 0;
    } else if (++nic.next >= nic.active.size()) {
        nic.next = 0;
    }
    if (++packets_live_ > packets_peak_) packets_peak_ = packets_live_;
    return p;
}

void Network::service_port(std::uint32_t ch) {
    EgressPort& port = ports_[ch];
    const Time now = sim_.now();
    if (now < port.busy_until) {
        arm(ch, port.busy_until);
        return;
    }
    const bool from_nic = is_endpoint_channel(ch);
    Nic* nic = nullptr;
    std::uint32_t wire = 0;
    std::uint32_t vl = 0;
    if (!port.unlimited_credits)
        while (!port.returning.empty() && port.returning.front().at <= now) {
            const CreditReturn c = port.returning.pop_front();
            port.credits_bytes[c.vl] += c.bytes;
        }
    if (from_nic) {
        nic = &nics_[graph_.channels()[ch].from.index];
        wire = nic_next_wire_bytes(*nic);
        if (wire == 0) return;
        if (!port.unlimited_credits && port.credits_bytes[0] < static_cast<std::int64_t>(wire))
            wire = 0;
    } else {
        if (port.queued_bytes == 0) return;
        // Lanes in turn, skipping those without a packet or without credit for it.
        const std::uint32_t lanes = params_.virtual_lanes;
        for (std::uint32_t i = 0, v = port.next_vl; i < lanes;
             ++i, v = v + 1 == lanes ? 0 : v + 1) {
            const RingBuffer<Packet>& q = port.lane(v);
            if (q.empty()) continue;
            const std::uint32_t w = wire_bytes(q.front());
            if (port.unlimited_credits || port.credits_bytes[v] >= static_cast<std::int64_t>(w)) {
                wire = w;
                vl = v;
                break;
            }
        }
    }
    if (wire == 0) {  // something to send, but no credit for it yet
        port.waiting_for_credit = true;
        if (!port.returning.empty()) arm(ch, port.returning.front().at);
        return;
    }
    port.waiting_for_credit = false;
    if (!port.unlimited_credits) port.credits_bytes[vl] -= wire;
    Link& link = links_[ch];
    const Time tx_end = now + link.clock.time_for(wire);
    port.busy_until = tx_end;
    Packet p;
    if (from_nic) {
        p = nic_make_packet(*nic, tx_end);
    } else {
        p = port.lane(vl).pop_front();
        port.queued_bytes -= wire;
        port.next_vl = static_cast<std::uint8_t>(vl + 1 == params_.virtual_lanes ? 0 : vl + 1);
    }
    if (p.credit_channel != kNone) {
        // The packet leaves this switch's buffer: its space is credited back upstream.
        EgressPort& up = ports_[p.credit_channel];
        const Time at = now + up.credit_delay;
        up.returning.push_back(CreditReturn{at, wire, p.credit_vl});
        if (up.waiting_for_credit) arm(p.credit_channel, at);
    }
    p.credit_channel = port.unlimited_credits ? kNone : ch;
    p.credit_vl = static_cast<std::uint8_t>(vl);
    if (link.fabric_hop) ++p.fabric_hops;
    link.bytes_carried += wire;
    const bool was_idle = link.in_flight.empty();
    link.in_flight.push_back(InFlight{tx_end + link.arrival_delay, p});
    if (was_idle) sim_.schedule(tx_end + link.arrival_delay, ch, kLinkArrival);
    const bool more = from_nic ? !nic->active.empty() : port.queued_bytes > 0;
    if (more) arm(ch, tx_end);
}

void Network::on_link_arrival(std::uint32_t ch) {
    Link& link = links_[ch];
    InFlight f = link.in_flight.pop_front();
    if (!link.in_flight.empty()) sim_.schedule(link.in_flight.front().arrival, ch, kLinkArrival);
    ++counters_.packet_hops;
    if (link.to.kind == NodeKind::Switch)
        switch_receive(link.to.index, f.packet);
    else
        endpoint_receive(f.packet);
}

std::uint32_t Network::fabric_route(std::uint32_t sw, const Packet& p) const {
    const FabricSwitch& here = fabric_switches_[sw];
    // One attachment per destination (the common case) is stored at the destination's index.
    const std::uint32_t first = single_attachment_ ? p.dst : attach_first_[p.dst];
    const std::uint32_t last = single_attachment_ ? p.dst + 1 : attach_first_[p.dst + 1];
    for (std::uint32_t i = first; i < last; ++i) {
        const Attachment& a = attachments_[i];
        if (a.component != here.component) continue;
        if (a.fabric_switch == sw) return a.down_channel;
        const auto c = routes_.candidates(sw, a.edge);
        if (c.empty()) break;
        if (c.size() == 1) return c[0];
        const auto h = static_cast<std::uint32_t>(mix64(p.entropy ^ here.salt));
        return c[(static_cast<std::uint64_t>(h) * c.size()) >> 32];
    }
    throw std::logic_error("no route: the destination is not reachable in this plane");
}

std::uint32_t Network::route(std::uint32_t sw, const Packet& p) {
    if (!layout_) return fabric_route(sw, p);
    const NodeLayout& l = *layout_;
    const std::uint32_t b = p.dst;
    switch (l.role[sw]) {
        case SwitchRole::Fabric:
            return fabric_route(sw, p);
        case SwitchRole::GpuHub: {
            const std::uint32_t first =
                graph_.first_channel({NodeKind::Switch, sw});  // gpu, scale-up, nic
            if (l.hub[b] == sw) return first;
            if (l.node_of_gpu(b) == l.node_of[sw]) return first + 1;
            const std::uint32_t here = hub_gpu_[sw];
            if (l.pxn && l.plane_of_gpu(b) != l.plane_of_gpu(here)) return first + 1;
            return first + 2;
        }
        case SwitchRole::ScaleUp: {
            const std::uint32_t first =
                graph_.first_channel({NodeKind::Switch, sw});  // one per local GPU
            if (l.node_of_gpu(b) == l.node_of[sw]) return first + b % l.gpus_per_node;
            return first + l.gpu_for_plane(l.plane_of_gpu(b));
        }
        case SwitchRole::Nic: {
            const NicPorts& n = nic_ports_[sw];
            if (l.node_of_gpu(b) == l.node_of[sw])
                return n.first_hub + (b % l.gpus_per_node - n.first_gpu);
            if (n.network_count == 1) return n.first_network;
            // Several network ports (dual-plane, shuffle): spray packets across them in turn.
            std::uint32_t& next = nic_spray_[sw];
            const std::uint32_t out = n.first_network + next;
            next = next + 1 == n.network_count ? 0 : next + 1;
            return out;
        }
    }
    return kNone;
}

void Network::index_switches() {
    const auto channels = graph_.channels();
    const std::uint32_t switches = graph_.switch_count();
    const std::uint32_t fabric = layout_ ? layout_->fabric_switches : switches;
    // Planes: connected components of the fabric's switch-to-switch links.
    fabric_switches_.assign(switches, FabricSwitch{});
    auto component_of = [&](std::uint32_t s) -> std::uint32_t& {
        return fabric_switches_[s].component;
    };
    std::uint32_t components = 0;
    for (std::uint32_t s = 0; s < fabric; ++s) {
        if (component_of(s) != kNone) continue;
        std::vector<std::uint32_t> stack{s};
        component_of(s) = components;
        while (!stack.empty()) {
            const std::uint32_t u = stack.back();
            stack.pop_back();
            const NodeRef n{NodeKind::Switch, u};
            for (std::uint32_t c = graph_.first_channel(n);
                 c < graph_.first_channel(n) + graph_.channels_of(n); ++c) {
                const NodeRef to = channels[c].to;
                if (to.kind == NodeKind::Switch && to.index < fabric &&
                    component_of(to.index) == kNone) {
                    component_of(to.index) = components;
                    stack.push_back(to.index);
                }
            }
        }
        ++components;
    }
    // Where each destination endpoint meets the fabric: its own channels (bare NICs), or the
    // network ports of its NIC switch (node model).
    const std::uint32_t endpoints = graph_.endpoint_count();
    attach_first_.assign(endpoints + 1, 0);
    attachments_.clear();
    auto add_attachments_of = [&](NodeRef owner) {
        for (std::uint32_t c = graph_.first_channel(owner);
             c < graph_.first_channel(owner) + graph_.channels_of(owner); ++c) {
            const NodeRef to = channels[c].to;
            if (to.kind != NodeKind::Switch || to.index >= fabric) continue;
            attachments_.push_back(Attachment{to.index, channels[c].reverse, component_of(to.index),
                                              routes_.edge_index(to.index)});
        }
    };
    for (std::uint32_t e = 0; e < endpoints; ++e) {
        attach_first_[e] = static_cast<std::uint32_t>(attachments_.size());
        add_attachments_of(layout_ ? NodeRef{NodeKind::Switch, layout_->nic[e]}
                                   : NodeRef{NodeKind::Endpoint, e});
    }
    attach_first_[endpoints] = static_cast<std::uint32_t>(attachments_.size());
    single_attachment_ = attachments_.size() == endpoints;
    for (std::uint32_t e = 0; e < endpoints && single_attachment_; ++e)
        single_attachment_ = attach_first_[e] == e;
    if (!layout_) return;
    const NodeLayout& l = *layout_;
    hub_gpu_.assign(switches, kNone);
    for (std::uint32_t gpu = 0; gpu < endpoints; ++gpu) hub_gpu_[l.hub[gpu]] = gpu;
    nic_ports_.assign(switches, NicPorts{});
    nic_spray_.assign(switches, 0);
    for (std::uint32_t s = fabric; s < switches; ++s) {
        if (l.role[s] != SwitchRole::Nic) continue;
        NicPorts& n = nic_ports_[s];
        const NodeRef me{NodeKind::Switch, s};
        n.first_network = graph_.first_channel(me);
        for (std::uint32_t c = n.first_network; c < n.first_network + graph_.channels_of(me); ++c) {
            const NodeRef to = channels[c].to;
            if (to.index < fabric) {
                ++n.network_count;
            } else if (n.first_hub == kNone) {
                n.first_hub = c;
                n.first_gpu = hub_gpu_[to.index] % l.gpus_per_node;
            }
        }
    }
}

void Network::switch_receive(std::uint32_t sw, Packet& p) {
    const std::uint32_t out = route(sw, p);
    EgressPort& port = ports_[out];
    const std::uint32_t wire = wire_bytes(p);
    if (params_.flow_control == FlowControl::Lossy &&
        port.queued_bytes + wire > port.buffer_bytes) {
        ++port.drops;
        ++counters_.packets_dropped;
        counters_.payload_dropped += p.payload_bytes;
        --packets_live_;
        if (packet_dropped.connected()) packet_dropped.emit(out, p.message);
        return;
    }
    // Lane for the next hop: switch-to-switch hops taken so far (0 off the fabric's core).
    const std::uint32_t vl = links_[out].fabric_hop
                                 ? std::min<std::uint32_t>(p.fabric_hops, params_.virtual_lanes - 1)
                                 : 0;
    port.lane(vl).push_back(p);
    port.queued_bytes += wire;
    port.max_queue_bytes = std::max(port.max_queue_bytes, port.queued_bytes);
    if (port.wake_at == Time::never()) service_port(out);
}

void Network::endpoint_receive(const Packet& p) {
    const std::uint32_t m = p.message;
    counters_.payload_delivered += p.payload_bytes;
    MessageState& st = state_[m];
    st.bytes_received += p.payload_bytes;
    --packets_live_;
    if (st.bytes_received == workload_.messages[m].bytes) {
        if (params_.extra_latency > Time::zero())
            sim_.schedule(sim_.now() + params_.extra_latency, m, kMessageDone);
        else
            finish_message(m);
    }
}

void Network::start_message(std::uint32_t m) {
    const MessageSpec& spec = workload_.messages[m];
    MessageState& st = state_[m];
    if (st.started != Time::never()) return;  // started twice (e.g. two triggers): once counts
    st.started = sim_.now();
    if (spec.bytes == 0 || spec.src == spec.dst) {
        // Nothing crosses the network: done as soon as it starts.
        st.first_sent = st.last_sent = sim_.now();
        st.bytes_segmented = spec.bytes;
        st.bytes_received = spec.bytes;
        if (spec.send_done_trigger != kNone) activate(spec.send_done_trigger);
        finish_message(m);
        return;
    }
    if (layout_) {
        const Time overhead = layout_->node_of_gpu(spec.src) == layout_->node_of_gpu(spec.dst)
                                  ? layout_->scale_up_message_overhead
                                  : layout_->rdma_message_overhead;
        if (overhead > Time::zero()) {
            sim_.schedule(sim_.now() + overhead, m, kMessageEligible);
            return;
        }
    }
    make_eligible(m);
}

void Network::make_eligible(std::uint32_t m) {
    Nic& nic = nics_[workload_.messages[m].src];
    if (nic.channel == kNone) throw std::logic_error("message from an unattached endpoint");
    nic.active.push_back(m);
    if (ports_[nic.channel].wake_at == Time::never()) service_port(nic.channel);
}

void Network::finish_message(std::uint32_t m) {
    state_[m].finished = sim_.now();
    ++counters_.messages_finished;
    if (message_finished.connected()) message_finished.emit(m);
    const std::uint32_t t = workload_.messages[m].recv_done_trigger;
    if (t != kNone) activate(t);
}

void Network::activate(std::uint32_t t) {
    const TriggerSpec& spec = workload_.triggers[t];
    TriggerState& st = triggers_[t];
    const Time at = sim_.now() + spec.delay;
    switch (spec.kind) {
        case TriggerKind::OneShot:
            if (st.fired) return;
            st.fired = true;
            for (std::uint32_t m : spec.targets) sim_.schedule(at, m, kMessageStart);
            break;
        case TriggerKind::MultiShot:
            if (st.next_target < spec.targets.size())
                sim_.schedule(at, spec.targets[st.next_target++], kMessageStart);
            break;
        case TriggerKind::Barrier:
            if (st.remaining == 0) return;
            if (--st.remaining == 0)
                for (std::uint32_t m : spec.targets) sim_.schedule(at, m, kMessageStart);
            break;
    }
}

}  // namespace clustersim
