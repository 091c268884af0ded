#include "models/network/tier_series.hpp"

#include <map>
#include <tuple>

namespace clustersim {
namespace {

std::pair<ChannelEnd, std::uint32_t> end_of(const PortGraph& graph, const NodeLayout* layout,
                                            NodeRef n) {
    if (n.kind == NodeKind::Endpoint) return {ChannelEnd::Endpoint, 0};
    if (layout) switch (layout->role[n.index]) {
            case SwitchRole::Fabric:
                break;
            case SwitchRole::GpuHub:
                return {ChannelEnd::GpuHub, 0};
            case SwitchRole::ScaleUp:
                return {ChannelEnd::ScaleUp, 0};
            case SwitchRole::Nic:
                return {ChannelEnd::Nic, 0};
        }
    return {ChannelEnd::FabricSwitch, graph.switches()[n.index].tier};
}

}  // namespace

TierSeries::TierSeries(const PortGraph& graph, const NodeLayout* layout) {
    const auto channels = graph.channels();
    tier_of_.resize(channels.size());
    std::map<std::tuple<ChannelEnd, std::uint32_t, ChannelEnd, std::uint32_t>, std::uint32_t> ids;
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        const auto [from, from_tier] = end_of(graph, layout, channels[c].from);
        const auto [to, to_tier] = end_of(graph, layout, channels[c].to);
        const auto [it, added] = ids.try_emplace({from, from_tier, to, to_tier},
                                                 static_cast<std::uint32_t>(tiers_.size()));
        if (added) tiers_.push_back(ChannelTier{from, to, from_tier, to_tier, c, 0, 0});
        ChannelTier& t = tiers_[it->second];
        t.capacity_bps += channels[c].rate.bps();
        ++t.channels;
        tier_of_[c] = it->second;
    }
    carried_.assign(tiers_.size(), 0);
}

void TierSeries::sample(Time now, std::span<const Link> links, std::span<const EgressPort> ports,
                        Ranks* ranks) {
    const std::size_t n = tiers_.size();
    const std::size_t base = data_.size();
    data_.resize(base + n);
    std::span<TierPoint> row(data_.data() + base, n);
    std::vector<std::uint64_t>& carried = scratch_;
    carried.assign(n, 0);
    for (std::uint32_t c = 0; c < links.size(); ++c) {
        const std::uint32_t t = tier_of_[c];
        carried[t] += links[c].bytes_carried;
        const std::uint64_t q = ports[c].queued_bytes;
        row[t].queued_sum += q;
        if (q > row[t].max_queue_bytes) {
            row[t].max_queue_bytes = q;
            row[t].max_queue_channel = c;
        }
    }
    if (ranks) {
        // Per tier: carried and queued sums; the deepest port, the first channel on a tie (as
        // one scan in channel order finds it).
        std::vector<std::uint64_t> mine(4 * n), all;
        for (std::size_t t = 0; t < n; ++t) {
            mine[4 * t] = carried[t];
            mine[4 * t + 1] = row[t].queued_sum;
            mine[4 * t + 2] = row[t].max_queue_bytes;
            mine[4 * t + 3] = row[t].max_queue_channel;
        }
        ranks->allgather(mine, all);
        for (std::size_t t = 0; t < n; ++t) {
            carried[t] = 0;
            row[t] = TierPoint{};
            for (std::size_t at = 4 * t; at < all.size(); at += 4 * n) {
                carried[t] += all[at];
                row[t].queued_sum += all[at + 1];
                const auto q = all[at + 2];
                const auto ch = static_cast<std::uint32_t>(all[at + 3]);
                if (q > row[t].max_queue_bytes ||
                    (q == row[t].max_queue_bytes && q > 0 && ch < row[t].max_queue_channel)) {
                    row[t].max_queue_bytes = q;
                    row[t].max_queue_channel = ch;
                }
            }
        }
    }
    for (std::size_t t = 0; t < n; ++t) {
        row[t].bytes = carried[t] - carried_[t];
        row[t].snapshots = 1;
        carried_[t] = carried[t];
    }
    at_.push_back(now);
    last_ = now;
    if (at_.size() == kMaxPoints) merge_pairs();
}

void TierSeries::merge_pairs() {
    const std::size_t n = tiers_.size();
    const std::size_t kept = at_.size() / 2;
    for (std::size_t p = 0; p < kept; ++p) {
        at_[p] = at_[2 * p + 1];
        for (std::size_t t = 0; t < n; ++t) {
            const TierPoint& a = data_[2 * p * n + t];
            const TierPoint& b = data_[(2 * p + 1) * n + t];
            TierPoint m{a.bytes + b.bytes, a.queued_sum + b.queued_sum, a.snapshots + b.snapshots,
                        a.max_queue_bytes, a.max_queue_channel};
            if (b.max_queue_bytes > a.max_queue_bytes) {
                m.max_queue_bytes = b.max_queue_bytes;
                m.max_queue_channel = b.max_queue_channel;
            }
            data_[p * n + t] = m;
        }
    }
    at_.resize(kept);
    data_.resize(kept * n);
    period_ = period_ + period_;
}

}  // namespace clustersim
