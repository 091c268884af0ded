#include "tools/scenario/results_csv.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tools/scenario/csv_writer.hpp"

namespace clustersim {

NicLoad nic_load(const Topology& fabric, const Topology& simulated, const SimulationResult& r) {
    const auto fabric_ch = fabric.graph.channels();
    const auto sim_ch = simulated.graph.channels();
    const std::uint32_t nics = fabric.graph.endpoint_count();
    NicLoad l{std::vector<std::uint64_t>(nics, 0), std::vector<std::uint64_t>(nics, 0),
              std::vector<double>(nics, 0)};
    for (std::uint32_t c = 0; c < fabric_ch.size(); ++c) {
        const Channel& ch = fabric_ch[c];
        if (ch.from.kind != NodeKind::Switch || ch.to.kind != NodeKind::Endpoint) continue;
        l.received[ch.to.index] += r.channels[c].bytes;
        l.sent[ch.to.index] += r.channels[sim_ch[c].reverse].bytes;
        l.rate_bps[ch.to.index] += static_cast<double>(ch.rate.bps());
    }
    return l;
}

std::string node_tier(const Topology& fabric, const Topology& simulated, const NodeLayout* layout,
                      NodeRef n) {
    if (n.kind == NodeKind::Endpoint) return layout ? "gpu" : "nic";
    if (layout) {
        switch (layout->role[n.index]) {
            case SwitchRole::Fabric:
                break;
            case SwitchRole::GpuHub:
                return "gpu-hub";
            case SwitchRole::ScaleUp:
                return "scale-up";
            case SwitchRole::Nic:
                return "nic";
        }
    }
    const std::uint32_t tier = simulated.graph.switches()[n.index].tier;
    const auto& tiers = fabric.inventory.tiers;
    return tier < tiers.size() ? tiers[tier].name : fmt::format("tier{}", tier);
}

std::string part_name(const NodeLayout* layout, NodeRef n) {
    if (n.kind == NodeKind::Endpoint) return fmt::format("{}-{}", layout ? "gpu" : "nic", n.index);
    if (!layout || layout->role[n.index] == SwitchRole::Fabric)
        return fmt::format("switch-{}", n.index);
    switch (layout->role[n.index]) {
        case SwitchRole::Nic:
            return fmt::format("nic-{}", n.index - layout->fabric_switches);
        case SwitchRole::ScaleUp:
            return fmt::format("scale-up-{}", layout->node_of[n.index]);
        default: {
            const auto it = std::find(layout->hub.begin(), layout->hub.end(), n.index);
            return fmt::format("gpu-hub-{}", it - layout->hub.begin());
        }
    }
}

std::string channel_tier(const Topology& fabric, const Topology& simulated,
                         const NodeLayout* layout, std::uint32_t channel) {
    const Channel& ch = simulated.graph.channels()[channel];
    return node_tier(fabric, simulated, layout, ch.from) + "-" +
           node_tier(fabric, simulated, layout, ch.to);
}

std::string links_csv(const Topology& fabric, const Topology& simulated, const NodeLayout* layout,
                      const SimulationResult& r) {
    CsvWriter csv({"channel", "from", "to", "tier", "rate_gbps", "bytes", "utilisation",
                   "max_queue_bytes", "pauses", "paused_us", "drops", "ecn_marks"});
    const auto channels = simulated.graph.channels();
    auto name = [&](NodeRef n) { return part_name(layout, n); };
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        const Channel& ch = channels[c];
        const ChannelUsage& u = r.channels[c];
        csv.integer(c)
            .text(name(ch.from))
            .text(name(ch.to))
            .text(channel_tier(fabric, simulated, layout, c))
            .real(ch.rate.gbps())
            .integer(u.bytes)
            .fixed(u.utilisation)
            .integer(u.max_queue_bytes)
            .integer(u.pauses)
            .fixed(u.paused.us())
            .integer(u.drops)
            .integer(u.ecn_marks)
            .end_row();
    }
    return csv.str();
}

std::string nics_csv(const Topology& fabric, const Topology& simulated, const NodeLayout* layout,
                     const Workload& w, const SimulationResult& r, std::uint32_t nics_per_node,
                     std::uint32_t gpus_per_node) {
    CsvWriter csv({"kind", "index", "node", "bytes_sent", "bytes_received", "busy_us"});
    const auto sim_ch = simulated.graph.channels();
    const std::uint32_t nics = fabric.graph.endpoint_count();
    const NicLoad load = nic_load(fabric, simulated, r);
    const auto& sent = load.sent;
    const auto& received = load.received;
    const auto& rate_bps = load.rate_bps;
    const std::uint32_t per_node = std::max<std::uint32_t>(1, nics_per_node);
    for (std::uint32_t n = 0; n < nics; ++n) {
        const double busy = rate_bps[n] > 0 ? static_cast<double>(std::max(sent[n], received[n])) *
                                                  8 / rate_bps[n] * 1e6
                                            : 0.0;
        csv.text("nic")
            .integer(n)
            .integer(n / per_node)
            .integer(sent[n])
            .integer(received[n])
            .fixed(busy)
            .end_row();
    }
    if (!layout) return csv.str();
    // GPUs: the payload of the messages each sent and received, and the busiest of its own
    // channels (its two sending paths and its receiving ones) in wire time.
    const std::uint32_t gpus = simulated.graph.endpoint_count();
    std::vector<std::uint64_t> gsent(gpus, 0), greceived(gpus, 0);
    for (std::size_t m = 0; m < w.messages.size(); ++m) {
        if (r.messages[m].finished == Time::never()) continue;
        gsent[w.messages[m].src] += w.messages[m].bytes;
        greceived[w.messages[m].dst] += w.messages[m].bytes;
    }
    std::vector<double> busy(gpus, 0);
    for (std::uint32_t c = 0; c < sim_ch.size(); ++c) {
        const Channel& ch = sim_ch[c];
        const NodeRef gpu = ch.from.kind == NodeKind::Endpoint ? ch.from : ch.to;
        if (gpu.kind != NodeKind::Endpoint || ch.rate.bps() == 0) continue;
        busy[gpu.index] = std::max(busy[gpu.index], static_cast<double>(r.channels[c].bytes) * 8 /
                                                        static_cast<double>(ch.rate.bps()) * 1e6);
    }
    const std::uint32_t g_per_node = std::max<std::uint32_t>(1, gpus_per_node);
    for (std::uint32_t g = 0; g < gpus; ++g)
        csv.text("gpu")
            .integer(g)
            .integer(g / g_per_node)
            .integer(gsent[g])
            .integer(greceived[g])
            .fixed(busy[g])
            .end_row();
    return csv.str();
}

std::string tiers_csv(const Topology& fabric, const Topology& simulated, const NodeLayout* layout,
                      const SimulationResult& r) {
    CsvWriter csv({"time_us", "period_us", "tier", "utilisation", "mean_queue_bytes",
                   "max_queue_bytes", "max_queue_port"});
    const TierSeries& series = r.tiers;
    const auto channels = simulated.graph.channels();
    std::vector<std::string> names;
    for (const ChannelTier& t : series.tiers())
        names.push_back(channel_tier(fabric, simulated, layout, t.example_channel));
    for (std::size_t p = 0; p < series.points(); ++p) {
        const Time span = series.span_of(p);
        for (std::size_t t = 0; t < series.tiers().size(); ++t) {
            const ChannelTier& tier = series.tiers()[t];
            const TierPoint& x = series.point(p, t);
            const double capacity_bits = static_cast<double>(tier.capacity_bps) * span.seconds();
            csv.fixed(series.at(p).us())
                .fixed(span.us())
                .text(names[t])
                .fixed(capacity_bits > 0 ? static_cast<double>(x.bytes) * 8 / capacity_bits : 0.0)
                .fixed(x.snapshots ? static_cast<double>(x.queued_sum) / x.snapshots / tier.channels
                                   : 0.0,
                       1)
                .integer(x.max_queue_bytes);
            if (x.max_queue_bytes > 0) {
                const Channel& ch = channels[x.max_queue_channel];
                csv.text(part_name(layout, ch.from) + ">" + part_name(layout, ch.to));
            } else {
                csv.empty();
            }
            csv.end_row();
        }
    }
    return csv.str();
}

}  // namespace clustersim
