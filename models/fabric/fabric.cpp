#include "models/fabric/fabric.hpp"

#include <algorithm>
#include <stdexcept>

namespace clustersim {

Fabric::Fabric(Simulator& sim, const PortGraph& graph, const NetworkParams& params,
               const NodeLayout* layout, const LogicalProcesses& processes)
    : sim_(sim), params_(params), ecn_(params.ecn()) {
    if (params_.virtual_lanes == 0 || params_.virtual_lanes > kMaxVirtualLanes)
        throw std::invalid_argument("virtual_lanes must be between 1 and kMaxVirtualLanes");
    const auto channels = graph.channels();
    if (graph.switch_count() >= (1u << 31) || graph.endpoint_count() >= (1u << 31))
        throw std::length_error("more than 2^31 switches or endpoints");  // InFlight::to_index
    links_.resize(channels.size());
    ports_.resize(channels.size());
    transmitter_.resize(channels.size());
    if (params_.virtual_lanes > 1) {
        upper_lanes_.resize(channels.size());
        upper_credits_.resize(channels.size());
    }
    first_endpoint_channel_ = static_cast<std::uint32_t>(channels.size());
    const bool lossless = params_.flow_control != FlowControl::Lossy;
    may_drop_ = !lossless;
    const bool pfc = params_.flow_control == FlowControl::Pfc;
    if (pfc) {
        pfc_.resize(channels.size());
        shared_.resize(graph.switch_count());
        resume_gap_ = 2 * static_cast<std::int64_t>(params_.mtu_bytes + params_.header_bytes);
    }
    std::vector<DataRate> fastest_out(graph.switch_count());
    for (const Channel& ch : channels)
        if (ch.from.kind == NodeKind::Switch && fastest_out[ch.from.index] < ch.rate)
            fastest_out[ch.from.index] = ch.rate;
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        const Channel& ch = channels[c];
        Link& l = links_[c];
        l.clock = SerialisationClock(ch.rate);
        l.to = ch.to;
        l.process = processes.of(ch.to);
        transmitter_[c] = processes.of(ch.from);
        l.arrival_delay = ch.propagation;
        l.fabric_hop = ch.from.kind == NodeKind::Switch && ch.to.kind == NodeKind::Switch &&
                       (!layout || (layout->role[ch.from.index] == SwitchRole::Fabric &&
                                    layout->role[ch.to.index] == SwitchRole::Fabric));
        EgressPort& port = ports_[c];
        port.credit_delay = ch.propagation;
        if (ch.to.kind == NodeKind::Switch) {
            const SwitchInfo& sw = graph.switches()[ch.to.index];
            l.arrival_delay = ch.propagation + sw.latency;
            // Cut through only where no output of the switch is faster than this input (a
            // faster output would run dry before the tail arrives): else store and forward.
            l.cut_through = sw.cut_through && ch.rate >= fastest_out[ch.to.index];
            port.unlimited_credits = !lossless;
            // A switch-to-switch hop splits the input buffer evenly among the virtual lanes;
            // every other hop uses lane 0 only, which gets it all.
            if (l.fabric_hop) {
                const auto share =
                    static_cast<std::int64_t>(sw.port_buffer_bytes / params_.virtual_lanes);
                port.credits_bytes = share;
                if (params_.virtual_lanes > 1)
                    std::fill_n(upper_credits_[c].begin(), params_.virtual_lanes - 1, share);
            } else {
                port.credits_bytes = static_cast<std::int64_t>(sw.port_buffer_bytes);
            }
        }
        const bool into_fabric_switch =
            ch.to.kind == NodeKind::Switch &&
            (!layout || layout->role[ch.to.index] == SwitchRole::Fabric);
        if (pfc && into_fabric_switch) {
            // The ingress of a shared-buffer switch: no credits; its per-port share joins the
            // switch's pool, less the headroom the ingress keeps for what arrives while a
            // pause travels: the cable both ways, the switch's latency, a packet being sent
            // at each end (IEEE 802.1Qbb headroom).
            const SwitchInfo& sw = graph.switches()[ch.to.index];
            port.unlimited_credits = true;
            PfcIngress& in = pfc_[c];
            in.sw = ch.to.index;
            const Time flight = ch.propagation + ch.propagation + sw.latency;
            in.headroom = ch.rate.bytes_in(flight) + resume_gap_;
            shared_[in.sw].size += static_cast<std::int64_t>(sw.port_buffer_bytes) - in.headroom;
        }
        if (ch.from.kind == NodeKind::Switch) {
            port.buffer_bytes = graph.switches()[ch.from.index].port_buffer_bytes;
            if (!lossless) port.drop_above_bytes = port.buffer_bytes;
        } else
            first_endpoint_channel_ = std::min(first_endpoint_channel_, c);
    }
}

void Fabric::discard(const Packet& p, std::uint32_t wire) {
    if (p.credit_channel == kNone || (p.credit_vl & Packet::kNoCreditHeld)) return;
    if (!pfc_.empty() && pfc_[p.credit_channel].sw != kNone) {
        pfc_release(p.credit_channel, wire);
        return;
    }
    if (ports_[p.credit_channel].unlimited_credits) return;
    return_credit(p.credit_channel, wire, p.credit_vl);
}

void Fabric::set_non_binding(std::uint32_t ch) {
    EgressPort& port = ports_[ch];
    if (port.unlimited_credits) return;  // keeps none already (lossy mode)
#ifdef NDEBUG
    port.unlimited_credits = true;
    port.credits_not_kept = true;
#else
    if (proved_non_binding_.empty()) proved_non_binding_.resize(ports_.size());
    proved_non_binding_[ch] = true;
#endif
}

void Fabric::set_cut(std::vector<bool> cut, std::uint32_t partitions,
                     std::span<const std::uint32_t> of_process) {
    if (partitions > 256) throw std::length_error("more than 256 partitions (a port's 8 bits)");
    cut_ = std::move(cut);
    counters_.resize(partitions);
    handed_.resize(partitions);
    chunks_.resize(partitions);
    flying_.set_partitions(partitions);
    for (std::uint32_t c = 0; c < ports_.size(); ++c)
        ports_[c].partition = static_cast<std::uint8_t>(of_process[transmitter_[c]]);
}

void Fabric::end_window() {
    // In the order returned: per channel that is time order (one switch returns them all, in
    // one partition).
    for (std::uint32_t q = 0; q < handed_.size(); ++q) {
        for (const HandedCredit& h : handed_[q]) {
            push_return(h.channel, h.credit);
            if (ports_[h.channel].waiting_for_credit) arm(h.channel, h.credit.at);
        }
        handed_[q].clear();
    }
    flying_.settle();
}

void Fabric::pack_handoffs(std::span<ByteWriter> per_rank) {
    const Ranks& ranks = *sim_.ranks();
    const std::uint32_t me = ranks.rank(), count = ranks.count();
    // Per rank: [credits: count, then (partition, credit)...][slots: count, then (partition,
    // slot)...]
    std::vector<std::vector<std::pair<std::uint32_t, HandedCredit>>> credits(count);
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> slots(count);
    for (std::uint32_t q = 0; q < handed_.size(); ++q) {
        if (!sim_.local(q)) continue;
        std::vector<HandedCredit>& list = handed_[q];
        std::size_t kept = 0;
        for (const HandedCredit& h : list) {
            const std::uint32_t rank = sim_.rank_of(ports_[h.channel].partition);
            if (rank == me)
                list[kept++] = h;
            else
                credits[rank].push_back({q, h});
        }
        list.resize(kept);
        flying_.hand_back(
            q, [&](std::uint32_t owner) { return !sim_.local(owner); },
            [&](std::uint32_t slot) {
                slots[sim_.rank_of(slot >> PartitionedPool<InFlight>::kIndexBits)].push_back(
                    {q, slot});
            });
    }
    for (std::uint32_t rank = 0; rank < count; ++rank) {
        if (rank == me) continue;
        ByteWriter& w = per_rank[rank];
        w.put(static_cast<std::uint64_t>(credits[rank].size()));
        for (const auto& [q, h] : credits[rank]) {
            w.put(q);
            w.put(h);
        }
        w.put(static_cast<std::uint64_t>(slots[rank].size()));
        for (const auto& [q, slot] : slots[rank]) {
            w.put(q);
            w.put(slot);
        }
    }
}

void Fabric::unpack_handoffs(ByteReader& in) {
    for (auto n = in.get<std::uint64_t>(); n > 0; --n) {
        const auto q = in.get<std::uint32_t>();
        handed_[q].push_back(in.get<HandedCredit>());
    }
    for (auto n = in.get<std::uint64_t>(); n > 0; --n) {
        const auto q = in.get<std::uint32_t>();
        flying_.returned_by(q, in.get<std::uint32_t>());
    }
}

std::uint64_t Fabric::tail_drop_limit(std::uint32_t ch) const {
    const EgressPort& port = ports_[ch];
    const bool tail_drop = params_.flow_control == FlowControl::Lossy && !is_endpoint_channel(ch);
    return tail_drop ? port.buffer_bytes : ~std::uint64_t{0};
}

bool Fabric::refuse(std::uint32_t out, const Packet& p, std::uint32_t wire) {
    EgressPort& port = ports_[out];
    if (!port.down && port.loss_threshold != 0) {
        const std::uint64_t draw = mix64(params_.seed ^ (std::uint64_t{out} << 40) ^
                                         (0x9e3779b97f4a7c15ull * ++port.loss_draws));
        const bool lost = (draw >> 32) < port.loss_threshold;
        if (!lost && port.queued_bytes + wire <= tail_drop_limit(out)) return false;
        if (lost) {
            ++port.fault_drops;
            ++counters_.here().packets_dropped;
            counters_.here().payload_dropped += p.payload_bytes;
            discard(p, wire);
            return true;
        }
    }
    ++counters_.here().packets_dropped;
    counters_.here().payload_dropped += p.payload_bytes;
    if (!port.down) {
        ++port.drops;  // tail drop (lossy mode)
        return true;
    }
    ++port.fault_drops;
    discard(p, wire);
    return true;
}

std::uint64_t Fabric::set_down(std::uint32_t ch, bool down, std::uint64_t& payload) {
    EgressPort& port = ports_[ch];
    may_drop_ = true;
    port.down = down;
    port.drop_above_bytes = down || port.loss_threshold ? 0 : tail_drop_limit(ch);
    std::uint64_t lost = 0;
    payload = 0;
    if (!down) return 0;
    for (std::uint32_t vl = 0; vl < params_.virtual_lanes; ++vl) {
        ChunkedFifo<Packet>& q = lane(ch, vl);
        while (!q.empty()) {
            const Packet p = q.pop_front(chunks_[port.partition]);
            const std::uint32_t wire = wire_bytes(p);
            port.queued_bytes -= wire;
            discard(p, wire);
            ++lost;
            payload += p.payload_bytes;
        }
    }
    port.fault_drops += lost;
    counters_.here().packets_dropped += lost;
    counters_.here().payload_dropped += payload;
    return lost;
}

void Fabric::set_loss(std::uint32_t ch, double rate) {
    EgressPort& port = ports_[ch];
    may_drop_ = true;
    port.loss_threshold = static_cast<std::uint32_t>(std::min(4294967295.0, rate * 4294967296.0));
    port.drop_above_bytes = port.down || port.loss_threshold ? 0 : tail_drop_limit(ch);
}

void Fabric::set_rate(std::uint32_t ch, DataRate rate) {
    links_[ch].clock = SerialisationClock(rate);
}

void Fabric::add_delay(std::uint32_t ch, Time delta) {
    links_[ch].arrival_delay = links_[ch].arrival_delay + delta;
    ports_[ch].credit_delay = ports_[ch].credit_delay + delta;
}

}  // namespace clustersim
