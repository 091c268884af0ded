#include "models/forwarding/forwarding_tables.hpp"

#include <algorithm>

#include "sim/random.hpp"

namespace clustersim {

std::uint32_t ForwardingTables::intern(std::span<const std::uint32_t> channels) {
    std::uint64_t h = channels.size();
    for (const std::uint32_t c : channels) h = mix64(h ^ c);
    const auto [first, last] = index_.equal_range(h);
    for (auto it = first; it != last; ++it) {
        const std::uint32_t g = it->second;
        const std::span<const std::uint32_t> known(pool_.data() + group_start_[g],
                                                   group_start_[g + 1] - group_start_[g]);
        if (std::ranges::equal(known, channels)) return g;
    }
    if (group_start_.empty()) group_start_.push_back(0);
    const auto id = static_cast<std::uint32_t>(group_start_.size() - 1);
    pool_.insert(pool_.end(), channels.begin(), channels.end());
    group_start_.push_back(static_cast<std::uint32_t>(pool_.size()));
    index_.emplace(h, id);
    return id;
}

}  // namespace clustersim
