#pragma once
// Pending events, popped in exact (time, sequence) order. The near future is a calendar of
// fixed-width time buckets; the current bucket is a small 4-ary min-heap, later ones collect
// events unsorted (in chunks from a shared pool) until their turn, and events beyond the
// calendar wait in one 4-ary heap. A packet fabric keeps tens of thousands of events pending
// within a microsecond or two: a single heap pays log(pending) cache misses per event, the
// calendar a heap over one bucket's events. Memory follows the events pending, not the peak of
// every bucket, and nothing is allocated once the pool has grown.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/event.hpp"
#include "sim/four_ary_heap.hpp"

namespace clustersim {

// On lines of its own: a windowed run's partitions each push into their own queue on their
// own thread, and queues side by side in a vector would share a line.
class alignas(64) EventQueue {
  public:
    /// Buckets of 2^bucket_shift ps; `buckets` (a power of two) of them make the calendar.
    explicit EventQueue(unsigned bucket_shift = kBucketShift, std::size_t buckets = kBuckets)
        : shift_(bucket_shift),
          mask_(buckets - 1),
          buckets_(buckets),
          occupied_((buckets + 63) / 64, 0) {}

    /// The calendar of one of `partitions` queues that share a run's events: past 64 of them,
    /// the same 4.2 us span in wider, fewer buckets (twice as wide at 65-128, four times at
    /// 129-256), so that a bucket holds about what one of fewer queues does. A bucket once
    /// reached keeps a chunk, so a calendar's memory follows its bucket count: at 2,048 GPUs,
    /// 176 partitions of 4,096 buckets held 300 MB more than 11. Up to 64 keep 1 ns buckets:
    /// widened from 8 partitions on, the 64 of a 16,384-host FT3 ran 3.5 % slower (2 pairs).
    static constexpr unsigned widening(std::uint32_t partitions) {
        const unsigned log2 = std::bit_width(std::max<std::uint32_t>(partitions, 1) - 1);
        return std::min(kMaxWidening, log2 > 6 ? log2 - 6 : 0u);
    }
    static EventQueue for_share(std::uint32_t partitions) {
        const unsigned w = widening(partitions);
        return EventQueue(kBucketShift + w, kBuckets >> w);
    }

    void reserve(std::size_t n) { far_.reserve(n); }
    /// What its calendar holds besides the events' own records when every bucket has a chunk
    /// filled to `fill` (0..1) on average (run estimates: a partitioned run keeps one queue per
    /// partition, for_share's).
    static constexpr std::size_t calendar_bytes(double fill, std::size_t buckets = kBuckets) {
        return buckets * (static_cast<std::size_t>(sizeof(Chunk) * (1 - fill)) + sizeof(Bucket)) +
               buckets / 8;
    }
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    /// The next event; the queue must not be empty.
    const Event& top() const { return current_.front(); }

    void push(const Event& e) {
        if (size_++ == 0) {  // empty: the calendar starts at this event's bucket
            start_ps_ = e.time.ps() >> shift_ << shift_;
            cursor_ = slot(e.time.ps());
        }
        const std::int64_t t = e.time.ps();
        const std::uint64_t ahead = offset(t);
        // The current bucket (or, never in practice, the past), a later bucket, or beyond.
        if (t < start_ps_ || ahead < width())
            four_ary_heap::push(current_, e);
        else if (ahead < span())
            append(slot(t), e);
        else
            four_ary_heap::push(far_, e);
    }

    Event pop() {
        const Event out = four_ary_heap::pop(current_);
        if (--size_ > 0 && current_.empty()) advance();
        return out;
    }

    /// Pops the minimum and pushes `e` (the hold operation of the classic benchmark).
    Event replace_top(const Event& e) {
        const Event out = pop();
        push(e);
        return out;
    }

    void clear() {
        current_.clear();
        far_.clear();
        for (std::size_t b = 0; b < buckets_.size(); ++b) release(b);
        size_ = in_calendar_ = 0;
    }

    static constexpr unsigned kBucketShift = 10;   // 1.024 ns
    static constexpr std::size_t kBuckets = 4096;  // 4.2 us
    static constexpr unsigned kMaxWidening = 6;    // 64 buckets of 65.5 ns at most

  private:
    static constexpr std::uint32_t kNoChunk = 0xffffffff;
    static constexpr std::uint32_t kChunkEvents = 15;  // 15 x 24 B and the link: 368 B a chunk
    struct Chunk {
        std::array<Event, kChunkEvents> events;
        std::uint32_t next = kNoChunk;  // older chunk of the same bucket, or next free chunk
    };
    // A bucket's newest chunk and the events in it (its older chunks are full): the count sits
    // beside the index a push reads anyway, not on a line of the chunk apart from the slot.
    struct Bucket {
        std::uint32_t chunk = kNoChunk;
        std::uint32_t count = 0;
    };

    std::size_t slot(std::int64_t ps) const {
        return static_cast<std::size_t>(ps >> shift_) & mask_;
    }
    std::uint64_t width() const { return std::uint64_t{1} << shift_; }
    std::uint64_t span() const { return buckets_.size() << shift_; }
    // How far t lies after the current bucket's start, exact for any t >= start (unsigned, so
    // that times near the end of the int64 range cannot overflow).
    std::uint64_t offset(std::int64_t t) const {
        return static_cast<std::uint64_t>(t) - static_cast<std::uint64_t>(start_ps_);
    }

    void append(std::size_t b, const Event& e) {
        Bucket& bucket = buckets_[b];
        if (bucket.chunk == kNoChunk || bucket.count == kChunkEvents) {
            const std::uint32_t fresh = take_chunk();
            chunks_[fresh].next = bucket.chunk;
            bucket.chunk = fresh;
            bucket.count = 0;
            occupied_[b / 64] |= std::uint64_t{1} << (b % 64);
        }
        chunks_[bucket.chunk].events[bucket.count++] = e;
        ++in_calendar_;
    }

    std::uint32_t take_chunk() {
        if (free_chunk_ == kNoChunk) {
            chunks_.emplace_back();  // grows during warm-up only
            return static_cast<std::uint32_t>(chunks_.size() - 1);
        }
        const std::uint32_t c = free_chunk_;
        free_chunk_ = chunks_[c].next;
        return c;
    }

    // Moves bucket b's events onto the current heap (unordered) and frees its chunks.
    void release(std::size_t b, bool keep_events = false) {
        std::uint32_t count = buckets_[b].count;  // the newest chunk's; the older ones are full
        for (std::uint32_t c = buckets_[b].chunk; c != kNoChunk; count = kChunkEvents) {
            Chunk& chunk = chunks_[c];
            if (keep_events) {
                current_.insert(current_.end(), chunk.events.begin(), chunk.events.begin() + count);
                in_calendar_ -= count;
            }
            const std::uint32_t older = chunk.next;
            chunk.next = free_chunk_;
            free_chunk_ = c;
            c = older;
        }
        buckets_[b] = Bucket{};
        occupied_[b / 64] &= ~(std::uint64_t{1} << (b % 64));
    }

    // The current bucket has emptied and events remain: move to the next occupied bucket (or
    // jump to the far heap's first event), let in the far events the calendar now covers, and
    // order the new current bucket.
    void advance() {
        if (in_calendar_ == 0) {
            const std::int64_t t = far_.front().time.ps();
            start_ps_ = t >> shift_ << shift_;
            cursor_ = slot(t);
        } else {
            const std::size_t next = next_occupied();
            start_ps_ += static_cast<std::int64_t>(((next - cursor_) & mask_) * width());
            cursor_ = next;
        }
        while (!far_.empty() && offset(far_.front().time.ps()) < span()) {
            const Event e = four_ary_heap::pop(far_);
            append(slot(e.time.ps()), e);
        }
        release(cursor_, true);
        four_ary_heap::make(current_);
    }

    // The first occupied bucket after the cursor, going round the calendar.
    std::size_t next_occupied() const {
        const std::size_t words = occupied_.size();
        const std::size_t from = (cursor_ + 1) & mask_;
        std::size_t w = from / 64;
        std::uint64_t bits = occupied_[w] & (~std::uint64_t{0} << (from % 64));
        for (std::size_t i = 0; i <= words; ++i) {
            if (bits != 0)
                return (w * 64 + static_cast<std::size_t>(std::countr_zero(bits))) & mask_;
            w = w + 1 == words ? 0 : w + 1;
            bits = occupied_[w];
        }
        return cursor_;  // unreachable while events are in the calendar
    }

    unsigned shift_;
    std::size_t mask_;
    std::vector<Bucket> buckets_;
    std::vector<std::uint64_t> occupied_;  // one bit per non-empty bucket
    std::vector<Chunk> chunks_;
    std::uint32_t free_chunk_ = kNoChunk;
    std::vector<Event> current_;  // 4-ary heap: the current bucket's events
    std::vector<Event> far_;      // 4-ary heap beyond the calendar
    std::int64_t start_ps_ = 0;   // start of the current bucket
    std::size_t cursor_ = 0;      // the current bucket
    std::size_t size_ = 0;
    std::size_t in_calendar_ = 0;  // events in buckets after the current one
};

}  // namespace clustersim
