#include "models/forwarding_tables.hpp"

namespace clustersim {

std::uint32_t ForwardingTables::intern(std::span<const std::uint32_t> channels) {
    std::vector<std::uint32_t> key(channels.begin(), channels.end());
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    if (group_start_.empty()) group_start_.push_back(0);
    const auto id = static_cast<std::uint32_t>(group_start_.size() - 1);
    pool_.insert(pool_.end(), key.begin(), key.end());
    group_start_.push_back(static_cast<std::uint32_t>(pool_.size()));
    index_.emplace(std::move(key), id);
    return id;
}

}  // namespace clustersim
