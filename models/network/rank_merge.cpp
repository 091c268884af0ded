#include "models/network/rank_merge.hpp"

#include <algorithm>
#include <array>
#include <bit>

namespace clustersim {

namespace {

// Times as signed picoseconds, `never` the largest: the earliest over the ranks is the one set.
// In pieces, so that the words reduced cost little beside the states (8.4 M messages at 2,048
// GPUs would need 200 MB at once).
template <class State, std::size_t N>
void earliest(std::vector<State>& states, Ranks& ranks, std::array<Time State::*, N> fields) {
    constexpr std::size_t kPiece = std::size_t{1} << 16;
    std::vector<std::uint64_t> words;
    for (std::size_t first = 0; first < states.size(); first += kPiece) {
        const std::size_t n = std::min(kPiece, states.size() - first);
        words.resize(n * N);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t f = 0; f < N; ++f)
                words[i * N + f] = static_cast<std::uint64_t>((states[first + i].*fields[f]).ps());
        ranks.allreduce(words, Ranks::Reduce::MinSigned);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t f = 0; f < N; ++f)
                states[first + i].*fields[f] =
                    Time::from_ps(static_cast<std::int64_t>(words[i * N + f]));
    }
}

}  // namespace

void merge_over_ranks(SimulationResult& r, Ranks& ranks) {
    static_assert(std::has_unique_object_representations_v<NetworkCounters>);
    using CounterWords = std::array<std::uint64_t, sizeof(NetworkCounters) / 8>;
    auto counters = std::bit_cast<CounterWords>(r.counters);
    ranks.sum(counters);
    r.counters = std::bit_cast<NetworkCounters>(counters);

    earliest(
        r.messages, ranks,
        std::array{&MessageState::started, &MessageState::first_sent, &MessageState::finished});
    earliest(r.computes, ranks,
             std::array{&ComputeState::activated, &ComputeState::started, &ComputeState::finished});

    // A channel's counts are its transmitter's rank's; the deepest queue is the one seen there.
    constexpr std::size_t kSums = 5;
    std::vector<std::uint64_t> sums(r.channels.size() * kSums), deepest(r.channels.size());
    for (std::size_t c = 0; c < r.channels.size(); ++c) {
        const ChannelUsage& u = r.channels[c];
        std::uint64_t* w = &sums[c * kSums];
        w[0] = u.bytes;
        w[1] = u.pauses;
        w[2] = u.drops;
        w[3] = u.ecn_marks;
        w[4] = static_cast<std::uint64_t>(u.paused.ps());
        deepest[c] = u.max_queue_bytes;
    }
    ranks.sum(sums);
    ranks.allreduce(deepest, Ranks::Reduce::Max);
    for (std::size_t c = 0; c < r.channels.size(); ++c) {
        ChannelUsage& u = r.channels[c];
        const std::uint64_t* w = &sums[c * kSums];
        u.bytes = w[0];
        u.pauses = w[1];
        u.drops = w[2];
        u.ecn_marks = w[3];
        u.paused = Time::from_ps(static_cast<std::int64_t>(w[4]));
        u.max_queue_bytes = deepest[c];
    }

    // A flow's spread is recorded by the switch where it first had a choice: one rank's.
    std::uint64_t spread[3] = {r.path_spread.flows, r.path_spread.paths_sum,
                               r.path_spread.candidates_sum};
    ranks.sum(spread);
    std::uint64_t widest[1] = {r.path_spread.max_paths};
    ranks.allreduce(widest, Ranks::Reduce::Max);
    r.path_spread = {spread[0], spread[1], spread[2], static_cast<std::uint32_t>(widest[0])};

    // Bytes an unfinished message received are its receiver's rank's: gathered, by message.
    r.unfinished_received =
        gather_records<SimulationResult::Received>(ranks, r.unfinished_received);
    std::sort(r.unfinished_received.begin(), r.unfinished_received.end(),
              [](const auto& a, const auto& b) { return a.message < b.message; });
}

}  // namespace clustersim
