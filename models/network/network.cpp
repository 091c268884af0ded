#include "models/network/network.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/network/non_binding_credits.hpp"
#include "models/network/process_load.hpp"
#include "models/routing/routing_policy.hpp"

namespace clustersim {

namespace {

// The shortest delay of a channel between two processes: a dependency this long or longer
// between two processes lets them run apart.
Time shortest_crossing(const PortGraph& graph, const LogicalProcesses& lp) {
    Time shortest = Time::never();
    for (const Channel& c : graph.channels())
        if (lp.of(c.from) != lp.of(c.to)) shortest = std::min(shortest, c.propagation);
    return shortest;
}

}  // namespace

std::string shared_state_reason(const NetworkParams& params) {
    if (params.cc_traits().int_telemetry)
        return "HPCC's hop records are written into the sender's state by every switch";
    if (routing_policies()[params.routing.policy].name == "ugal" &&
        params.routing.knobs.get<UgalKnobs>().global)
        return "UGAL-G reads the queues along the whole path";
    return "";
}

namespace {

// The run's partitions: as many as asked for (0: the default), one if the model shares state
// across processes; balanced by channels and expected events.
Partitions partitions_for(const PortGraph& graph, const LogicalProcesses& lp,
                          const TaskProcesses& tasks, const Workload& workload,
                          const NetworkParams& params, std::uint32_t wanted) {
    const std::string shared = shared_state_reason(params);
    const bool cut = shared.empty() && wanted != 1;
    return partition_processes(graph, lp, tasks.ties, shared,
                               cut ? expected_process_load(graph, lp, workload, params.mtu_bytes)
                                   : std::vector<std::uint64_t>{},
                               wanted);
}

}  // namespace

Network::Network(Simulator& sim, const PortGraph& graph, const ForwardingTables& routes,
                 const Workload& workload, const NetworkParams& params, const NodeLayout* layout,
                 const FaultPlan* faults, std::uint32_t partitions)
    : sim_(sim),
      graph_(graph),
      workload_(workload),
      params_(params),
      processes_(logical_processes(graph, layout)),
      tasks_(task_processes(workload, processes_.of_endpoint, processes_.count,
                            shortest_crossing(graph, processes_))),
      partitions_(partitions_for(graph, processes_, tasks_, workload, params, partitions)),
      fabric_(sim, graph, params, layout, processes_),
      forwarding_(graph, routes, params, layout, fabric_.ports()),
      transport_(graph, workload, params, layout),
      dag_(sim, workload, processes_.of_endpoint, tasks_.of_join),
      reliable_(params.reliable()),
      paced_(params.paced()),
      series_(graph, layout),
      faults_(faults && !faults->actions.empty() ? faults : nullptr) {
    sim.set_processes(processes_.count);
    sim.set_partitions(partitions_.of_process, partitions_.count, partitions_.lookahead);
    fabric_.set_cut(partitions_.cut, partitions_.count, partitions_.of_process);
    transport_.set_partitions(partitions_.count);
    dag_.set_partitions(partitions_.count);
    tally_.resize(partitions_.count);
    tasks_.ties = {};  // read once, by the partitioning
    if (faults_) {
        channel_fault_.assign(graph.channel_count(), kNone);
        fault_outcomes_.resize(faults_->faults);
    }
    forwarding_.sample_path_spread(static_cast<std::uint32_t>(workload.messages.size()));
    if (params.cc_traits().int_telemetry) {
        // Fabric switches' egress ports stamp the hop records (HPCC's INT).
        const auto channels = graph.channels();
        int_egress_.assign(channels.size(), 0);
        for (std::uint32_t c = 0; c < channels.size(); ++c)
            int_egress_[c] =
                channels[c].from.kind == NodeKind::Switch &&
                (!layout || layout->role[channels[c].from.index] == SwitchRole::Fabric);
    }
}

void Network::drop_non_binding_credits(const NodeLayout* layout) {
    if (!layout || faults_) return;
    for (const std::uint32_t c : non_binding_channels(graph_, *layout, params_, workload_.messages))
        fabric_.set_non_binding(c);
}

void Network::handle(const Event& e) {
    // Within a window partitions run apart, so times are not met in order.
    Tally& tally = tally_.here();
    if (e.kind != kSample && e.kind != kTierSample && e.time > tally.last_activity)
        tally.last_activity = e.time;
    switch (e.kind) {
        case kLinkArrival:
            on_link_arrival(e.target);
            break;
        case kPortWake:
            if (fabric_.take_wake(e.target, e.time)) service_port(e.target);
            break;
        case kActivate: {
            const TaskRef t = TaskRef::unpack(e.target);
            if (dag_.activate(t)) start_message(t.index);
            break;
        }
        case kMessageEligible:
            make_eligible(e.target);
            break;
        case kMessageDone:
            finish_message(e.target);
            break;
        case kSendDone:
            dag_.complete({TaskKind::Transfer, e.target}, Completion::Sent);
            break;
        case kComputeDone:
            dag_.compute_done(e.target);
            break;
        case kSample:
            sample();
            break;
        case kTierSample:
            sample_tiers();
            break;
        case kFault:
            apply_fault(e.target);
            break;
        case kPfcPause:
            fabric_.pause(e.target);
            break;
        case kPfcResume:
            if (fabric_.resume(e.target) && fabric_.idle(e.target)) service_port(e.target);
            break;
        case kRetransmitTimer: {
            Time next;
            const std::uint32_t ch = transport_.on_timer(e.target, sim_.now(), next);
            if (next != Time::never()) sim_.schedule(next, e.target, kRetransmitTimer);
            if (ch != kNone && fabric_.idle(ch)) service_port(ch);
            break;
        }
        default:
            throw std::logic_error("unknown event kind");
    }
    // With reliable connections, retransmission timers stay queued after their messages are
    // acknowledged; once everything is done and nothing is in flight the run is over, so a
    // timeout far beyond it costs no event and does not stretch its end. (Windowed: asked at
    // the window's end, where the partitions' counts add up.)
    if (reliable_ && !sim_.windowed() && tally.packets_live == 0 && all_finished())
        sim_.request_stop();
}

void Network::service_port(std::uint32_t ch) {
    if (!fabric_.ready(ch)) return;
    fabric_.collect_credits(ch);
    const bool from_sender = fabric_.is_endpoint_channel(ch);
    std::uint32_t wire = 0, vl = 0;
    if (from_sender) {
        if (paced_) {
            Time at;
            if (!transport_.select_eligible(ch, sim_.now(), at)) {
                if (at != Time::never()) fabric_.arm(ch, at);
                return;
            }
        }
        wire = transport_.next_wire_bytes(ch);
        if (wire == 0) return;
        if (!fabric_.has_credit(ch, 0, wire)) wire = 0;
    } else {
        if (!fabric_.has_queued(ch)) return;
        wire = fabric_.next_queued(ch, vl);
    }
    if (wire == 0) {  // something to send, but no credit for it yet
        fabric_.wait_for_credit(ch);
        return;
    }
    const Time tx_end = fabric_.begin_transmission(ch, wire, vl);
    Packet p;
    bool more = false;
    if (from_sender) {
        bool sent_all = false;
        p = transport_.take_packet(ch, sim_.now(), sent_all);
        if (sent_all && dag_.awaited({TaskKind::Transfer, p.message}, Completion::Sent))
            sim_.schedule(tx_end, p.message, kSendDone, sender_process(p.message));
        if (reliable_ && p.kind == PacketKind::Data && transport_.arm_timer(p.message, sim_.now()))
            sim_.schedule(sim_.now() + params_.first_timeout(), p.message, kRetransmitTimer,
                          sender_process(p.message));
        Tally& tally = tally_.here();
        if (++tally.packets_live > static_cast<std::int64_t>(packets_peak_) && !sim_.windowed())
            packets_peak_ = static_cast<std::size_t>(tally.packets_live);
        more = transport_.has_more(ch);
    } else {
        p = fabric_.pop_queued(ch, vl, wire);
        more = fabric_.has_queued(ch);
    }
    fabric_.launch(ch, p, wire, vl, tx_end);
    if (!int_egress_.empty() && int_egress_[ch] && p.kind == PacketKind::Data)
        transport_.record_hop(
            p.message, p.fabric_hops,
            IntHop{fabric_.ports()[ch].queued_bytes, fabric_.links()[ch].bytes_carried, sim_.now(),
                   static_cast<double>(graph_.channels()[ch].rate.bps())});
    if (more) fabric_.arm(ch, tx_end);
}

void Network::on_link_arrival(std::uint32_t slot) {
    NodeRef to;
    Packet p = fabric_.arrive(slot, to);
    if (to.kind == NodeKind::Switch) {
        const std::uint32_t out = forwarding_.route(to.index, p, sim_.now());
        if (!fabric_.enqueue(out, p)) {
            --tally_.here().packets_live;
            return;
        }
        if (fabric_.may_serve(out)) service_port(out);
        return;
    }
    --tally_.here().packets_live;
    bool done = false;
    if (p.kind == PacketKind::Data) {
        const Delivery d = transport_.receive(p, sim_.now());
        if (d.reply_channel != kNone && fabric_.idle(d.reply_channel))
            service_port(d.reply_channel);
        done = d.completes && !params_.complete_on_ack;
    } else {
        bool acked_all = false;
        const std::uint32_t resend = transport_.on_control(p, sim_.now(), acked_all);
        if (resend != kNone && fabric_.idle(resend)) service_port(resend);
        done = acked_all && params_.complete_on_ack;
    }
    if (!done) return;
    // Extra latency models a slower fabric, not a slower node: inter-node messages only.
    if (params_.extra_latency > Time::zero() && transport_.inter_node(p.message))
        sim_.schedule(sim_.now() + params_.extra_latency, p.message, kMessageDone,
                      receiver_process(p.message));
    else
        finish_message(p.message);
}

void Network::start_message(std::uint32_t m) {
    const Message& spec = workload_.messages[m];
    MessageState& st = transport_.state(m);
    if (st.started != Time::never()) return;  // started twice (e.g. two triggers): once counts
    st.started = sim_.now();
    if (spec.bytes == 0 || spec.src == spec.dst) {
        // Nothing crosses the network: done as soon as it starts.
        st.first_sent = sim_.now();
        dag_.complete({TaskKind::Transfer, m}, Completion::Sent);
        finish_message(m);
        return;
    }
    const Time at = transport_.eligible_at(m, sim_.now());
    if (at > sim_.now()) {
        sim_.schedule(at, m, kMessageEligible, sender_process(m));
        return;
    }
    make_eligible(m);
}

void Network::make_eligible(std::uint32_t m) {
    const std::uint32_t ch = transport_.enqueue(m);
    if (fabric_.idle(ch)) service_port(ch);
}

bool Network::only_samplers_pending() {
    --samplers_pending_;  // the one being handled
    return sim_.pending_everywhere() == samplers_pending_;
}

void Network::schedule_sample(Time at, NetworkEvent kind) {
    ++samplers_pending_;
    sim_.schedule(at, 0, kind, sim_.observer_process());
}

void Network::sample() {
    // Nothing but samplers pending: the run is over (or stalled); sampling must not keep it
    // alive.
    if (only_samplers_pending()) return;
    const auto ports = fabric_.ports();
    // A port's state is kept by the rank that runs it (the others' copies stay idle), so with
    // ranks each rank's rows are gathered everywhere, in channel order.
    std::vector<QueueSample> rows;
    for (std::uint32_t c = 0; c < ports.size(); ++c) {
        if (ports[c].queued_bytes == 0 && !ports[c].paused && ports[c].drops == 0 &&
            ports[c].ecn_marks == 0)
            continue;
        rows.push_back(QueueSample{sim_.now(), c, ports[c].queued_bytes, ports[c].paused,
                                   ports[c].drops, ports[c].ecn_marks});
        if (!sim_.ranks() && rows.size() + samples_.size() > params_.sample_rows) break;
    }
    if (Ranks* ranks = sim_.ranks()) {
        rows = gather_records<QueueSample>(*ranks, rows);
        std::sort(rows.begin(), rows.end(),
                  [](const QueueSample& a, const QueueSample& b) { return a.channel < b.channel; });
    }
    for (const QueueSample& row : rows) {
        if (samples_.size() >= params_.sample_rows) {
            samples_truncated_ = true;
            return;
        }
        samples_.push_back(row);
    }
    schedule_sample(sim_.now() + params_.sample_period, kSample);
}

void Network::sample_tiers() {
    if (only_samplers_pending()) return;
    series_.sample(sim_.now(), fabric_.links(), fabric_.ports(), sim_.ranks());
    schedule_sample(series_.next_sample(), kTierSample);
}

void Network::finish_message(std::uint32_t m) {
    transport_.state(m).finished = sim_.now();
    ++tally_.here().messages_finished;
    dag_.complete({TaskKind::Transfer, m}, Completion::Done);
}

void Network::apply_fault(std::uint32_t action) {
    const FaultAction& a = faults_->actions[action];
    const std::uint32_t ch = a.target;
    std::uint64_t payload = 0;
    switch (a.kind) {
        case FaultActionKind::ChannelDown:
            tally_.here().packets_live -=
                static_cast<std::int64_t>(fabric_.set_down(ch, true, payload));
            channel_fault_[ch] = a.fault;
            break;
        case FaultActionKind::ChannelUp:
            fabric_.set_down(ch, false, payload);
            if (fabric_.idle(ch)) service_port(ch);
            break;
        case FaultActionKind::ChannelRate:
            fabric_.set_rate(
                ch, DataRate::from_bps(static_cast<std::int64_t>(
                        static_cast<double>(graph_.channels()[ch].rate.bps()) * a.factor)));
            break;
        case FaultActionKind::ChannelDelay:
            fabric_.add_delay(ch, a.delay);
            break;
        case FaultActionKind::GpuSlowdown:
            dag_.set_slowdown(a.target, a.factor);
            break;
        case FaultActionKind::GpuHold: {
            // The GPU's own channels (it sends nothing; nothing queues at them).
            const NodeRef gpu{NodeKind::Endpoint, a.target};
            const std::uint32_t first = graph_.first_channel(gpu);
            for (std::uint32_t c = first; c < first + graph_.channels_of(gpu); ++c) {
                fabric_.set_down(c, a.factor != 0, payload);
                if (a.factor == 0 && fabric_.idle(c)) service_port(c);
            }
            break;
        }
        case FaultActionKind::ChannelLoss:
            fabric_.set_loss(ch, a.factor);
            if (a.factor > 0) channel_fault_[ch] = a.fault;
            break;
        case FaultActionKind::ChannelSink:
            fabric_.set_sink(ch);
            if (fabric_.idle(ch)) service_port(ch);
            break;
        case FaultActionKind::PlaneReroute:
            forwarding_.reroute_plane(a.target, a.factor != 0, a.fault);
            if (a.factor != 0) fault_outcomes_[a.fault].recovered_at = sim_.now();
            break;
        case FaultActionKind::BondPort:
            forwarding_.set_nic_port_down(ch, a.factor != 0, a.fault);
            if (a.factor != 0) fault_outcomes_[a.fault].recovered_at = sim_.now();
            break;
        case FaultActionKind::Fail:
            fault_outcomes_[a.fault].failed_instance = true;
            failed_ = true;
            sim_.request_stop();
            break;
        case FaultActionKind::Routes:
            forwarding_.set_routes(faults_->tables[a.target], a.fault);
            if (a.factor != 0) fault_outcomes_[a.fault].recovered_at = sim_.now();
            break;
    }
}

std::vector<FaultOutcome> Network::fault_outcomes() const {
    std::vector<FaultOutcome> out = fault_outcomes_;
    const auto ports = fabric_.ports();
    for (std::uint32_t c = 0; c < channel_fault_.size(); ++c)
        if (channel_fault_[c] != kNone) out[channel_fault_[c]].packets_lost += ports[c].fault_drops;
    const std::vector<std::uint64_t> rerouted = forwarding_.rerouted_bytes();
    for (std::size_t f = 0; f < rerouted.size() && f < out.size(); ++f)
        out[f].bytes_rerouted = rerouted[f];
    return out;
}

NetworkCounters Network::counters() const {
    const FabricCounters f = fabric_.counters();
    const TransportCounters t = transport_.counters();
    NetworkCounters c;
    c.payload_sent = t.payload_sent;
    c.payload_delivered = t.payload_delivered;
    c.payload_dropped = f.payload_dropped;
    c.pfc_pauses = f.pfc_pauses;
    c.pfc_headroom_drops = f.pfc_headroom_drops;
    c.ecn_marks = f.ecn_marks;
    c.cnps = t.cnps;
    c.packets_sent = t.packets_sent;
    c.packets_dropped = f.packets_dropped;
    c.duplicate_packets = t.duplicate_packets;
    c.retransmitted_packets = t.retransmitted_packets;
    c.payload_redundant = t.payload_redundant;
    c.discarded_out_of_order = t.discarded_out_of_order;
    c.acks = t.acks;
    c.nacks = t.nacks;
    c.timeouts = t.timeouts;
    c.connections_failed = t.connections_failed;
    c.packet_hops = f.packet_hops;
    c.messages_finished = total().messages_finished;
    c.computes_finished = dag_.computes_finished();
    return c;
}

}  // namespace clustersim
