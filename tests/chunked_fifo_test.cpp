#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/chunked_fifo.hpp"
#include "sim/random.hpp"

using namespace clustersim;

namespace {
struct Item {
    std::uint64_t value;
    std::uint64_t pad[3];  // 32 B, a packet's size: 15 to a chunk
};
using Fifo = ChunkedFifo<Item>;
}  // namespace

TEST_CASE("chunked queues agree with a reference deque, across chunk boundaries", "[sim]") {
    Fifo::Pool pool;
    std::array<Fifo, 5> queues;
    std::array<std::deque<std::uint64_t>, 5> ref;
    RandomStream rng(11, "fifo");
    std::uint64_t next = 0;
    std::size_t live = 0, peak = 0;
    for (int step = 0; step < 200'000; ++step) {
        const std::size_t q = rng.below(queues.size());
        // Phases that fill, then drain: queues grow past several chunks and empty again.
        const bool fill = (step / 5'000) % 2 == 0 ? rng.below(10) < 7 : rng.below(10) < 3;
        if (fill || ref[q].empty()) {
            queues[q].push_back(Item{next, {}}, pool);
            ref[q].push_back(next++);
            ++live;
            if (ref[q].size() >= 2) REQUIRE(queues[q].before_back().value == ref[q].end()[-2]);
            REQUIRE(queues[q].back().value == ref[q].back());
        } else {
            REQUIRE(queues[q].front().value == ref[q].front());
            REQUIRE(queues[q].pop_front(pool).value == ref[q].front());
            ref[q].pop_front();
            --live;
        }
        REQUIRE(queues[q].size() == ref[q].size());
        peak = std::max(peak, live);
    }
    // Chunks go back as they empty: the pool never held more than the items alive at the peak
    // need, plus a partly used chunk at each end of each queue, plus one block's rounding.
    const std::size_t bound = peak / Fifo::Chunk::kItems + 2 * queues.size() + 64;
    CHECK(pool.chunks() <= bound);
    CHECK(peak > 10 * Fifo::Chunk::kItems);  // the run did cross chunks
}

TEST_CASE("an emptied chunked queue gives its chunk back and is taken again", "[sim]") {
    Fifo::Pool pool;
    Fifo a, b;
    for (std::uint64_t i = 0; i < 100; ++i) a.push_back(Item{i, {}}, pool);
    const std::size_t made = pool.chunks();
    for (std::uint64_t i = 0; i < 100; ++i) CHECK(a.pop_front(pool).value == i);
    CHECK(a.empty());
    // Another queue reuses what the first gave back: no new block.
    for (std::uint64_t i = 0; i < 100; ++i) b.push_back(Item{i, {}}, pool);
    CHECK(pool.chunks() == made);
    // The item before the back, where the back opened a chunk of its own.
    Fifo c;
    for (std::uint64_t i = 0; i <= Fifo::Chunk::kItems; ++i) c.push_back(Item{i, {}}, pool);
    CHECK(c.back().value == Fifo::Chunk::kItems);
    CHECK(c.before_back().value == Fifo::Chunk::kItems - 1);
}
