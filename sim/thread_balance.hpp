#pragma once
// How evenly a windowed run's work splits over threads, whatever threads it ran on: for a set
// of thread counts, the events the busiest thread would handle in each window (partitions dealt
// to threads as the run's crew deals them), summed over the windows. Total events over that sum
// is the speed-up those threads could reach if every event cost the same on every core and a
// window's synchronisation were free: the bound that partition balance sets, before caches
// (which help: smaller shares fit) and synchronisation (which costs per window).
// The same for any thread count the run itself used.
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace clustersim {

/// Longest processing time first: partitions by load (ties by index), each to the bin (thread
/// or rank) with the least so far (a zero load counts as one, so idle partitions spread);
/// `first_on_bin_0` puts partition 0 on bin 0 before the others are dealt. The bin of each.
inline std::vector<std::uint32_t> deal_longest_first(std::span<const std::uint64_t> load,
                                                     std::uint32_t bins,
                                                     bool first_on_bin_0 = false) {
    const auto begin = static_cast<std::uint32_t>(first_on_bin_0 && !load.empty());
    std::vector<std::uint32_t> order(load.size() - begin);
    std::iota(order.begin(), order.end(), begin);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return load[a] != load[b] ? load[a] > load[b] : a < b;
    });
    std::vector<std::uint64_t> total(std::max<std::uint32_t>(bins, 1), 0);
    std::vector<std::uint32_t> bin_of(load.size(), 0);
    if (begin == 1) total[0] = std::max<std::uint64_t>(load[0], 1);
    for (const std::uint32_t p : order) {
        const auto b = static_cast<std::uint32_t>(std::min_element(total.begin(), total.end()) -
                                                  total.begin());
        bin_of[p] = b;
        total[b] += std::max<std::uint64_t>(load[p], 1);
    }
    return bin_of;
}

/// `partitions` dealt to `ranks` for a run spread over MPI ranks: partition 0 (the observer's
/// writes share its state) on rank 0, the rest longest first by `load` (missing or zero: one
/// each). The rank of each.
inline std::vector<std::uint32_t> deal_to_ranks(std::span<const std::uint64_t> load,
                                                std::uint32_t partitions, std::uint32_t ranks) {
    std::vector<std::uint64_t> at_least_one(partitions);
    for (std::uint32_t p = 0; p < partitions; ++p)
        at_least_one[p] = std::max<std::uint64_t>(p < load.size() ? load[p] : 1, 1);
    return deal_longest_first(at_least_one, ranks, true);
}

class ThreadBalance {
  public:
    static constexpr std::array<std::uint32_t, 7> kThreads = {1, 2, 4, 8, 16, 32, 64};
    /// The crew deals again after this many windows, by the events handled since.
    static constexpr std::uint64_t kRebalanceWindows = 1024;

    /// Windows begin (a crew is made and deals): counts carry over from an earlier run call.
    void start(std::uint32_t partitions) {
        if (last_.size() != partitions) {
            last_.assign(partitions, 0);
            since_deal_.assign(partitions, 0);
        }
        crew_windows_ = 0;
        deal();
    }
    /// A window is about to run (the crew counts it, and may deal, here too).
    void begin_window() {
        if (++crew_windows_ % kRebalanceWindows == 0) deal();
    }
    /// The window ran: `events` is each partition's count of events handled so far.
    void end_window(std::span<const std::uint64_t> events) {
        for (std::size_t n = 0; n < kThreads.size(); ++n) {
            std::array<std::uint64_t, kThreads.back()> load{};
            for (std::uint32_t p = 0; p < last_.size(); ++p)
                load[thread_of_[n][p]] += events[p] - last_[p];
            busiest_[n] += *std::max_element(load.begin(), load.begin() + kThreads[n]);
        }
        for (std::uint32_t p = 0; p < last_.size(); ++p) {
            since_deal_[p] += events[p] - last_[p];
            last_[p] = events[p];
        }
    }
    /// Per entry of kThreads: the busiest thread's events, summed over windows.
    const std::array<std::uint64_t, kThreads.size()>& busiest() const { return busiest_; }

  private:
    void deal() {
        for (std::size_t n = 0; n < kThreads.size(); ++n)
            thread_of_[n] = deal_longest_first(since_deal_, kThreads[n]);
        std::fill(since_deal_.begin(), since_deal_.end(), 0);
    }
    std::vector<std::uint64_t> last_;        // per partition: events at the last window's end
    std::vector<std::uint64_t> since_deal_;  // per partition: events since the last deal
    std::array<std::vector<std::uint32_t>, kThreads.size()> thread_of_;
    std::array<std::uint64_t, kThreads.size()> busiest_{};
    std::uint64_t crew_windows_ = 0;
};

}  // namespace clustersim
