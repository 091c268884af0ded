#pragma once
// What each fault's reaction moved off the healthy paths (results' faults[i].bytes_rerouted):
// the payload of data packets whose healthy next hop the reaction took away. Under a pure policy
// (static, ECMP) that is asked per packet: what the healthy tables would have chosen, and
// whether the entry still has it. Under the others (adaptive, spray, flowlet) the choice
// depends on the moment, so a changed entry's bytes are weighted by the share of its healthy
// next hops it lost (a group of 32 that lost one: 1/32), as if they had spread evenly. At
// NICs: packets whose healthy port or plane the fault took. Kept only once a fault has reacted;
// a healthy run has none.
#include <atomic>
#include <cstdint>
#include <vector>

#include "models/forwarding/forwarding_tables.hpp"

namespace clustersim {

class RerouteAccount {
  public:
    /// Tables go from `before` to `now` because of fault `fault`; `base` are the healthy ones.
    /// Returns whether any entry differs from the healthy tables.
    bool swap(const ForwardingTables& base, const ForwardingTables& before,
              const ForwardingTables& now, std::uint32_t fault);
    /// Payload forwarded by entry (switch, edge) of the current tables.
    void add_entry(std::uint32_t sw, std::uint32_t edge, std::uint32_t edges, std::uint64_t bytes) {
        entry_bytes_[std::size_t{sw} * edges + edge] += bytes;
    }
    /// Payload whose healthy next hop at (switch, edge) is gone (a pure policy can tell).
    void add_to_owner(std::uint32_t sw, std::uint32_t edge, std::uint32_t edges,
                      std::uint64_t bytes) {
        add(owner_[std::size_t{sw} * edges + edge], bytes);
    }
    /// Fault `fault` has reacted: room for what it moves (made between windows, as faults act
    /// there, so that partitions' threads never grow the list).
    void expect(std::uint32_t fault) {
        if (fault != kNone && fault >= rerouted_.size()) rerouted_.resize(fault + 1, 0);
    }
    /// Payload moved off its healthy way as a whole (NIC bonds, planes) by fault `fault`, which
    /// has been expected. Partitions' threads add at once: only packets a fault moved do.
    void add(std::uint32_t fault, std::uint64_t bytes) {
        if (fault == kNone) return;
        std::atomic_ref<std::uint64_t>(rerouted_.at(fault))
            .fetch_add(bytes, std::memory_order_relaxed);
    }
    /// Bytes rerouted per fault so far (indexed by fault; shorter when the last ones had none).
    std::vector<std::uint64_t> totals() const;

  private:
    // The part of `bytes` forwarded by entry i that the healthy fabric would have sent to the
    // next hops this entry has lost.
    std::uint64_t displaced(std::size_t i, std::uint64_t bytes) const;

    const ForwardingTables* base_ = nullptr;
    const ForwardingTables* now_ = nullptr;
    std::vector<std::uint32_t> owner_;        // per entry: the fault that changed it, or kNone
    std::vector<std::uint64_t> entry_bytes_;  // per entry: payload since the last swap
    std::vector<std::uint64_t> rerouted_;     // per fault: settled at each swap
};

}  // namespace clustersim
