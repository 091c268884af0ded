#include "models/fabric/fabric.hpp"

#include <algorithm>
#include <stdexcept>

namespace clustersim {

Fabric::Fabric(Simulator& sim, const PortGraph& graph, const NetworkParams& params,
               const NodeLayout* layout)
    : sim_(sim), params_(params), ecn_(params.ecn()) {
    if (params_.virtual_lanes == 0 || params_.virtual_lanes > kMaxVirtualLanes)
        throw std::invalid_argument("virtual_lanes must be between 1 and kMaxVirtualLanes");
    const auto channels = graph.channels();
    links_.resize(channels.size());
    ports_.resize(channels.size());
    first_endpoint_channel_ = static_cast<std::uint32_t>(channels.size());
    const bool lossless = params_.flow_control != FlowControl::Lossy;
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
            if (l.fabric_hop)
                port.credits_bytes.fill(
                    static_cast<std::int64_t>(sw.port_buffer_bytes / params_.virtual_lanes));
            else
                port.credits_bytes[0] = static_cast<std::int64_t>(sw.port_buffer_bytes);
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
        if (ch.from.kind == NodeKind::Switch)
            port.buffer_bytes = graph.switches()[ch.from.index].port_buffer_bytes;
        else
            first_endpoint_channel_ = std::min(first_endpoint_channel_, c);
    }
}

}  // namespace clustersim
