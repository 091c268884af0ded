#pragma once
// Pending events, popped in exact (time, sequence) order. The near future is a calendar of
// fixed-width time buckets; the current bucket is a small 4-ary min-heap, later ones are plain
// arrays until their turn, and events beyond the calendar wait in one 4-ary heap. A packet
// fabric keeps tens of thousands of events pending within a microsecond or two: a single heap
// pays log(pending) cache misses per event, the calendar a heap over one bucket's events.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/event.hpp"

namespace clustersim {

namespace four_ary_heap {

inline void sift_up(std::vector<Event>& h, std::size_t i) {
    const Event e = h[i];
    while (i > 0) {
        const std::size_t parent = (i - 1) / 4;
        if (!(e < h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

// Places `e` at index i and sinks it to its position below i. By value: `e` may be h[i].
inline void sift_down(std::vector<Event>& h, std::size_t i, Event e) {
    const std::size_t n = h.size();
    for (;;) {
        const std::size_t first = i * 4 + 1;
        if (first >= n) break;
        std::size_t best = first;
        const std::size_t last = first + 4 < n ? first + 4 : n;
        for (std::size_t c = first + 1; c < last; ++c)
            if (h[c] < h[best]) best = c;
        if (!(h[best] < e)) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

inline void push(std::vector<Event>& h, const Event& e) {
    h.push_back(e);
    sift_up(h, h.size() - 1);
}

inline Event pop(std::vector<Event>& h) {
    const Event out = h.front();
    const Event last = h.back();
    h.pop_back();
    if (!h.empty()) sift_down(h, 0, last);
    return out;
}

inline void make(std::vector<Event>& h) {
    if (h.size() < 2) return;
    for (std::size_t i = (h.size() - 2) / 4 + 1; i-- > 0;) sift_down(h, i, h[i]);
}

}  // namespace four_ary_heap

class EventQueue {
  public:
    /// Buckets of 2^bucket_shift ps; `buckets` (a power of two) of them make the calendar.
    explicit EventQueue(unsigned bucket_shift = 10, std::size_t buckets = 4096)
        : shift_(bucket_shift),
          mask_(buckets - 1),
          buckets_(buckets),
          occupied_((buckets + 63) / 64, 0) {}

    void reserve(std::size_t n) { far_.reserve(n); }
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    /// The next event; the queue must not be empty.
    const Event& top() const { return buckets_[cursor_].front(); }

    void push(const Event& e) {
        if (size_++ == 0) {  // empty: the calendar starts at this event's bucket
            start_ps_ = e.time.ps() >> shift_ << shift_;
            cursor_ = slot(e.time.ps());
        }
        place(e);
    }

    Event pop() {
        std::vector<Event>& current = buckets_[cursor_];
        const Event out = four_ary_heap::pop(current);
        --size_;
        --in_calendar_;
        if (current.empty()) {
            occupied_[cursor_ / 64] &= ~(std::uint64_t{1} << (cursor_ % 64));
            if (size_ > 0) advance();
        }
        return out;
    }

    /// Pops the minimum and pushes `e` (the hold operation of the classic benchmark).
    Event replace_top(const Event& e) {
        const Event out = pop();
        push(e);
        return out;
    }

    void clear() {
        for (auto& b : buckets_) b.clear();
        std::fill(occupied_.begin(), occupied_.end(), 0);
        far_.clear();
        size_ = in_calendar_ = 0;
    }

  private:
    std::size_t slot(std::int64_t ps) const {
        return static_cast<std::size_t>(ps >> shift_) & mask_;
    }
    std::int64_t width() const { return std::int64_t{1} << shift_; }
    std::int64_t horizon_end() const {
        return start_ps_ + static_cast<std::int64_t>(buckets_.size()) * width();
    }

    void place(const Event& e) {
        const std::int64_t t = e.time.ps();
        if (t < start_ps_ + width()) {  // the current bucket, kept as a heap
            four_ary_heap::push(buckets_[cursor_], e);
            occupied_[cursor_ / 64] |= std::uint64_t{1} << (cursor_ % 64);
            ++in_calendar_;
        } else if (t < horizon_end()) {
            const std::size_t s = slot(t);
            buckets_[s].push_back(e);
            occupied_[s / 64] |= std::uint64_t{1} << (s % 64);
            ++in_calendar_;
        } else {
            four_ary_heap::push(far_, e);
        }
    }

    // The current bucket has emptied and events remain: move to the next occupied bucket (or
    // jump to the far heap's first event), let far events the calendar now covers in, and
    // order the new current bucket.
    void advance() {
        if (in_calendar_ == 0) {
            const std::int64_t t = far_.front().time.ps();
            start_ps_ = t >> shift_ << shift_;
            cursor_ = slot(t);
        } else {
            const std::size_t next = next_occupied();
            start_ps_ += static_cast<std::int64_t>((next - cursor_) & mask_) * width();
            cursor_ = next;
        }
        const std::int64_t end = horizon_end();
        while (!far_.empty() && far_.front().time.ps() < end) {
            const Event e = four_ary_heap::pop(far_);
            const std::size_t s = slot(e.time.ps());
            buckets_[s].push_back(e);
            occupied_[s / 64] |= std::uint64_t{1} << (s % 64);
            ++in_calendar_;
        }
        four_ary_heap::make(buckets_[cursor_]);
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
        return cursor_;  // unreachable while in_calendar_ > 0
    }

    unsigned shift_;
    std::size_t mask_;
    std::vector<std::vector<Event>> buckets_;
    std::vector<std::uint64_t> occupied_;  // one bit per non-empty bucket
    std::vector<Event> far_;               // 4-ary heap beyond the calendar
    std::int64_t start_ps_ = 0;            // start of the current bucket
    std::size_t cursor_ = 0;               // the current bucket
    std::size_t size_ = 0;
    std::size_t in_calendar_ = 0;  // events in buckets (the rest are in far_)
};

}  // namespace clustersim
