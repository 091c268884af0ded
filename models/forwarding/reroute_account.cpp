#include "models/forwarding/reroute_account.hpp"

#include <algorithm>

namespace clustersim {

bool RerouteAccount::swap(const ForwardingTables& base, const ForwardingTables& before,
                          const ForwardingTables& now, std::uint32_t fault) {
    const std::uint32_t switches = now.switch_count(), edges = now.edge_count();
    const std::size_t entries = std::size_t{switches} * edges;
    if (owner_.empty()) {
        owner_.assign(entries, kNone);
        entry_bytes_.assign(entries, 0);
    }
    // Settle what the outgoing tables forwarded, then own the entries this swap changes (an
    // entry another fault had changed and this one leaves alone stays that fault's).
    for (std::size_t i = 0; i < entries; ++i)
        if (entry_bytes_[i] != 0) {
            if (owner_[i] != kNone) add(owner_[i], displaced(i, entry_bytes_[i]));
            entry_bytes_[i] = 0;
        }
    base_ = &base;
    now_ = &now;
    bool any = false;
    for (std::uint32_t sw = 0; sw < switches; ++sw)
        for (std::uint32_t e = 0; e < edges; ++e) {
            std::uint32_t& owner = owner_[std::size_t{sw} * edges + e];
            const auto c = now.candidates(sw, e);
            if (std::ranges::equal(c, base.candidates(sw, e))) {
                owner = kNone;
                continue;
            }
            if (owner == kNone || !std::ranges::equal(c, before.candidates(sw, e))) owner = fault;
            any = true;
        }
    return any;
}

std::uint64_t RerouteAccount::displaced(std::size_t i, std::uint64_t bytes) const {
    const std::uint32_t edges = now_->edge_count();
    const auto sw = static_cast<std::uint32_t>(i / edges),
               e = static_cast<std::uint32_t>(i % edges);
    const auto healthy = base_->candidates(sw, e), now = now_->candidates(sw, e);
    // No healthy next hop (a switch that could not reach there): all of it is a detour.
    if (healthy.empty()) return bytes;
    const auto lost = static_cast<std::uint64_t>(std::ranges::count_if(
        healthy, [&](std::uint32_t c) { return std::ranges::find(now, c) == now.end(); }));
    return bytes * lost / healthy.size();
}

std::vector<std::uint64_t> RerouteAccount::totals() const {
    std::vector<std::uint64_t> out = rerouted_;
    for (std::size_t i = 0; i < entry_bytes_.size(); ++i)
        if (entry_bytes_[i] != 0 && owner_[i] != kNone) {
            if (owner_[i] >= out.size()) out.resize(owner_[i] + 1, 0);
            out[owner_[i]] += displaced(i, entry_bytes_[i]);
        }
    return out;
}

}  // namespace clustersim
