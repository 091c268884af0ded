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

/// Longest processing time first: partitions by load (ties by index), each to the thread with
/// the least so far (a zero load counts as one, so idle partitions spread). The thread of each
/// partition.
inline std::vector<std::uint32_t> deal_longest_first(std::span<const std::uint64_t> load,
                                                     std::uint32_t threads) {
    std::vector<std::uint32_t> order(load.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return load[a] != load[b] ? load[a] > load[b] : a < b;
    });
    std::vector<std::uint64_t> total(threads, 0);
    std::vector<std::uint32_t> thread_of(load.size(), 0);
    for (const std::uint32_t p : order) {
        const auto t = static_cast<std::uint32_t>(std::min_element(total.begin(), total.end()) -
                                                  total.begin());
        thread_of[p] = t;
        total[t] += std::max<std::uint64_t>(load[p], 1);
    }
    return thread_of;
}

/// `partitions` dealt to `ranks` for a run spread over MPI ranks: partition 0 (the observer's
/// writes share its state) on rank 0, the rest longest first by `load` (empty: one each) onto
/// the rank with the least so far, partition 0's load counted on rank 0. The rank of each.
inline std::vector<std::uint32_t> deal_to_ranks(std::span<const std::uint64_t> load,
                                                std::uint32_t partitions, std::uint32_t ranks) {
    const auto load_of = [&](std::uint32_t p) {
        return std::max<std::uint64_t>(p < load.size() ? load[p] : 1, 1);
    };
    std::vector<std::uint32_t> order(partitions > 0 ? partitions - 1 : 0);
    std::iota(order.begin(), order.end(), 1u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return load_of(a) > load_of(b); });
    std::vector<std::uint64_t> total(std::max<std::uint32_t>(ranks, 1), 0);
    std::vector<std::uint32_t> rank_of(partitions, 0);
    if (partitions > 0) total[0] = load_of(0);
    for (const std::uint32_t p : order) {
        const auto r = static_cast<std::uint32_t>(std::min_element(total.begin(), total.end()) -
                                                  total.begin());
        rank_of[p] = r;
        total[r] += load_of(p);
    }
    return rank_of;
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
