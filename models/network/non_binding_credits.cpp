#include "models/network/non_binding_credits.hpp"

#include <algorithm>

#include "sim/wide_int.hpp"

namespace clustersim {

Time worst_wait(const PortGraph& graph, std::uint32_t e, std::uint32_t largest_wire_bytes,
                std::uint32_t smallest_wire_bytes) {
    const auto channels = graph.channels();
    const Channel& out = channels[e];
    const SerialisationClock clock(out.rate);
    // Its inputs: every channel into the switch but those from where `e` leads (a packet does
    // not turn back: the caller has ruled out messages to oneself).
    const std::uint32_t first = graph.first_channel(out.from);
    const std::uint32_t count = graph.channels_of(out.from);
    std::uint32_t inputs = 0;
    uint128 input_bps = 0;
    for (std::uint32_t o = first; o < first + count; ++o) {
        if (channels[o].to == out.to) continue;
        ++inputs;
        input_bps += static_cast<uint128>(channels[channels[o].reverse].rate.bps());
    }
    // Serialisation rounds up to a picosecond, so the port is slowest per byte on the smallest
    // packet; its inputs, rounded likewise, are never faster than their nominal rates.
    const std::uint64_t smallest = std::max<std::uint32_t>(1, smallest_wire_bytes);
    const auto slowest_ps = static_cast<uint128>(clock.time_for(smallest).ps());
    if (input_bps * slowest_ps > static_cast<uint128>(smallest) * 8'000'000'000'000ULL)
        return Time::never();
    return Time::from_ps(static_cast<std::int64_t>(inputs + 1) *
                         clock.time_for(largest_wire_bytes).ps());
}

namespace {

// Credits of channel `c` never bind when what it can have outstanding, its rate over one loop
// (the largest packet's serialisation, the cable and the switch, the worst wait at the far
// end's exit, the credit's way back) and one packet, leaves room for the largest packet.
bool loop_fits(const PortGraph& graph, std::uint32_t c, Time exit_wait, std::uint32_t largest) {
    const Channel& ch = graph.channels()[c];
    const SwitchInfo& far = graph.switches()[ch.to.index];
    const Time loop = SerialisationClock(ch.rate).time_for(largest) + ch.propagation + far.latency +
                      exit_wait + ch.propagation;
    const std::int64_t held = ch.rate.bytes_in(loop) + largest;
    return static_cast<std::uint64_t>(held) + largest <= far.port_buffer_bytes;
}

}  // namespace

std::vector<std::uint32_t> non_binding_channels(const PortGraph& graph, const NodeLayout& layout,
                                                const NetworkParams& params,
                                                std::span<const Message> messages) {
    if (params.flow_control == FlowControl::Lossy) return {};  // no credits at all
    for (const Message& m : messages)
        if (m.src == m.dst) return {};
    const std::uint32_t largest = params.mtu_bytes + params.header_bytes;
    const std::uint32_t smallest = params.header_bytes;
    const auto channels = graph.channels();
    std::vector<char> never_blocks(channels.size(), 0);
    auto is = [&](NodeRef n, SwitchRole r) {
        return n.kind == NodeKind::Switch && layout.role[n.index] == r;
    };
    // A port into a GPU never blocks: the GPU is a sink (no credits), and pauses act only on
    // ports into fabric switches.
    for (std::uint32_t c = 0; c < channels.size(); ++c)
        never_blocks[c] = channels[c].to.kind == NodeKind::Endpoint;

    std::vector<std::uint32_t> proved;
    // NIC -> hub: at the hub, without faults, a packet from the NIC is for the hub's GPU and
    // leaves by the hub's first channel, to that GPU.
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        const Channel& ch = channels[c];
        if (!is(ch.from, SwitchRole::Nic) || !is(ch.to, SwitchRole::GpuHub)) continue;
        const std::uint32_t exit = graph.first_channel(ch.to);
        if (!never_blocks[exit]) continue;
        const Time wait = worst_wait(graph, exit, largest, smallest);
        if (wait == Time::never() || !loop_fits(graph, c, wait, largest)) continue;
        proved.push_back(c);
        never_blocks[c] = 1;
    }
    // Fabric -> NIC: at the NIC, without faults, a packet from the network is for a GPU the NIC
    // serves and leaves by one of its channels to hubs.
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        const Channel& ch = channels[c];
        if (!is(ch.from, SwitchRole::Fabric) || !is(ch.to, SwitchRole::Nic)) continue;
        const std::uint32_t first = graph.first_channel(ch.to);
        Time wait = Time::zero();
        bool exits_free = true;
        for (std::uint32_t o = first; o < first + graph.channels_of(ch.to); ++o) {
            if (!is(channels[o].to, SwitchRole::GpuHub)) continue;
            const Time w =
                never_blocks[o] ? worst_wait(graph, o, largest, smallest) : Time::never();
            if (w == Time::never()) {
                exits_free = false;
                break;
            }
            wait = std::max(wait, w);
        }
        if (!exits_free || !loop_fits(graph, c, wait, largest)) continue;
        proved.push_back(c);
    }
    std::sort(proved.begin(), proved.end());
    return proved;
}

}  // namespace clustersim
