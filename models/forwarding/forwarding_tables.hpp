#pragma once
// Next-hop candidates keyed by (switch, destination edge switch), never by destination host:
// identical candidate sets are stored once, so tables stay small at tens of thousands of hosts.
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "models/network/packet.hpp"

namespace clustersim {

class ForwardingTables {
  public:
    ForwardingTables() = default;
    ForwardingTables(std::uint32_t switches, std::uint32_t edge_switches)
        : edges_(edge_switches),
          group_of_(static_cast<std::size_t>(switches) * edge_switches, kNone),
          edge_of_switch_(switches, kNone) {}

    /// Edge switches (those endpoints attach to) are numbered 0..edge_switches-1.
    void set_edge_index(std::uint32_t sw, std::uint32_t edge) { edge_of_switch_[sw] = edge; }
    std::uint32_t edge_index(std::uint32_t sw) const { return edge_of_switch_[sw]; }
    std::uint32_t edge_count() const { return edges_; }
    /// Switches the tables cover (rows of edge_count() entries).
    std::uint32_t switch_count() const {
        return edges_ == 0 ? 0 : static_cast<std::uint32_t>(group_of_.size() / edges_);
    }

    /// Registers a candidate set (channel indices) and returns its id; equal sets share one id.
    std::uint32_t intern(std::span<const std::uint32_t> channels);
    void set(std::uint32_t sw, std::uint32_t edge, std::uint32_t group) {
        group_of_[static_cast<std::size_t>(sw) * edges_ + edge] = group;
    }
    std::span<const std::uint32_t> candidates(std::uint32_t sw, std::uint32_t edge) const {
        const std::uint32_t g = group_of_[static_cast<std::size_t>(sw) * edges_ + edge];
        if (g == kNone) return {};
        return {pool_.data() + group_start_[g], group_start_[g + 1] - group_start_[g]};
    }
    std::span<const std::uint32_t> group(std::uint32_t g) const {
        return {pool_.data() + group_start_[g], group_start_[g + 1] - group_start_[g]};
    }
    std::size_t group_count() const { return group_start_.empty() ? 0 : group_start_.size() - 1; }
    std::size_t memory_bytes() const {
        return (group_of_.size() + edge_of_switch_.size()) * sizeof(std::uint32_t) +
               pool_.size() * sizeof(std::uint32_t) + group_start_.size() * sizeof(std::uint32_t);
    }

  private:
    std::uint32_t edges_ = 0;
    std::vector<std::uint32_t> group_of_;
    std::vector<std::uint32_t> edge_of_switch_;
    std::vector<std::uint32_t> pool_;
    std::vector<std::uint32_t> group_start_;
    std::unordered_multimap<std::uint64_t, std::uint32_t> index_;  // set hash -> id; build only
};

}  // namespace clustersim
