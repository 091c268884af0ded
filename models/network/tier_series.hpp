#pragma once
// Link use and queues over time, per tier of channels (GPU to hub, NIC to leaf, leaf to spine,
// ...): what a report draws as "utilisation and queue depth over time". Sampled every period
// from the links' byte counters and the ports' queues, never per packet; the period starts at
// 1 us and doubles (adjacent points merged) whenever kMaxPoints is reached, so any run keeps
// between kMaxPoints / 2 and kMaxPoints points at the finest period that fits.
#include <cstdint>
#include <span>
#include <vector>

#include "models/fabric/egress_port.hpp"
#include "models/fabric/link.hpp"
#include "models/network/node_layout.hpp"
#include "models/network/port_graph.hpp"
#include "sim/ranks.hpp"
#include "sim/time.hpp"

namespace clustersim {

/// What a channel end is, for grouping: a GPU (or bare NIC), a node part, or a fabric tier.
enum class ChannelEnd : std::uint8_t { Endpoint, GpuHub, ScaleUp, Nic, FabricSwitch };

struct ChannelTier {
    ChannelEnd from = ChannelEnd::Endpoint, to = ChannelEnd::Endpoint;
    std::uint32_t from_tier = 0, to_tier = 0;  // fabric switches: PortGraph's tier
    std::uint32_t example_channel = 0;         // the first channel of the group (for naming)
    std::uint64_t capacity_bps = 0;            // its channels' rates, summed
    std::uint32_t channels = 0;
};

/// One tier over one period ending at `at`.
struct TierPoint {
    std::uint64_t bytes = 0;              // wire bytes its links carried in the period
    std::uint64_t queued_sum = 0;         // its ports' queued bytes, summed, over the snapshots
    std::uint32_t snapshots = 0;          // queue snapshots folded into this point
    std::uint64_t max_queue_bytes = 0;    // the deepest port of the tier at any snapshot ...
    std::uint32_t max_queue_channel = 0;  // ... and which it was
};

class TierSeries {
  public:
    static constexpr std::uint32_t kMaxPoints = 1024;
    /// Samples any run takes, at most: kMaxPoints, then kMaxPoints / 2 per doubling, and a
    /// 1 us period doubles at most 44 times within a 64-bit picosecond clock (2^63 ps).
    static constexpr std::uint64_t kMaxSamples = kMaxPoints + kMaxPoints / 2 * 44;

    TierSeries() = default;
    TierSeries(const PortGraph& graph, const NodeLayout* layout);

    /// Records the period ending at `now` (from the links' counters and the ports' queues).
    /// With `ranks` (sim/ranks.hpp), a collective: each rank holds its own channels' counts
    /// (the others' stay at zero there), and the tiers' sums and deepest ports are agreed.
    void sample(Time now, std::span<const Link> links, std::span<const EgressPort> ports,
                Ranks* ranks = nullptr);
    Time period() const { return period_; }
    Time next_sample() const { return last_ + period_; }

    std::span<const ChannelTier> tiers() const { return tiers_; }
    std::size_t points() const { return at_.size(); }
    Time at(std::size_t point) const { return at_[point]; }
    /// The period point `point` covers (the first may be shorter after a merge: none is).
    Time span_of(std::size_t point) const { return at_[point] - (point ? at_[point - 1] : start_); }
    const TierPoint& point(std::size_t p, std::size_t tier) const {
        return data_[p * tiers_.size() + tier];
    }
    std::uint32_t tier_of(std::uint32_t channel) const { return tier_of_[channel]; }

  private:
    void merge_pairs();

    std::vector<std::uint32_t> tier_of_;  // per channel
    std::vector<ChannelTier> tiers_;
    std::vector<std::uint64_t> carried_;  // per tier: bytes carried up to the last sample
    std::vector<std::uint64_t> scratch_;
    std::vector<Time> at_;
    std::vector<TierPoint> data_;  // [point x tiers + tier]
    Time start_, last_, period_ = Time::from_us(1);
};

}  // namespace clustersim
