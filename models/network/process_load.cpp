#include "models/network/process_load.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "sim/wide_int.hpp"

namespace clustersim {

namespace {

// Loads are kept in thousandths of an event so that a switch's share of a few packets, split
// over the several switches a node attaches to, does not round away.
constexpr std::uint64_t kMilli = 1000;
// At most this many bytes of hop distances (attachment sets x fabric switches); past it the
// switches between attachment switches are left uncharged.
constexpr std::uint64_t kMaxDistanceBytes = std::uint64_t{64} << 20;
constexpr std::uint8_t kFar = std::numeric_limits<std::uint8_t>::max();

}  // namespace

std::vector<std::uint64_t> expected_process_load(const PortGraph& graph, const LogicalProcesses& lp,
                                                 const Workload& workload,
                                                 std::uint32_t mtu_bytes) {
    const auto channels = graph.channels();
    const std::uint32_t vertices = graph.vertex_count();
    const std::uint32_t endpoints = graph.endpoint_count();
    auto process_of = [&](std::uint32_t v) { return lp.of(graph.node_at(v)); };

    // Processes that hold endpoints; every other switch is the fabric's.
    std::vector<bool> endpoint_process(lp.count, false);
    for (std::uint32_t e = 0; e < endpoints; ++e) endpoint_process[lp.of_endpoint[e]] = true;
    std::vector<std::uint32_t> fabric_index(vertices, kNone);
    std::vector<std::uint32_t> fabric_vertex;
    for (std::uint32_t s = 0; s < graph.switch_count(); ++s)
        if (!endpoint_process[lp.of_switch[s]]) {
            fabric_index[s] = static_cast<std::uint32_t>(fabric_vertex.size());
            fabric_vertex.push_back(s);
        }

    // Per endpoint: channels from it to the nearest way out of its process, and from it to
    // each endpoint of its own process (a symmetric graph: the way in is as long).
    std::vector<std::vector<std::uint32_t>> members(lp.count);
    std::vector<std::uint32_t> local(endpoints, 0);
    for (std::uint32_t e = 0; e < endpoints; ++e) {
        auto& m = members[lp.of_endpoint[e]];
        local[e] = static_cast<std::uint32_t>(m.size());
        m.push_back(e);
    }
    std::vector<std::uint32_t> exit_hops(endpoints, 0);
    std::vector<std::vector<std::uint32_t>> inside(endpoints);  // hops to the process's members
    std::vector<std::uint32_t> depth(vertices, kNone), stamp(vertices, kNone), frontier;
    for (std::uint32_t e = 0; e < endpoints; ++e) {
        const std::uint32_t p = lp.of_endpoint[e];
        inside[e].assign(members[p].size(), 0);
        frontier.assign(1, graph.vertex({NodeKind::Endpoint, e}));
        stamp[frontier[0]] = e;
        depth[frontier[0]] = 0;
        std::uint32_t exit = 0;
        for (std::size_t at = 0; at < frontier.size(); ++at) {
            const std::uint32_t u = frontier[at];
            const NodeRef ur = graph.node_at(u);
            if (ur.kind == NodeKind::Endpoint) inside[e][local[ur.index]] = depth[u];
            if (ur.kind == NodeKind::Endpoint && ur.index != e) continue;  // GPUs do not forward
            const std::uint32_t first = graph.first_channel(ur);
            for (std::uint32_t c = first; c < first + graph.channels_of(ur); ++c) {
                const std::uint32_t v = graph.vertex(channels[c].to);
                if (process_of(v) != p) {
                    if (exit == 0) exit = depth[u] + 1;
                    continue;
                }
                if (stamp[v] == e) continue;
                stamp[v] = e;
                depth[v] = depth[u] + 1;
                frontier.push_back(v);
            }
        }
        exit_hops[e] = std::max(exit, 1u);
    }

    // Per endpoint process: the fabric switches its channels lead to; processes with the same
    // set share one table of hop distances from it to every fabric switch.
    std::map<std::vector<std::uint32_t>, std::uint32_t> set_id;
    std::vector<std::vector<std::uint32_t>> sets;
    std::vector<std::uint32_t> set_of(lp.count, kNone);
    {
        std::vector<std::vector<std::uint32_t>> attach(lp.count);
        for (const Channel& c : channels) {
            const std::uint32_t from = lp.of(c.from), to = graph.vertex(c.to);
            if (endpoint_process[from] && fabric_index[to] != kNone)
                attach[from].push_back(fabric_index[to]);
        }
        for (std::uint32_t p = 0; p < lp.count; ++p) {
            if (!endpoint_process[p] || attach[p].empty()) continue;
            std::sort(attach[p].begin(), attach[p].end());
            attach[p].erase(std::unique(attach[p].begin(), attach[p].end()), attach[p].end());
            const auto [it, fresh] =
                set_id.try_emplace(attach[p], static_cast<std::uint32_t>(sets.size()));
            if (fresh) sets.push_back(attach[p]);
            set_of[p] = it->second;
        }
    }
    const std::uint64_t fabric = fabric_vertex.size();
    const bool distances = sets.size() * fabric <= kMaxDistanceBytes;
    std::vector<std::uint8_t> hops(distances ? sets.size() * fabric : 0, kFar);
    for (std::size_t s = 0; distances && s < sets.size(); ++s) {
        std::uint8_t* d = hops.data() + s * fabric;
        frontier.clear();
        for (const std::uint32_t f : sets[s]) {
            d[f] = 0;
            frontier.push_back(f);
        }
        for (std::size_t at = 0; at < frontier.size(); ++at) {
            const std::uint32_t f = frontier[at];
            if (d[f] == kFar - 1) continue;
            const NodeRef ur{NodeKind::Switch, fabric_vertex[f]};
            const std::uint32_t first = graph.first_channel(ur);
            for (std::uint32_t c = first; c < first + graph.channels_of(ur); ++c) {
                const std::uint32_t g = fabric_index[graph.vertex(channels[c].to)];
                if (g == kNone || d[g] != kFar) continue;
                d[g] = static_cast<std::uint8_t>(d[f] + 1);
                frontier.push_back(g);
            }
        }
    }

    std::vector<std::uint64_t> load(lp.count, 0);  // thousandths of an event
    std::vector<std::uint64_t> fabric_load(fabric, 0);
    std::uint64_t between = 0;  // at switches between the attachment switches
    const std::uint64_t mtu = std::max<std::uint32_t>(mtu_bytes, 1);
    for (const Message& m : workload.messages) {
        const std::uint64_t packets = std::max<std::uint64_t>(1, (m.bytes + mtu - 1) / mtu);
        const std::uint64_t visit = 2 * kMilli * packets;  // arrival and service at a node
        const std::uint32_t p = lp.of_endpoint[m.src], q = lp.of_endpoint[m.dst];
        if (p == q) {  // the sender's service, the nodes between, the receiver's arrival
            const std::uint64_t d = std::max(inside[m.src][local[m.dst]], 1u);
            load[p] += visit * d;
            continue;
        }
        load[p] += visit * exit_hops[m.src] - visit / 2;
        load[q] += visit * exit_hops[m.dst] - visit / 2;
        if (set_of[p] == kNone || set_of[q] == kNone) continue;
        const auto& from = sets[set_of[p]];
        const auto& to = sets[set_of[q]];
        for (const std::uint32_t f : from) fabric_load[f] += visit / from.size();
        if (!distances) {  // past the cap: the last switch charged, those between not
            if (set_of[p] != set_of[q])
                for (const std::uint32_t f : to) fabric_load[f] += visit / to.size();
            continue;
        }
        const std::uint8_t* d = hops.data() + std::size_t{set_of[p]} * fabric;
        std::uint8_t nearest = kFar;
        for (const std::uint32_t f : to) nearest = std::min(nearest, d[f]);
        if (nearest == kFar || nearest == 0) continue;  // unreachable, or one switch
        for (const std::uint32_t f : to) fabric_load[f] += visit / to.size();
        between += visit * (nearest - 1u);
    }

    // The switches between: those no endpoint attaches to (all, if every one has endpoints),
    // by the channels they transmit on.
    std::vector<bool> attachment(fabric, false);
    for (const auto& s : sets)
        for (const std::uint32_t f : s) attachment[f] = true;
    const bool any_inner =
        std::find(attachment.begin(), attachment.end(), false) != attachment.end();
    std::uint64_t inner_channels = 0;
    for (std::uint32_t f = 0; f < fabric; ++f)
        if (!any_inner || !attachment[f])
            inner_channels += graph.channels_of({NodeKind::Switch, fabric_vertex[f]});
    for (std::uint32_t f = 0; f < fabric && inner_channels > 0; ++f) {
        if (any_inner && attachment[f]) continue;
        const std::uint64_t ch = graph.channels_of({NodeKind::Switch, fabric_vertex[f]});
        // Wide product: a step's visits times a switch's channels can pass 2^64 only far
        // beyond any workload that fits in memory; the quotient is at most `between`.
        fabric_load[f] +=
            static_cast<std::uint64_t>(static_cast<uint128>(between) * ch / inner_channels);
    }
    for (std::uint32_t f = 0; f < fabric; ++f)
        load[lp.of_switch[fabric_vertex[f]]] += fabric_load[f];
    for (std::uint64_t& l : load) l = (l + kMilli / 2) / kMilli;
    return load;
}

}  // namespace clustersim
